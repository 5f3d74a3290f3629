/**
 * Planted bug `sink-requires-notified-pending` (mutants.md 47, FLINK-10377) end to end: the
 * two-phase-commit sink's notifyCheckpointComplete(n) throws when no transaction is pending for
 * exactly n. It is reached through FLIP-147's final checkpoint: the sink task finishes its
 * operators, its final snapshot pre-commits the last transaction, and the final checkpoint's
 * notification to it is lost; the task waits, the next checkpoint is triggered on it alone (its
 * upstream FINISHED), its snapshot pre-commits nothing (no transaction after finish), and that
 * checkpoint's notification finds nothing pending for its id. The task fails and its region fails
 * over, restored from that checkpoint, whose sink state still holds the final transaction, so the
 * output stays exactly once: a spurious failover, which no fault caused. The final checkpoint
 * failing after the sink's snapshot, or the final snapshot being a savepoint's (no task hears of a
 * savepoint's completion), leave the final transaction waiting the same way.
 */
import { describe, expect, test } from 'vitest';
import type { RunResult } from '../../sim/run/RunResult.ts';
import { RUN_SPEC_VERSION, type Fault, type RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { defaultJudge } from '../explore/defaultJudge.ts';
import { expectationOf } from '../explore/explore.ts';

const BUG = 'sink-requires-notified-pending';
/** The sink's task: the keyed stage chained with the sink, after the source `v0`. */
const SINK_TASK = 'v1#0';
/** The final checkpoint of the fault-free run (pinned by the first test). */
const FINAL = 4;

function spec(faults: Fault[], mutations: string[], more: Partial<RunSpec> = {}): RunSpec {
  return {
    version: RUN_SPEC_VERSION, seed: 'b47',
    job: {
      kind: 'generated',
      spec: {
        records: [[1, 2, 3, 4, 5, 6, 7, 8], [9, 10, 11]],
        stages: [{ kind: 'keyed', key: 0, fn: 0, parallelism: 1 }],
        sourceParallelism: 1, sinkParallelism: 1, maxParallelism: 128,
      },
    },
    parallelism: {}, taskManagers: 1, costsMs: { 'gen-source': 5 },
    checkpoint: { mode: 'aligned', intervalMs: 20, maxConcurrent: 1, tolerableFailures: 0 },
    restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
    faults, healTimeMs: 2000, budgets: { maxEvents: 2_000_000, maxTimeMs: 30_000 }, overrides: [], mutations,
    ...more,
  } as RunSpec;
}

const LOSE_FINAL: Fault = { type: 'message', action: 'lose', method: 'confirmCheckpoint', checkpoint: FINAL, to: SINK_TASK };

/** The `task.failed` errors of the run. */
function taskFailures(r: RunResult): string[] {
  return r.trace.filter((e) => e.type === 'task.failed').map((e) => `${String(e.attrs['task'])}: ${String(e.attrs['error'])}`);
}

function violations(r: RunResult): string[] {
  return defaultJudge(r, expectationOf('aligned')).violations.map((v) => `${v.property}: ${v.summary}`);
}

describe(`planted bug ${BUG}`, () => {
  test(`the premise: checkpoint ${FINAL} is the sink task's final checkpoint, the first after its input ended`, () => {
    const r = simulate(spec([], []));
    const ended = r.trace.find((e) => e.type === 'task.endOfInput' && String(e.attrs['task']).startsWith(`${SINK_TASK}@`));
    const next = r.trace.find((e) => e.type === 'checkpoint.triggered' && ended !== undefined && e.seq > ended.seq);
    expect(next?.attrs['checkpointId']).toBe(FINAL);
    expect(r.jobStatus).toBe('FINISHED');
  });

  test('correct: the lost final notification delays the sink; the next checkpoint\'s notification commits the final transaction', () => {
    const r = simulate(spec([LOSE_FINAL], []));
    expect(r.faults.some((f) => f.action === 'lose')).toBe(true);
    expect(taskFailures(r)).toEqual([]);
    expect(r.restores).toBe(0);
    const commit = r.trace.find((e) => e.type === 'sink.committed' && e.attrs['checkpoint'] === FINAL);
    expect(commit?.attrs['notified']).toBe(FINAL + 1);
    expect(violations(r)).toEqual([]);
  });

  test('planted: the next notification finds no transaction pending for its id, the sink task fails and its region fails over', () => {
    const r = simulate(spec([LOSE_FINAL], [BUG]));
    expect(taskFailures(r)).toEqual([`${SINK_TASK}@0: checkpoint ${FINAL + 1} completed, but no transaction pending for it`]);
    // The failover restores the checkpoint whose notification failed the task; its sink state
    // still holds the final transaction, which the restored sink commits, so no record is lost
    // or duplicated: what is wrong is the failover itself.
    expect(r.restores).toBe(1);
    const restored = r.trace.find((e) => e.type === 'checkpoint.restored');
    expect(restored?.attrs['checkpointId']).toBe(FINAL + 1);
    expect(r.trace.some((e) => e.type === 'sink.recover-and-commit' && e.attrs['checkpoint'] === FINAL)).toBe(true);
    expect(r.jobStatus).toBe('FINISHED');
    // Output, state, storage and liveness hold: only an oracle of failovers can tell (the
    // failover attribution: this failover has no fault on its cause chain).
    const ofOutputAndState = /^(consistent-cut|end-to-end-exactly-once|storage-invariants|liveness|operator-state|engine-assertion)/;
    expect(violations(r).filter((v) => ofOutputAndState.test(v))).toEqual([]);
  });

  // The other ways the final transaction's checkpoint goes without a completion notification,
  // which explore's shrunk counterexamples took (a failed store operation, a savepoint): the sink
  // task waits for the next checkpoint, which it takes alone and pre-commits nothing for.
  const otherWays: readonly (readonly [string, Fault[], Partial<RunSpec>, number, (r: RunResult) => boolean])[] = [
    // The input ends at 62 ms; checkpoint 4 would come at 70 ms. A savepoint asked for between gets
    // id 4, and Flink notifies no task of a savepoint's completion (only of checkpoints and
    // synchronous savepoints: CheckpointCoordinator.cleanupAfterCompletedCheckpoint).
    ['the sink\'s final snapshot is a savepoint\'s, whose completion no task is told of', [],
      { actions: [{ type: 'savepoint', when: { atMs: 65 } }] }, FINAL,
      (r) => r.trace.some((e) => e.type === 'checkpoint.completed' && e.attrs['checkpointId'] === FINAL && e.attrs['savepoint'] === true)],
    // Every state write of checkpoint 4 fails: the tasks decline it after the sink pre-committed
    // its final transaction for it (one tolerable failure, so no failover follows the decline).
    ['the final checkpoint fails after the sink\'s snapshot', [{ type: 'async-snapshot-failure', probability: 1, checkpoint: FINAL }],
      { checkpoint: { mode: 'aligned', intervalMs: 20, maxConcurrent: 1, tolerableFailures: 1 } }, FINAL,
      (r) => r.trace.some((e) => e.type === 'checkpoint.aborted' && e.attrs['checkpointId'] === FINAL)],
  ];
  for (const [why, faults, more, last, premise] of otherWays) {
    test(`reached when ${why}: the correct sink commits the final transaction at the next notification, the planted one fails`, () => {
      const correct = simulate(spec(faults, [], more));
      expect(premise(correct)).toBe(true);
      expect(correct.trace.some((e) => e.type === 'sink.pre-committed' && e.attrs['checkpoint'] === last)).toBe(true);
      expect(taskFailures(correct)).toEqual([]);
      expect(correct.trace.find((e) => e.type === 'sink.committed' && e.attrs['checkpoint'] === last)?.attrs['notified']).toBe(last + 1);
      expect(violations(correct)).toEqual([]);
      const planted = simulate(spec(faults, [BUG], more));
      expect(taskFailures(planted)).toEqual([`${SINK_TASK}@0: checkpoint ${last + 1} completed, but no transaction pending for it`]);
      expect(planted.restores).toBe(1);
      expect(planted.jobStatus).toBe('FINISHED');
    });
  }

  test('planted, without the lost notification: every notification finds its own transaction and nothing fails', () => {
    const r = simulate(spec([], [BUG]));
    expect(taskFailures(r)).toEqual([]);
    expect(r.traceHash).toBe(simulate(spec([], [])).traceHash);
  });

  test('a sink subtask deployed as finished hears of no completion (Flink\'s FinishedOperatorChain), so even with the bug on it cannot fail', () => {
    // Source subtask 1 has an empty split: its chain (source, map, sink) finishes early. After a
    // global failover it is deployed as finished; its sink never initialized its state, and
    // the notifications of the checkpoints it takes part in must not reach it.
    const finishedEarly = {
      ...spec([], []),
      job: {
        kind: 'generated',
        spec: {
          records: [Array.from({ length: 40 }, (_x, i) => i), []],
          stages: [{ kind: 'map', fn: 0, parallelism: 2, rebalance: false }],
          sourceParallelism: 2, sinkParallelism: 2, maxParallelism: 128,
        },
      },
      faults: [{ type: 'global-failure', when: { atMs: 100 } }],
      healTimeMs: 500,
    } as RunSpec;
    const correct = simulate(finishedEarly);
    expect(correct.trace.some((e) => e.type === 'checkpoint.taskNotified' && e.attrs['task'] === 'v0#1@1')).toBe(true);
    const planted = simulate({ ...finishedEarly, mutations: [BUG] });
    expect(taskFailures(planted)).toEqual([]);
    expect(planted.traceHash).toBe(correct.traceHash);
  });
});
