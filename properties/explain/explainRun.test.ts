/**
 * The explanation of a counterexample (explainRun): the fixture of docs/explain.md (a lost
 * trigger RPC aborts checkpoint 3, a crash aborts 4, the restore goes back to 2, and an
 * at-least-once duplicate is judged under exactly-once) names the crash, the failover and the
 * restore on the cause chain, and the lost trigger, its timeout and the abort of 3 on the "why
 * checkpoint 2" chain.
 */
import { describe, expect, test } from 'vitest';
import { compileScenario } from '../../scenarios/compileScenario.ts';
import { simulate } from '../../sim/run/simulate.ts';
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';
import { RUN_SPEC_VERSION, type RunSpec } from '../../sim/run/RunSpec.ts';
import type { TraceEvent } from '../../sim/Trace.ts';
import { judgeRun } from '../oracles/judgeRun.ts';
import { defaultJudge } from '../explore/defaultJudge.ts';
import { explainRun, type Explanation } from './explainRun.ts';
import fixture from './fixtures/lostTriggerThenCrash.ts';
import { formatExplanation } from './formatExplanation.ts';

function fixtureRun(): { result: RunResult; explanation: Explanation } {
  const result = simulate(compileScenario(fixture).spec);
  const violation = defaultJudge(result, 'exactly-once').violations[0];
  expect(violation?.property).toBe('end-to-end-exactly-once');
  return { result, explanation: explainRun(result, violation) };
}

/** The steps of one chain, as `type` or `type:attr=value` strings. */
function onChain(e: Explanation, chain: 'cause' | 'why-checkpoint'): string[] {
  return e.steps.filter((s) => s.chains.includes(chain)).map((s) => s.type);
}

describe('explainRun on the fixture', () => {
  const { result, explanation: e } = fixtureRun();

  test('the cause chain goes from the restore from checkpoint 2 back to the crash fault', () => {
    const cause = onChain(e, 'cause');
    for (const type of ['fault', 'host.crash', 'task.failed', 'scheduler.taskFailed', 'scheduler.restarting', 'checkpoint.restored']) {
      expect(cause, type).toContain(type);
    }
    const restore = e.steps.find((s) => s.type === 'checkpoint.restored');
    expect(restore?.attrs.checkpointId).toBe(2);
    const crashFault = e.steps.find((s) => s.type === 'fault' && s.chains.includes('cause'));
    expect(crashFault?.attrs.type).toBe('crash');
    // In time order: the crash before the failover before the restore.
    const at = (type: string) => e.steps.findIndex((s) => s.type === type && s.chains.includes('cause'));
    expect(at('host.crash')).toBeLessThan(at('scheduler.restarting'));
    expect(at('scheduler.restarting')).toBeLessThan(at('checkpoint.restored'));
  });

  test('the why-checkpoint chain names the lost trigger, its timeout and the abort of checkpoint 3', () => {
    const why3 = e.steps.filter((s) => s.whyCheckpoints?.includes(3));
    // The coordinator's handler of the failed trigger records what it learned, then aborts.
    expect(why3.map((s) => s.type)).toEqual(['fault', 'rpc.drop', 'rpc.timeout', 'checkpoint.failureHandled', 'checkpoint.aborted']);
    expect(why3[0]?.attrs).toMatchObject({ type: 'message', action: 'lose', method: 'triggerCheckpoint', checkpoint: 3 });
    expect(why3[3]?.attrs).toMatchObject({ checkpointId: 3, handler: 'triggerCheckpointRequest', failure: 'Exception' });
    expect(why3[4]?.attrs).toMatchObject({ checkpointId: 3, reason: 'TRIGGER_CHECKPOINT_FAILURE' });
    expect(e.restores).toEqual([{
      seq: expect.any(Number) as number, checkpointId: 2,
      newer: [{ checkpointId: 3, outcome: 'aborted (TRIGGER_CHECKPOINT_FAILURE)' }, { checkpointId: 4, outcome: 'aborted (CHECKPOINT_COORDINATOR_SUSPEND)' }],
    }]);
    expect(e.reachedFaults).toEqual([1, 2]);
    expect(e.noFault).toBeUndefined();
  });

  test('the timeline says it in words, one line per event, with ms and host', () => {
    const lines = formatExplanation(e);
    expect(lines[0]).toMatch(/^why it failed \(from the restore before attempt 1 of sink subtask \d/);
    expect(lines).toContainEqual(expect.stringMatching(
      /^ +#\d+ +\d+\.\d{3} ms {2}jobmanager +why 3 +checkpoint 3 aborted \(TRIGGER_CHECKPOINT_FAILURE\): triggerCheckpoint RPC to v0#0@0 timed out$/));
    expect(lines).toContainEqual(expect.stringMatching(/taskmanager-2 +cause\+why 4 +taskmanager-2 crashes$/));
    expect(lines).toContainEqual('  the restore went back to checkpoint 2: checkpoint 3 aborted (TRIGGER_CHECKPOINT_FAILURE), checkpoint 4 aborted (CHECKPOINT_COORDINATOR_SUSPEND)');
    // Not the last N events: nothing from the end of the run (the job finishing) is in it.
    const end = result.outcome.timeMs;
    expect(e.steps.every((s) => s.timeMs < end - 50)).toBe(true);
  });

  test('every chain event is on record, in order, and caused events point back', () => {
    expect(e.seqs.length).toBeGreaterThan(e.steps.length);
    expect([...e.seqs].sort((a, b) => a - b)).toEqual(e.seqs);
  });
});

describe('explainRun says when no fault is behind a failure', () => {
  test('a run without faults says none fired; it never claims so when one did', () => {
    const spec = compileScenario(fixture).spec;
    const result = simulate({ ...spec, faults: [] });
    const noFaults = explainRun(result, { property: 'x', summary: '', details: { checkpointId: 2 }, timeMs: result.outcome.timeMs });
    expect(noFaults.faultsFired).toBe(0);
    expect(noFaults.noFault).toBe('no fault fired in this run: the failure needs none');
    // With faults fired, an anchor no link leads from (checkpoint 1, before any fault) must not say "no fault".
    const { result: faulty } = fixtureRun();
    const early = explainRun(faulty, { property: 'x', summary: '', details: { checkpointId: 1 }, timeMs: faulty.outcome.timeMs });
    expect(early.reachedFaults).toEqual([]);
    expect(early.noFault).toMatch(/^the cause links stop short of the 3 fault\(s\) that fired/);
  });

  test('a fault skipped at its point (reached after the heal time) is no fault that fired, no anchor and no root', () => {
    const result = simulate({
      version: RUN_SPEC_VERSION, seed: 'skipped', job: { kind: 'flights', selection: { from: 0, to: 200 } }, parallelism: 2,
      checkpoint: { mode: 'aligned', intervalMs: 20 }, healTimeMs: 50, budgets: { maxEvents: 1_000_000, maxTimeMs: 10_000 },
      faults: [{ type: 'pause', host: 'v0#0', durationMs: 60, when: { at: { kind: 'execution', state: 'FINISHED', task: 'v0#0' } } }],
      overrides: [], mutations: [],
    });
    expect(result.faults.map((f) => f.action)).toEqual(['skipped']);
    const e = explainRun(result, undefined);
    expect(e.faultsFired).toBe(0);
    expect(e.reachedFaults).toEqual([]);
    expect(e.anchors).toEqual([]);
    expect(e.noFault).toBe('no fault fired in this run');
  });
});

describe('explainRun on a checkpoint that is not restorable: it starts from what lost a missing file', () => {
  /** A doctored run: `seq` is the index, `cause` an index too. */
  function doctored(events: readonly { type: string; host?: string; attrs?: TraceEvent['attrs']; cause?: number }[]): RunResult {
    const trace: TraceEvent[] = events.map((e, seq) => ({
      seq, timeUs: seq * 1000, host: e.host ?? 'jobmanager', type: e.type, attrs: e.attrs ?? {},
      ...(e.cause === undefined ? {} : { cause: e.cause }),
    }));
    return {
      trace, committed: [], spec: { faults: [{ type: 'async-snapshot-failure', probability: 1 }], mutations: [] },
    } as unknown as RunResult;
  }
  const restorable = (missing: string[]): Violation => ({
    property: 'storage-invariants', summary: 'retained checkpoint 2 is not restorable', timeMs: 10,
    details: { invariant: 'restorable', checkpointId: 2, missing },
  });

  test('a failed put or an unknown outcome that did not happen; a missing file is no missing record', () => {
    const r = doctored([
      { type: 'fault', host: 'sim', attrs: { index: 0, type: 'async-snapshot-failure', action: 'start' } },
      { type: 'checkpoint.triggered', attrs: { checkpointId: 2 } },
      // A transaction pre-committed and never committed: an anchor only for missing records.
      { type: 'sink.pre-committed', host: 'taskmanager-1', attrs: { sink: 's', subtask: 0, attempt: 0, epoch: 0, checkpoint: 2 }, cause: 1 },
      { type: 'store.begin', host: 'store', attrs: { op: 'put', path: 'chk-2/a' }, cause: 1 },
      { type: 'mark', host: 'store', attrs: { name: 'async-snapshot-failed', op: 'put', path: 'chk-2/a' }, cause: 0 },
      { type: 'store.end', host: 'store', attrs: { op: 'put', path: 'chk-2/a', outcome: 'failed' }, cause: 4 },
      { type: 'store.unknown-outcome', host: 'store', attrs: { op: 'put', path: 'chk-2/b', happened: false }, cause: 0 },
      { type: 'store.end', host: 'store', attrs: { op: 'put', path: 'chk-2/c', outcome: 'ok' }, cause: 1 },
      { type: 'checkpoint.completed', attrs: { checkpointId: 2 }, cause: 1 },
    ]);
    const anchors = (missing: string[]) => explainRun(r, restorable(missing)).anchors;
    expect(anchors(['chk-2/a', 'chk-2/b'])).toEqual([
      { seq: 8, why: 'checkpoint 2, which the oracle names' },
      { seq: 5, why: 'the lost write of chk-2/a, a file checkpoint 2 names' },
    ]);
    // The first missing file whose loss the trace shows: none for a put that ended well.
    expect(anchors(['chk-2/c', 'chk-2/b']).map((a) => a.seq)).toEqual([8, 6]);
    const e = explainRun(r, restorable(['chk-2/a']));
    expect(e.reachedFaults).toEqual([0]);
    expect(e.steps.find((s) => s.seq === 5)?.text).toBe('store put of chk-2/a: failed');
  });

  test('ack-before-durable completes checkpoint 2 with every state write failing: the explanation reaches the fault '
    + 'that failed them', () => {
    const spec = {
      version: RUN_SPEC_VERSION, seed: 'ack', job: { kind: 'flights', selection: { from: 0, to: 200 }, splits: 4 }, parallelism: 2,
      checkpoint: { mode: 'aligned', intervalMs: 20 }, restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
      faults: [{ type: 'async-snapshot-failure', probability: 1, checkpoint: 2 },
        { type: 'global-failure', when: { at: { kind: 'jobmaster', checkpoint: 2, phase: 'completed' } } }],
      healTimeMs: 500, budgets: { maxEvents: 2_000_000, maxTimeMs: 3_000 }, overrides: [], mutations: ['ack-before-durable'],
    } as RunSpec;
    const r = simulate(spec);
    const [v] = judgeRun(r).violations;
    expect(v?.details).toMatchObject({ invariant: 'restorable', checkpointId: 2 });
    const e = explainRun(r, v);
    expect(e.anchors.map((a) => a.why)).toEqual(['checkpoint 2, which the oracle names',
      `the lost write of ${String((v?.details as { missing: string[] }).missing[0])}, a file checkpoint 2 names`]);
    expect(e.reachedFaults).toEqual([0]);
    expect(e.noFault).toBeUndefined();
  });
});
