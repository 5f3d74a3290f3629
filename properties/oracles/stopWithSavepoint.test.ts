/**
 * Which stop the oracles judge a run at: a stop-with-savepoint that completed ended the job
 * (FINISHED), so a later stop (here a rescale's, via stop-with-savepoint) fires at a job that no
 * longer runs and is refused; the run is still judged against the input cut at the completed
 * stop's savepoint. (Before, the last stop that fired was taken: the refused one, and the whole
 * input was expected, a false "missing records" on a correct engine. Found on the ledger example.)
 * The same holds for a stop whose savepoint completed but whose job then FAILED
 * (StopWithSavepointStoppingException), with a later stop refused while it was being written.
 */
import { describe, expect, test } from 'vitest';
import { simulate } from '../../sim/run/simulate.ts';
import { RUN_SPEC_VERSION, type RunSpec } from '../../sim/run/RunSpec.ts';
import { judgeRun } from './judgeRun.ts';
import { savepointTransactions, stopOutcome } from './stopWithSavepoint.ts';

const spec: RunSpec = {
  version: RUN_SPEC_VERSION,
  seed: 'stop-then-rescale',
  job: { kind: 'flights', selection: { from: 0, to: 60 }, splits: 3 },
  parallelism: 1,
  costsMs: { 'flights-source': 5, 'airport-stats': 0.25, 'flights-sink': 0.25 },
  network: { recordsPerBuffer: 1 },
  checkpoint: { mode: 'aligned', intervalMs: 100 },
  faults: [],
  actions: [
    { type: 'stop-with-savepoint', drain: false, when: { atMs: 57 } },
    { type: 'rescale', parallelism: 1, when: { atMs: 90 } },
  ],
  healTimeMs: 600,
  budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 },
  overrides: [],
  mutations: [],
};

describe('stopOutcome', () => {
  test('a stop that completed is the run\'s last word: a later stop refused at the finished job does not replace it', () => {
    const result = simulate(spec);
    expect(result.jobStatus).toBe('FINISHED');
    // Both fired: the stop completed, the rescale's stop was refused (the job had finished).
    expect(result.actions.filter((a) => a.event === 'fired').map((a) => a.action)).toEqual([0, 1]);
    expect(result.actions.find((a) => a.action === 0 && a.event === 'completed')).toBeDefined();
    expect(result.actions.find((a) => a.action === 1 && a.event === 'failed')?.reason).toBe('CHECKPOINT_COORDINATOR_SHUTDOWN');
    const outcome = stopOutcome(result);
    expect(outcome).toMatchObject({ kind: 'finished', action: 0 });
    const verdict = judgeRun(result);
    expect(verdict.violations.map((v) => `${v.property}: ${v.summary}`)).toEqual([]);
    expect(verdict.ok).toBe(true);
  });

  /**
   * Found by explore (generated, at-least-once, seed 53): a stop without drain (actions[1]) took
   * synchronous savepoint 3, whose metadata write a 10x slow store stretched to 37 ms while it
   * held the checkpoint lock; a rescale's stop (actions[2]) fired meanwhile and its JobMaster
   * thread waited on that lock, so the TaskManagers' JobMaster heartbeats timed out and they
   * failed their tasks. Savepoint 3 completed, the job ended FAILED with
   * StopWithSavepointStoppingException, and the rescale's stop was then refused. The first stop
   * is the run's last word: the sinks' transactions pre-committed in savepoint 3 are the
   * savepoint's (Flink: "might have uncommitted transactions"), not lingering leaks.
   */
  const failedStop: RunSpec = {
    version: RUN_SPEC_VERSION,
    seed: 's27',
    job: { kind: 'generated', spec: {
      records: [[]], stages: [{ kind: 'keyed', key: 0, fn: 0, parallelism: 1 }],
      sourceParallelism: 1, sinkParallelism: 1, maxParallelism: 128,
    } },
    parallelism: 1,
    taskManagers: 2,
    costsMs: { 'gen-source': 50, 'gen-0-keyed-rem4-count': 2.5, 'gen-sink': 2.5 },
    network: { recordsPerBuffer: 1 },
    checkpoint: { mode: 'at-least-once', intervalMs: 100, maxConcurrent: 1, tolerableFailures: 0, retention: 'RETAIN_ON_CANCELLATION' },
    restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
    faults: [{ type: 'slow-store', factor: 10, checkpoint: 3 }],
    actions: [
      { type: 'savepoint', when: { atMs: 4 } },
      { type: 'stop-with-savepoint', drain: false, when: { atMs: 139 } },
      { type: 'rescale', when: { atMs: 211 }, parallelism: 3 },
      { type: 'rescale', via: 'cancel', parallelism: 2, when: { at: { kind: 'jobmaster', checkpoint: 2, phase: 'completed' } } },
    ],
    healTimeMs: 600,
    budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 },
    overrides: [],
    mutations: [],
    pct: { changePoints: [0] },
  };

  test('a stop whose job failed after its savepoint is the run\'s last word: a later stop refused meanwhile does not replace it', () => {
    const result = simulate(failedStop);
    expect(result.jobStatus).toBe('FAILED');
    const outcomes = result.actions.filter((a) => a.event !== 'fired').map((a) => [a.action, a.event, a.reason]);
    expect(outcomes).toEqual([
      [0, 'completed', undefined], [3, 'completed', undefined],
      [1, 'failed', 'StopWithSavepointStoppingException'], [2, 'failed', 'NOT_ALL_REQUIRED_TASKS_RUNNING'],
    ]);
    // The rescale's stop fired after the stop, before the stop's outcome.
    expect(result.actions.find((a) => a.action === 2 && a.event === 'fired')?.timeMs).toBe(211);
    const outcome = stopOutcome(result);
    expect(outcome).toMatchObject({ kind: 'job-failed', action: 1 });
    expect(outcome?.savepoint?.checkpointId).toBe(3);
    // Both sink subtasks of run 2 left their transaction pre-committed, inside savepoint 3.
    expect([...result.lingeringTransactions].sort()).toEqual(['gen-sink#0@1/e0', 'gen-sink#1@1/e0']);
    expect([...savepointTransactions(outcome!.savepoint!, result.graph)].sort()).toEqual(['gen-sink#0@1/e0', 'gen-sink#1@1/e0']);
    expect(judgeRun(result).violations.map((v) => `${v.property}: ${v.summary}`)).toEqual([]);

    // Had the stop failed without a savepoint (the job going on), the later stop would be the
    // run's, and the same transactions would linger with nothing to explain them.
    const doctored = {
      ...result,
      actions: result.actions.map((a) => (a.action === 1 && a.event === 'failed' ? { ...a, reason: 'CHECKPOINT_DECLINED' } : a)),
    };
    expect(stopOutcome(doctored)).toMatchObject({ kind: 'refused', action: 2 });
    expect(judgeRun(doctored).violations.map((v) => v.summary))
      .toContain('2 sink transaction(s) left open or pre-committed that no logged fault touched');
  });

  /**
   * Found by explore (flights, at-least-once, seed 54, run 3020 of 10,000): the stop's
   * synchronous savepoint 1 was acknowledged by every task when their TaskManager crashed, and a
   * 10x slow store kept its metadata write, under the coordinator lock, going until 177 ms. The
   * failover's restore waited for that lock, restored from no checkpoint (the store holds no
   * savepoint), and the fresh sinks aborted the transactions of checkpoints from 1 on as lingering
   * (KafkaWriter#abortLingeringTransactions) before the stop's handling failed the job. Those
   * records are savepoint 1's, lost to Flink's own failover: judged as held by the savepoint.
   */
  const crashAfterAcks: RunSpec = {
    version: RUN_SPEC_VERSION,
    seed: 's2037416104',
    job: { kind: 'flights', selection: { from: 0, to: 366 } },
    parallelism: 2,
    taskManagers: 1,
    costsMs: { 'flights-source': 5.464, 'airport-stats': 0.273, 'flights-sink': 0.273 },
    network: { recordsPerBuffer: 9 },
    checkpoint: { mode: 'at-least-once', intervalMs: 100, maxConcurrent: 1, tolerableFailures: 0 },
    restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
    faults: [
      { type: 'crash', host: 'taskmanager-1', downMs: 1, when: { at: { kind: 'jobmaster', checkpoint: 1, phase: 'acknowledged' } } },
      { type: 'slow-store', factor: 10, checkpoint: 1 },
    ],
    actions: [{ type: 'stop-with-savepoint', drain: false, when: { atMs: 39 } }],
    healTimeMs: 600,
    budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 },
    overrides: [],
    mutations: [],
  };

  test('a savepoint\'s transactions that a failover\'s fresh sinks aborted as lingering before the stop failed the job count as the savepoint\'s', () => {
    const result = simulate(crashAfterAcks);
    expect(result.jobStatus).toBe('FAILED');
    const outcome = stopOutcome(result);
    expect(outcome).toMatchObject({ kind: 'job-failed', action: 0 });
    expect(outcome?.savepoint?.checkpointId).toBe(1);
    const inSavepoint = [...savepointTransactions(outcome!.savepoint!, result.graph)].sort();
    expect(inSavepoint).toEqual(['flights-sink#0@0/e0', 'flights-sink#1@0/e0']);
    // The failover restored from no checkpoint after the savepoint completed, and the fresh sinks
    // aborted both of the savepoint's transactions: 14 records, none committed or still pre-committed.
    const restored = result.trace.filter((e) => e.type === 'checkpoint.restored').map((e) => e.attrs['checkpointId']);
    expect(restored).toEqual([-1]);
    const abortedLingering = result.trace.filter((e) => e.type === 'sink.abort-lingering' && e.attrs['status'] === 'pre-committed');
    expect(abortedLingering.map((e) => `${String(e.attrs['sink'])}#${String(e.attrs['subtask'])}@${String(e.attrs['attempt'])}/e${String(e.attrs['epoch'])}`).sort())
      .toEqual(inSavepoint);
    expect(result.abortedPreCommitted).toHaveLength(14);
    expect(result.committed).toHaveLength(0);
    expect(result.preCommitted).toHaveLength(0);
    expect(judgeRun(result).violations.map((v) => `${v.property}: ${v.summary}`)).toEqual([]);

    const missing = 'at-least-once: 14 record(s) of F(prefixes(savepoint 1)) missing from the committed plus pre-committed in savepoint 1';
    // The same aborts by anything but a failover's lingering abort lose the savepoint's records.
    const notLingering = { ...result, trace: result.trace.filter((e) => e.type !== 'sink.abort-lingering') };
    expect(judgeRun(notLingering).violations.map((v) => `${v.property}: ${v.summary}`)).toEqual([missing]);
    // And so does a lingering abort after a restore of the savepoint's own checkpoint id, whose
    // state holds those transactions for its sinks to commit.
    const restoredThem = {
      ...result,
      trace: result.trace.map((e) => (e.type === 'checkpoint.restored' ? { ...e, attrs: { ...e.attrs, checkpointId: 1 } } : e)),
    };
    expect(judgeRun(restoredThem).violations.map((v) => `${v.property}: ${v.summary}`)).toEqual([missing]);
  });
});
