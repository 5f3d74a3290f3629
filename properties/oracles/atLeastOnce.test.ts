import { describe, expect, test } from 'vitest';
import type { RunResult } from '../../sim/run/RunResult.ts';
import type { CommittedRecord as StoreRecord } from '../../sim/SimTransactionalStore.ts';
import { AIRPORT_STATS_STATE, FLIGHTS_UIDS } from '../../sim/workloads/flights.ts';
import type { FlightOutput } from '../../sim/workloads/flights.ts';
import { referenceFold } from '../referenceFold.ts';
import { collectSink, splitSource, StreamExecutionEnvironment, twoPhaseCommitSink } from '../../engine/index.ts';
import { flightsJob } from '../../sim/workloads/flights.ts';
import { WORD_COUNT_STATE, WORDCOUNT_UIDS, wordcountJob } from '../../sim/workloads/wordcount.ts';
import { atLeastOnce, duplicatedInputs, duplicatesAfterKeyedState, judgeAtLeastOnce, replayHint } from './atLeastOnce.ts';
import { clusterRunResult } from './testing/clusterRunResult.ts';
import type { UnexplainedDuplicate } from './atLeastOnce.ts';
import type { CommittedRecord } from './compareOutputs.ts';
import { foldWithDuplicates } from './foldWithDuplicates.ts';
import { simulate } from '../../sim/run/simulate.ts';
import type { RunSpec } from '../../sim/run/RunSpec.ts';
import type { GeneratedJobSpec } from '../../sim/workloads/generatedJob.ts';
import { doctor, SAMPLE_GRAPH, sampleRun } from './testing/sampleRuns.ts';
import { judgeRun } from './judgeRun.ts';

const records = (r: RunResult): CommittedRecord[] => r.committed.map((c) => c.record as CommittedRecord);
const fold = referenceFold(SAMPLE_GRAPH);

describe('oracle 4: at-least-once with attributed duplicates', () => {
  test('holds on real runs; the crash run has duplicates, all attributed to the restore', () => {
    const clean = sampleRun('at-least-once', false);
    expect(atLeastOnce(clean)).toEqual([]);
    expect(duplicatedInputs(fold.outputs, records(clean))).toEqual([]);
    const crashed = sampleRun('at-least-once', true);
    const d = duplicatedInputs(fold.outputs, records(crashed));
    expect(d.length).toBeGreaterThan(0);
    expect(crashed.restores).toBeGreaterThan(0);
    expect(atLeastOnce(crashed)).toEqual([]);
    // Every duplicate is one more committed record.
    expect(crashed.committed.length).toBe(2000 + d.reduce((n, x) => n + x.copies, 0));
  });

  test('a duplicate without a restore is unexplained', () => {
    const r = sampleRun('at-least-once', false);
    const copy = r.committed[10] as StoreRecord;
    const doctored = doctor(r, { committed: [...r.committed, copy] });
    const vs = atLeastOnce(doctored);
    expect(vs[0]?.summary).toBe('1 duplicate(s) of 1 input record(s) explained by no restore');
    const u = (vs[0]?.details as { unexplained: UnexplainedDuplicate[] }).unexplained[0];
    const rec = copy.record as CommittedRecord;
    expect(u).toMatchObject({ split: rec.split, offset: rec.offset, copies: 1, explainedBy: [] });
    // The sample's sink sits behind a rebalance after the keyed state, so only the output is
    // judged (the state's duplicates may differ from the output's): no second violation.
    expect(vs).toHaveLength(1);
  });

  test('a duplicate of a record before the restored position is unexplained', () => {
    const r = sampleRun('at-least-once', true);
    // Offset 0 of split 0 was read long before the checkpoint the restore used.
    const first = r.committed.find((c) => (c.record as CommittedRecord).split === 0
      && (c.record as CommittedRecord).offset === 0) as StoreRecord;
    const vs = atLeastOnce(doctor(r, { committed: [...r.committed, first] }));
    const u = (vs[0]?.details as { unexplained: UnexplainedDuplicate[] }).unexplained;
    expect(u.map((x) => [x.split, x.offset])).toEqual([[0, 0]]);
  });

  test('a dropped record is missing; a changed state value differs (state judged when chained)', () => {
    const r = sampleRun('at-least-once', true);
    const dropped = atLeastOnce(doctor(r, { committed: r.committed.filter((_c, i) => i !== 3) }));
    expect(dropped).toHaveLength(1);
    expect(dropped[0]?.summary).toMatch(/1 missing/);
    expect(dropped[0]?.property).toBe('at-least-once');
    // With the sink chained to the keyed operator the state is judged too.
    const chained = clusterRunResult({
      graph: flightsJob({ selection: { from: 0, to: 600 }, parallelism: 2, sink: twoPhaseCommitSink('c') }),
      seed: 'chained', checkpoint: { mode: 'at-least-once', intervalMs: 20 }, healTimeMs: 100,
    }).result;
    expect(atLeastOnce(chained)).toEqual([]);
    const stats = chained.finalState[FLIGHTS_UIDS.stats]?.[AIRPORT_STATS_STATE] ?? {};
    const finalState = { [FLIGHTS_UIDS.stats]: { [AIRPORT_STATS_STATE]: { ...stats, ORD: { count: 1, total: 1, max: 1 } } } };
    const changed = atLeastOnce(doctor(chained, { finalState }));
    expect(changed[0]?.summary).toMatch(/1 stateDiff/);
  });

  test('a keyed operator behind forward edges only is judged on state; a rebalance after it is not', () => {
    expect(duplicatesAfterKeyedState(SAMPLE_GRAPH)).toBe(true);
    expect(judgeAtLeastOnce(sampleRun('at-least-once', true)).state).toEqual({
      judged: false, reason: 'duplicates-after-keyed-state',
      detail: 'a non-forward edge after a keyed operator lets the state hold other duplicates than the output, '
        + 'and the trace holds no evidence of what the keyed stages read',
    });
    expect(duplicatesAfterKeyedState(flightsJob({ selection: { from: 0, to: 10 }, parallelism: 2, sink: twoPhaseCommitSink('c') })))
      .toBe(false);
  });

  test('a restore from a checkpoint the result does not hold explains nothing', () => {
    const r = sampleRun('at-least-once', true);
    const vs = atLeastOnce(doctor(r, { checkpoints: { ...r.checkpoints, completed: [] } }));
    expect(vs[0]?.summary).toMatch(/explained by no restore/);
  });
});

describe('duplicatedInputs and foldWithDuplicates', () => {
  test('D is the largest surplus per input record; records F never emits are not duplicates', () => {
    const out: CommittedRecord[] = fold.outputs.slice(0, 3).map((r) => ({ ...r, attempt: 0, subtask: 0 }));
    const a = out[0] as CommittedRecord;
    const stray = { ...a, split: 99 };
    expect(duplicatedInputs(fold.outputs, [...out, a, a, stray]))
      .toEqual([{ split: a.split, offset: a.offset, copies: 2 }]);
  });

  test('a fan-out record duplicated on some of its outputs only is a partial copy, folded branch by branch', () => {
    const graph = wordcountJob({ sink: twoPhaseCommitSink('wc'), lines: ['a b a', 'b c'], splits: 1 });
    const f0 = referenceFold(graph);
    const committed: CommittedRecord[] = f0.outputs.map((r) => ({ ...r, attempt: 0, subtask: 0 }) as CommittedRecord);
    // Line 0 = a(.0) b(.1) a(.2): after a restore only the channel carrying "b" replayed it.
    const tagB = `/${WORDCOUNT_UIDS.tokenize}.1`;
    const b = committed.find((r) => r.offset === 0 && r.tag === tagB) as CommittedRecord;
    const d = duplicatedInputs(f0.outputs, [...committed, b]);
    expect(d).toEqual([{ split: 0, offset: 0, copies: 1, tags: new Map([[tagB, 1]]) }]);
    const f = foldWithDuplicates(graph, d);
    expect(f.outputs).toHaveLength(f0.outputs.length + 1);
    expect(f.outputs.filter((r) => r.offset === 0 && r.tag === tagB)).toHaveLength(2);
    const counts = f.state[WORDCOUNT_UIDS.count]?.[WORD_COUNT_STATE];
    expect(counts).toEqual({ a: 2, b: 3, c: 1 });
    // A whole copy is still a whole copy.
    const whole = committed.filter((r) => r.offset === 0);
    expect(duplicatedInputs(f0.outputs, [...committed, ...whole])).toEqual([{ split: 0, offset: 0, copies: 1 }]);
  });

  test('regression run (explore, wordcount seed 12: store unknown outcomes, delayed aborts) passes', () => {
    const spec = {"version": 8, "seed": "s10", "job": {"kind": "wordcount"}, "parallelism": 2, "taskManagers": 1, "network": {"bufferTimeoutMs": 0}, "checkpoint": {"mode": "at-least-once", "intervalMs": 50, "maxConcurrent": 1, "tolerableFailures": 0}, "restartStrategy": {"kind": "fixed-delay", "attempts": "unlimited", "delayMs": 10}, "faults": [{"type": "rpc-delay", "kind": "notifyAborted", "latency": {"minMs": 1, "medianMs": 5, "maxMs": 50}}, {"type": "store-unknown-outcome", "probability": 0.2}], "healTimeMs": 600, "budgets": {"maxEvents": 5000000, "maxTimeMs": 30000}, "overrides": [{"decision": 7867, "alternative": 2}, {"decision": 4420, "alternative": 3}, {"decision": 23, "alternative": 1}, {"decision": 10558, "alternative": 2}, {"decision": 14262, "alternative": 0}], "mutations": []} as RunSpec;
    // The schedule that replayed line 2:3 unevenly depended on decision overrides that later
    // engine changes renumbered; the partial-copy logic itself is tested above on a made-up run.
    const result = simulate(spec);
    expect(result.jobStatus).toBe('FINISHED');
    expect(atLeastOnce(result)).toEqual([]);
  });

  // Found by explore (generated, at-least-once, seed 22) once runs were paced: both records of
  // split 0 feed a keyed count and are then filtered out, so nothing is committed; the restore
  // read a record the restored count already held, and the count ended 2 above F(all input).
  // That duplicate shows only in the state; it is attributed by offset to the restore. (Seed s2
  // gives that schedule now that tasks take mails between records; explore's seed no longer does.)
  const HIDDEN: RunSpec = {
    version: 8, seed: 's2',
    job: { kind: 'generated', spec: {
      records: [[0, 0]],
      stages: [{ kind: 'flatMap', fn: 0, parallelism: 1, rebalance: true }, { kind: 'keyed', key: 0, fn: 0, parallelism: 1 },
        { kind: 'filter', fn: 1, parallelism: 1, rebalance: false }, { kind: 'filter', fn: 0, parallelism: 1, rebalance: false }],
      sourceParallelism: 1, sinkParallelism: 1, maxParallelism: 128,
    } },
    parallelism: 4, taskManagers: 2, network: { recordsPerBuffer: 1 }, costsMs: { 'gen-source': 50 },
    checkpoint: { mode: 'at-least-once', intervalMs: 100, maxConcurrent: 1, tolerableFailures: 0 },
    restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
    faults: [{ type: 'rpc-delay', kind: 'notifyComplete', latency: { minMs: 1, medianMs: 5, maxMs: 50 } }],
    healTimeMs: 600, budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 }, overrides: [], mutations: [],
  };

  test('a duplicate with no output shows only in the state and is explained by a restore that read it again', () => {
    const result = simulate(HIDDEN);
    expect(result.committed).toEqual([]);
    expect(result.restores).toBeGreaterThan(0);
    const counts = result.finalState['gen-1-keyed-rem4-count']?.['count'] ?? {};
    const expected = referenceFold(result.graph).state['gen-1-keyed-rem4-count']?.['count'] ?? {};
    expect(counts['0']).toBe((expected['0'] as number) + 2);
    expect(atLeastOnce(result)).toEqual([]);
  });

  test('a state no set of re-read records explains is still a violation', () => {
    const result = simulate(HIDDEN);
    const op = result.finalState['gen-1-keyed-rem4-count'] ?? {};
    // One copy adds 2 (the flatMap emits each record twice): 4 + 1 is no F(all + D).
    const doctored = doctor(result, { finalState: { ...result.finalState, 'gen-1-keyed-rem4-count': { ...op, count: { 0: 5 } } } });
    const vs = atLeastOnce(doctored);
    expect(vs).toHaveLength(1);
    expect(vs[0]?.summary).toBe('committed output or final state differ from F(all input + D): 1 stateDiff');
    // Only the second record lies at or after the restored checkpoints' position of split 0; one
    // restore reads it again, so one hidden copy at most, and neither 0 nor 1 copy gives 5.
    expect(vs[0]?.details).toMatchObject({ duplicatedInputs: 0, hiddenCandidates: 1 });
  });

  test('a differing key that no re-read record touches is a violation, however many candidates', () => {
    const result = simulate(HIDDEN);
    const op = result.finalState['gen-1-keyed-rem4-count'] ?? {};
    const count = { ...(op['count'] ?? {}), 3: 1 };
    const vs = atLeastOnce(doctor(result, { finalState: { ...result.finalState, 'gen-1-keyed-rem4-count': { ...op, count } } }));
    // Key 3 cannot be explained, so nothing is: key 0's hidden duplicate is listed as well.
    expect(vs[0]?.details).toMatchObject({ stateDiffCount: 2 });
    const diffs = (vs[0]?.details as { stateDiffs: { key: string }[] }).stateDiffs.map((d) => d.key);
    expect(diffs).toContain('3');
  });

  // Found by a fresh-eyes pass: above the candidate cap the state was left unjudged before
  // checking that every differing key could be explained, so a key nothing touches went unseen.
  test('with more candidate records than can be folded one by one, a differing state is reported', () => {
    const spec: RunSpec = {
      ...HIDDEN, seed: 's1', parallelism: 1, taskManagers: 1, network: { recordsPerBuffer: 4 }, costsMs: { 'gen-source': 1 },
      job: { kind: 'generated', spec: { ...(HIDDEN.job as { spec: GeneratedJobSpec }).spec, records: [Array.from({ length: 600 }, () => 0)] } },
      checkpoint: { mode: 'at-least-once', intervalMs: 50 }, faults: [{ type: 'global-failure', when: { atMs: 120 } }],
    };
    const result = simulate(spec);
    expect(result.restores).toBe(1);
    expect(atLeastOnce(result)).toEqual([]);
    const op = result.finalState['gen-1-keyed-rem4-count'] ?? {};
    const vs = atLeastOnce(doctor(result, { finalState: { ...result.finalState, 'gen-1-keyed-rem4-count': { ...op, count: { ...op['count'], 3: 1 } } } }));
    expect(vs[0]?.details).toMatchObject({ stateDiffCount: 1 });
    expect((vs[0]?.details as { hiddenCandidates: number }).hiddenCandidates).toBeGreaterThan(512);
  });

  test('a state the search cannot decide is reported unjudged, with its reason, not passed', () => {
    // 30 records of value 0 (each counted twice after the flatMap, then filtered out), one
    // restore: 21 hidden candidates touch key 0, so a count 10 above the run's (5 more hidden
    // copies) is explained by no set of up to 3 and the search stops before trying sets of 5.
    const spec: RunSpec = {
      ...HIDDEN, seed: 's1', parallelism: 1, taskManagers: 1, costsMs: { 'gen-source': 5 },
      job: { kind: 'generated', spec: { ...(HIDDEN.job as { spec: GeneratedJobSpec }).spec, records: [Array.from({ length: 30 }, () => 0)] } },
      checkpoint: { mode: 'at-least-once', intervalMs: 20 }, faults: [{ type: 'global-failure', when: { atMs: 75 } }],
    };
    const result = simulate(spec);
    expect(result.restores).toBe(1);
    expect(judgeAtLeastOnce(result)).toEqual({ violations: [], state: { judged: true } });
    const op = result.finalState['gen-1-keyed-rem4-count'] ?? {};
    const count = (op['count'] as Record<string, number>)['0'] ?? 0;
    const verdict = judgeAtLeastOnce(doctor(result, { finalState: { ...result.finalState, 'gen-1-keyed-rem4-count': { ...op, count: { 0: count + 10 } } } }));
    expect(verdict.violations).toEqual([]);
    expect(verdict.state).toEqual({
      judged: false, reason: 'hidden-search-inconclusive',
      detail: '21 candidate cop(ies) of records with no output could explain the state; not every set was tried (1024 folds)',
    });
  });

  test('a record before every restored position is no candidate', () => {
    const result = simulate(HIDDEN);
    // Without restores nothing was read again, so the same state is a violation.
    const noRestores = doctor(result, { trace: result.trace.filter((e) => e.type !== 'checkpoint.restored') });
    const vs = atLeastOnce(noRestores);
    expect(vs[0]?.details).toMatchObject({ hiddenCandidates: 0, stateDiffCount: 1 });
  });

  test('mode none: a failover restarts from scratch; committed duplicates are attributed, state is F(all)', () => {
    const spec: RunSpec = {
      version: 8, seed: 's986160429', job: { kind: 'flights', selection: { from: 0, to: 50 } },
      parallelism: 1, taskManagers: 1, costsMs: { 'flights-source': 5 },
      checkpoint: { mode: 'none', intervalMs: 100 },
      restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
      // The sink commits at its end of input; a global failure right then replays everything.
      faults: [{ type: 'global-failure', when: { at: { kind: 'sink', phase: 'pre-committed', nth: 1 } } }],
      healTimeMs: 600, budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 }, overrides: [], mutations: [],
    };
    const result = simulate(spec);
    expect(result.jobStatus).toBe('FINISHED');
    expect(duplicatedInputs(referenceFold(result.graph).outputs, records(result)).length).toBeGreaterThan(0);
    expect(atLeastOnce(result)).toEqual([]);
    // Without the failover as a restore from nothing, the duplicates would be unexplained.
    const noFailovers = { ...result, trace: result.trace.filter((e) => e.type !== 'scheduler.restarting') };
    expect(atLeastOnce(noFailovers).map((v) => v.summary)).toEqual([expect.stringMatching(/explained by no restore/)]);
  });

  test('mode none: the state is F(all input) even behind a rebalance after the keyed stage', () => {
    const spec: RunSpec = {
      version: 8, seed: 's4',
      job: { kind: 'generated', spec: {
        records: [[1, 2, 3, 4, 5, 6], [7, 8, 9]],
        stages: [{ kind: 'keyed', key: 0, fn: 0, parallelism: 2 }, { kind: 'map', fn: 0, parallelism: 2, rebalance: true }],
        sourceParallelism: 2, sinkParallelism: 2, maxParallelism: 128,
      } },
      parallelism: 2, taskManagers: 2,
      checkpoint: { mode: 'none', intervalMs: 100 },
      restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
      // A sink subtask commits at its end of input; the global failure then replays everything.
      faults: [{ type: 'global-failure', when: { at: { kind: 'sink', phase: 'pre-committed', nth: 1 } } }],
      healTimeMs: 600, budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 }, overrides: [], mutations: [],
    };
    const result = simulate(spec);
    expect(duplicatesAfterKeyedState(result.graph)).toBe(true);
    expect(result.committed.length).toBe(18);
    expect(judgeAtLeastOnce(result)).toEqual({ violations: [], state: { judged: true } });
    // A count that kept a replayed record, as if the restart had not started from scratch.
    const op = result.finalState['gen-0-keyed-rem4-count'] ?? {};
    const doctored = doctor(result, { finalState: { 'gen-0-keyed-rem4-count': { ...op, count: { ...op['count'], 0: 3 } } } });
    expect(atLeastOnce(doctored).map((v) => v.summary))
      .toEqual(['committed output or final state differ from F(all input + D): 1 stateDiff']);
  });

  test('two multi-output keyed stages in a row (explore, generated, mode none, seed 84): outputs keep distinct tags', () => {
    // 310 -> countAndSplit -> 310 and 155 -> countAndSplit -> 310, 155 (from 310) and 155 (from
    // 155): two records of value 155 from one input record, which once shared a tag. The sink
    // subtask holding one of them commits it at its end of input; the TaskManager then pauses
    // past the heartbeat timeout and the failover replays everything, so exactly one of the two
    // is committed twice (a partial copy). (Seed s25 gives that schedule, s4 did until finishing
    // tasks ended their mailbox loop as Flink's afterInvoke does, one mailbox step later; explore
    // found it with seed s1 and four store faults whose time-0 start actions have since become one.)
    const spec: RunSpec = {
      version: 8, seed: 's25',
      job: { kind: 'generated', spec: {
        records: [[310]],
        stages: [{ kind: 'keyed', key: 0, fn: 4, parallelism: 1 }, { kind: 'keyed', key: 5, fn: 4, parallelism: 1 }],
        sourceParallelism: 1, sinkParallelism: 1, maxParallelism: 128,
      } },
      parallelism: 2, taskManagers: 1,
      checkpoint: { mode: 'none', intervalMs: 100 },
      restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
      faults: [
        { type: 'pause', host: 'taskmanager-1', when: { at: { kind: 'sink', phase: 'pre-committed', nth: 1 } }, durationMs: 24 },
      ],
      healTimeMs: 600, budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 }, overrides: [], mutations: [],
    };
    const result = simulate(spec);
    expect(result.jobStatus).toBe('FINISHED');
    expect(atLeastOnce(result)).toEqual([]);
    const f0 = referenceFold(result.graph);
    expect(new Set(f0.outputs.map((r) => r.tag)).size).toBe(3);
    const d = duplicatedInputs(f0.outputs, records(result));
    expect(d).toEqual([{ split: 0, offset: 0, copies: 1, tags: expect.any(Map) as unknown }]);
    expect(foldWithDuplicates(result.graph, d).outputs).toHaveLength(records(result).length);
  });

  test('an identity F gives several outputs (a stream feeding two sinks) counts one replay as one copy', () => {
    const env = new StreamExecutionEnvironment();
    const src = env.fromSource(splitSource([{ id: 0, records: [1] }]));
    src.sinkTo(collectSink([]), { uid: 'a' });
    src.map((v: number) => v, { uid: 'm' }).sinkTo(collectSink([]), { uid: 'b' });
    const expected = referenceFold(env.getStreamGraph()).outputs;
    expect(expected.map((r) => r.tag)).toEqual(['', '']);
    const once = expected.map((r) => ({ ...r, value: 1, attempt: 0, subtask: 0 }) as CommittedRecord);
    const again = expected.map((r) => ({ ...r, value: 1, attempt: 1, subtask: 0 }) as CommittedRecord);
    expect(duplicatedInputs(expected, [...once, ...again])).toEqual([{ split: 0, offset: 0, copies: 1 }]);
    expect(duplicatedInputs(expected, [...once, ...again, ...again])).toEqual([{ split: 0, offset: 0, copies: 2 }]);
  });

  test('F(all + D) counts the copies in state and output, under the original identity', () => {
    const a = fold.outputs[0] as { split: number; offset: number; value: unknown };
    const f = foldWithDuplicates(SAMPLE_GRAPH, [{ split: a.split, offset: a.offset, copies: 2 }]);
    expect(f.outputs).toHaveLength(fold.outputs.length + 2);
    expect(f.outputs.filter((r) => r.split === a.split && r.offset === a.offset)).toHaveLength(3);
    expect(f.outputsBySink.get(FLIGHTS_UIDS.sink)).toHaveLength(fold.outputs.length + 2);
    const origin = (a.value as FlightOutput).origin;
    const count = (s: typeof fold.state) =>
      (s[FLIGHTS_UIDS.stats]?.[AIRPORT_STATS_STATE]?.[origin] as { count: number }).count;
    expect(count(f.state)).toBe(count(fold.state) + 2);
    expect(foldWithDuplicates(SAMPLE_GRAPH, []).outputs).toHaveLength(fold.outputs.length);
    expect(() => foldWithDuplicates(SAMPLE_GRAPH, [{ split: 0, offset: 10_000, copies: 1 }]))
      .toThrow('no input record 0:10000');
    expect(() => foldWithDuplicates(SAMPLE_GRAPH, [{ split: 77, offset: 0, copies: 1 }]))
      .toThrow('no input record 77:0');
  });
});

describe('at-least-once judged at a stop\'s cut', () => {
  // Found by explore --job flights --mode all --runs 10000 --seed 54 (at-least-once, run 7008):
  // run 1 (parallelism 3) commits checkpoint 1, whose at-least-once sink transaction holds flight
  // 10 (record 2:2) read past the checkpoint's cut of split 2; a rescale via cancel restores
  // checkpoint 1 at parallelism 2, and the stop's savepoint 2 comes before run 2 reads 2:2 again.
  const found: RunSpec = {
    version: 8, seed: 's765609040', job: { kind: 'flights', selection: { from: 0, to: 50 } },
    parallelism: 3, taskManagers: 2,
    checkpoint: { mode: 'at-least-once', intervalMs: 100, maxConcurrent: 1, tolerableFailures: 0, retention: 'RETAIN_ON_CANCELLATION' },
    restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
    faults: [],
    actions: [
      { type: 'stop-with-savepoint', drain: false, when: { atMs: 174 } },
      { type: 'rescale', via: 'cancel', parallelism: 2, when: { at: { kind: 'jobmaster', checkpoint: 1, phase: 'completed' } } },
    ],
    healTimeMs: 600, budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 }, overrides: [], mutations: [],
    network: { recordsPerBuffer: 1 }, costsMs: { 'flights-source': 50, 'airport-stats': 2.5, 'flights-sink': 2.5 },
  };
  const aheadId = (r: RunResult): boolean => records(r).some((c) => c.split === 2 && c.offset === 2);

  test('a record read ahead of the cut and committed before a restore rewound its split counts as a copy, in output and state', () => {
    const r = simulate(found);
    expect(r.jobRuns.map((j) => j.status)).toEqual(['CANCELED', 'FINISHED']);
    expect(aheadId(r)).toBe(true);
    const verdict = judgeRun(r, { expect: 'at-least-once' });
    expect(verdict.violations.map((v) => v.summary)).toEqual([]);
    expect(verdict.keyedState).toMatchObject({ judged: true });
  });

  test('without a restore that rewound it, the same record past the cut is a surplus', () => {
    const r = simulate(found);
    const noRestore = doctor(r, { trace: r.trace.filter((e) => e.type !== 'checkpoint.restored') });
    const surplus = judgeRun(noRestore, { expect: 'at-least-once' }).violations
      .flatMap((v) => ((v.details as { surplus?: { id: string }[] }).surplus ?? []));
    expect(surplus.map((c) => c.id)).toContain('2:2');
  });
});

describe('replayHint', () => {
  test('only when values alone differ: the likeliest cause in a user\'s job, and the ways out', () => {
    const none = { missingCount: 0, surplusCount: 0, stateDiffCount: 0, stateMissingCount: 0 };
    expect(replayHint({ ...none, valueMismatchCount: 2 })).toMatch(/^ \(no record missing or extra, only values differ: .*judge the sink by identity, docs\/jobs\.md "Limitations"\)$/);
    expect(replayHint({ ...none, valueMismatchCount: 2, surplusCount: 1 })).toBe('');
    expect(replayHint({ ...none, valueMismatchCount: 2, stateDiffCount: 1 })).toBe('');
    expect(replayHint({ ...none, valueMismatchCount: 0 })).toBe('');
  });
});
