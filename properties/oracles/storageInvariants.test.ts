import { describe, expect, test } from 'vitest';
import type { DecodedCheckpoint } from '../../engine/index.ts';
import type { RunResult } from '../../sim/run/RunResult.ts';
import { RUN_SPEC_VERSION, type RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { attemptOfPath, checkpointOfPath, faultsTouching } from './faultsTouching.ts';
import { restoreRefused } from './restoreRefused.ts';
import { checkpointFiles, storageInvariants } from './storageInvariants.ts';
import { clusterRunResult } from './testing/clusterRunResult.ts';
import {
  doctor, event, SAMPLE_GRAPH, sampleRun,
} from './testing/sampleRuns.ts';

const invariantsOf = (r: RunResult): string[] =>
  storageInvariants(r).map((v) => (v.details as { invariant: string }).invariant);

/** A run stopped by its time budget at 150 ms, with retained checkpoints in the store. */
function stoppedRun(): RunResult {
  return clusterRunResult({
    graph: SAMPLE_GRAPH, seed: 'budget', checkpoint: { mode: 'aligned', intervalMs: 20, retained: 2 },
    maxTimeMs: 150, cluster: { config: { slotsPerTaskManager: 1 } },
  }).result;
}

describe('oracle 6: storage invariants', () => {
  test('a FINISHED job leaves an empty store (but for a known engine leak) and no transactions', () => {
    for (const mode of ['aligned', 'at-least-once', 'none'] as const) {
      for (const crash of [false, true]) {
        const r = sampleRun(mode, crash);
        expect(storageInvariants(r)).toEqual([]);
        expect(r.lingeringTransactions).toEqual([]);
      }
    }
  });

  test('a stopped run keeps its retained checkpoints restorable; a removed file is caught', () => {
    const r = stoppedRun();
    expect(r.jobEndMs).toBeUndefined();
    expect(r.objectStorePaths.length).toBeGreaterThan(0);
    expect(storageInvariants(r)).toEqual([]);
    const last = r.checkpoints.completed.at(-1) as DecodedCheckpoint;
    const gone = checkpointFiles(last)[1] as string;
    const vs = storageInvariants(doctor(r, { objectStorePaths: r.objectStorePaths.filter((p) => p !== gone) }));
    expect(vs).toHaveLength(1);
    expect(vs[0]?.summary).toBe(`retained checkpoint ${last.checkpointId} is not restorable: 1 file(s) missing`);
    expect(vs[0]?.details).toMatchObject({ invariant: 'restorable', missing: [gone] });
  });

  test('the files of an acknowledgement an ended job run\'s coordinator dropped are a known leftover, not a leak', () => {
    const clean = sampleRun('aligned', false);
    const file = 'chk-3/v0#0@0/flights-source';
    expect(invariantsOf(doctor(clean, { objectStorePaths: [file] }))).toEqual(['no-leaked-files']);
    const dropped = event(99_999, 1, 'checkpoint.ackAfterShutdown', { checkpointId: 3, task: 'v0#0@0', files: 1 });
    expect(storageInvariants(doctor(clean, { objectStorePaths: [file], trace: [...clean.trace, dropped] }))).toEqual([]);
    // Of another run (its files under run-2/), or another attempt: still a leak.
    const ofRun2 = event(99_999, 1, 'checkpoint.ackAfterShutdown', { checkpointId: 3, task: 'v0#0@0', files: 1, jobRun: 2 });
    expect(invariantsOf(doctor(clean, { objectStorePaths: [file], trace: [...clean.trace, ofRun2] }))).toEqual(['no-leaked-files']);
    expect(storageInvariants(doctor(clean, { objectStorePaths: [`run-2/${file}`], trace: [...clean.trace, ofRun2] }))).toEqual([]);
  });

  test('so are those of a savepoint\'s acknowledgement, under the savepoint\'s directory (a finishing task waited for '
    + 'its write past the savepoint\'s expiry and the job\'s end)', () => {
    const clean = sampleRun('aligned', false);
    const file = 'savepoint-7/v0#0@0/flights-source';
    const triggered = event(99_998, 1, 'checkpoint.triggered', { checkpointId: 7, timestampUs: 1000, savepoint: true }, 'jobmanager');
    const dropped = event(99_999, 1, 'checkpoint.ackAfterShutdown', { checkpointId: 7, task: 'v0#0@0', files: 1 });
    expect(storageInvariants(doctor(clean, { objectStorePaths: [file], trace: [...clean.trace, triggered, dropped] }))).toEqual([]);
    // Without the savepoint's trigger the ack's files would be under chk-7/: the savepoint's are a leak.
    expect(invariantsOf(doctor(clean, { objectStorePaths: [file], trace: [...clean.trace, dropped] }))).toEqual(['no-leaked-files']);
    // And with it, a file under chk-7/ is no leftover of that ack.
    expect(invariantsOf(doctor(clean, { objectStorePaths: ['chk-7/v0#0@0/flights-source'], trace: [...clean.trace, triggered, dropped] })))
      .toEqual(['no-leaked-files']);
  });

  test('a file no fault touched is a leak; one of a crashed attempt is not', () => {
    const clean = sampleRun('aligned', false);
    const leak = doctor(clean, { objectStorePaths: ['chk-3/v0#0@0/flights-source'] });
    expect(storageInvariants(leak)).toHaveLength(1);
    expect(invariantsOf(leak)).toEqual(['no-leaked-files']);
    const crashed = sampleRun('aligned', true);
    // taskmanager-2 runs subtask 1 of the first vertices; its attempt 0 died in the crash.
    const onCrashedHost = crashed.trace.find((e) => e.type === 'scheduler.deploy'
      && /@taskmanager-2(\/|$)/.test(String(e.attrs['taskExecutor'])));
    const file = `chk-1/${String(onCrashedHost?.attrs['task'])}/x`;
    expect(storageInvariants(doctor(crashed, { objectStorePaths: [file] }))).toEqual([]);
    expect(invariantsOf(doctor(crashed, { objectStorePaths: ['chk-1/v9#0@0/x'] }))).toEqual(['no-leaked-files']);
  });

  test('a failed _metadata write excuses none of its checkpoint\'s state files; an unknown-outcome one its _metadata', () => {
    const clean = sampleRun('aligned', false);
    const stateFile = 'chk-3/v0#0@0/flights-source';
    const seq = clean.trace.length;
    const withWrite = (outcome: string): RunResult => doctor(clean, {
      trace: [...clean.trace, event(seq, 1, 'store.end', { op: 'put', path: 'chk-3/_metadata', outcome }, 'store')],
      objectStorePaths: ['chk-3/_metadata', stateFile],
    });
    for (const outcome of ['failed', 'unknown-outcome']) {
      const vs = storageInvariants(withWrite(outcome));
      expect(vs).toHaveLength(1);
      expect(vs[0]?.details).toMatchObject({
        invariant: 'no-leaked-files',
        leaked: outcome === 'failed' ? ['chk-3/_metadata', stateFile] : [stateFile],
      });
    }
  });

  test('a lingering transaction no fault touched is caught; one begun before a crash is not', () => {
    const clean = sampleRun('aligned', false);
    expect(invariantsOf(doctor(clean, { lingeringTransactions: ['f#0@0/e1', 'nonsense'], objectStorePaths: [] })))
      .toEqual(['no-lingering-transactions']);
    const crashed = sampleRun('aligned', true);
    expect(storageInvariants(doctor(crashed, { lingeringTransactions: ['f/0/0/1'], objectStorePaths: [] })))
      .toEqual([]);
  });
});

describe('oracle 6: a cancel followed by a refused restore', () => {
  test('the checkpoint that completed during the cancel keeps its transaction pre-committed, and that is no leak', () => {
    // A source whose second subtask finishes early, chained at parallelism 2 with the map that ran
    // apart at parallelism 1: rescaled via a cancel, the new run is refused its restore ("mixed
    // operator finished state"), so the history ends at the cancel. Checkpoint 3 completes while
    // the job is being cancelled (its tasks are cancelled before they commit) and the restore
    // that would commit its transaction never happens.
    const spec: RunSpec = {
      version: RUN_SPEC_VERSION, seed: 's2147483633',
      job: { kind: 'generated', spec: {
        records: [[0, 0, 0, 0], [0, 0]],
        stages: [{ kind: 'map', fn: 0, parallelism: 1, rebalance: false }, { kind: 'splitOwners', parallelism: 1 },
          { kind: 'map', fn: 0, parallelism: 2, rebalance: false }],
        sourceParallelism: 2, sinkParallelism: 1, maxParallelism: 128,
      } },
      parallelism: {}, taskManagers: 1,
      checkpoint: { mode: 'aligned', intervalMs: 50, maxConcurrent: 2, tolerableFailures: 0, retention: 'RETAIN_ON_CANCELLATION' },
      restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
      faults: [{ type: 'slow-store', factor: 10, checkpoint: 1 }],
      actions: [{ type: 'rescale', when: { atMs: 152 }, parallelism: 2, via: 'cancel' }],
      healTimeMs: 600, budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 }, overrides: [], mutations: [],
      network: { recordsPerBuffer: 1 },
      costsMs: { 'gen-source': 25, 'gen-0-map-add1': 1.25, 'gen-1-splitOwners': 1.25, 'gen-2-map-add1': 1.25, 'gen-sink': 1.25 },
    };
    const r = simulate(spec);
    expect(r.jobStatus).toBe('FAILED');
    expect(restoreRefused(r)?.reason).toMatch(/mixed operator finished state/);
    expect(r.jobRuns.map((run) => run.status)).toEqual(['CANCELED', 'FAILED']);
    const completedWhileCancelling = r.trace.find((e) => e.type === 'checkpoint.completed' && e.attrs['checkpointId'] === 3);
    const cancelling = r.trace.find((e) => e.type === 'job.status' && e.attrs['status'] === 'CANCELLING');
    expect((completedWhileCancelling?.seq ?? 0) > (cancelling?.seq ?? Infinity)).toBe(true);
    expect(r.lingeringTransactions).toEqual(['gen-sink#0@0/e2']);
    expect(storageInvariants(r)).toEqual([]);
    // The same leftover without the cancel before it would be a violation.
    expect(invariantsOf(doctor(sampleRun('aligned', false), { lingeringTransactions: ['gen-sink#0@0/e2'], objectStorePaths: [] })))
      .toEqual(['no-lingering-transactions']);
  });
});

describe('faultsTouching', () => {
  const trace = [
    event(0, 0, 'scheduler.deploy', { task: 'v0#0@0', taskExecutor: 'taskexecutor@tm-1' }),
    event(1, 10, 'checkpoint.triggered', { checkpointId: 1 }),
    event(2, 20, 'mark', { name: 'rpc-lost', kind: 'ack' }),
    event(3, 30, 'checkpoint.completed', { checkpointId: 1 }),
    event(4, 40, 'checkpoint.triggered', { checkpointId: 2 }),
    event(5, 45, 'store.end', { op: 'put', path: 'chk-5/v0#1@0/u', outcome: 'failed' }, 'store'),
    event(6, 46, 'store.end', { op: 'deleteDirectory', path: 'chk-6', outcome: 'unknown-outcome' }, 'store'),
    event(7, 47, 'store.end', { op: 'get', path: 'chk-7/x', outcome: 'not-found' }),
    event(8, 50, 'checkpoint.completed', { checkpointId: 2 }),
    event(9, 60, 'checkpoint.asyncFailed', { checkpointId: 8, task: 'v2#0@3' }, 'tm-2'),
    event(10, 70, 'net.partition', { from: 'tm-1', to: 'jobmanager', oneWay: false }),
  ];
  const t = faultsTouching(trace);

  // Found by explore (generated, at-least-once, seed 1): a savepoint asked for while a
  // stop-with-savepoint's synchronous savepoint waits on a slow store gets the higher id; its
  // completion notifies no task (CheckpointCoordinator.sendAcknowledgeMessages is skipped for a
  // savepoint), the stop's notification commits only up to its own id, and the task ends.
  test('a savepoint taken after a finished stop\'s synchronous savepoint leaves its transaction pre-committed, known', () => {
    const spec: RunSpec = {
      version: RUN_SPEC_VERSION, seed: 's496719784',
      job: { kind: 'generated', spec: { records: [[0, 0]], stages: [{ kind: 'keyed', key: 0, fn: 0, parallelism: 1 }],
        sourceParallelism: 1, sinkParallelism: 1, maxParallelism: 128 } },
      parallelism: 1, taskManagers: 1,
      checkpoint: { mode: 'at-least-once', intervalMs: 100, maxConcurrent: 1, tolerableFailures: 0 },
      restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
      faults: [{ type: 'slow-store', factor: 1000, checkpoint: 2 }],
      actions: [{ type: 'savepoint', when: { atMs: 108 } },
        { type: 'stop-with-savepoint', drain: false, when: { at: { kind: 'jobmaster', checkpoint: 1, phase: 'completed' } } }],
      healTimeMs: 600, budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 }, overrides: [], mutations: [],
      network: { recordsPerBuffer: 1 }, costsMs: { 'gen-source': 50, 'gen-0-keyed-rem4-count': 2.5, 'gen-sink': 2.5 },
    };
    const r = simulate(spec);
    expect(r.jobStatus).toBe('FINISHED');
    // Savepoint 3 completed while the stop's savepoint 2 was pending; only 2 was notified.
    expect(r.actions.filter((a) => a.event === 'completed').map((a) => a.checkpointId)).toEqual([3, 2]);
    expect(r.trace.filter((e) => e.type === 'checkpoint.taskNotified').map((e) => e.attrs['checkpointId'])).not.toContain(3);
    expect(r.lingeringTransactions).toEqual(['gen-sink#0@0/e2']);
    expect(storageInvariants(r)).toEqual([]);
    // The same transaction left by a history without the stop is a leak.
    const noStop = doctor(r, { actions: r.actions.filter((a) => a.action === 0) });
    expect(invariantsOf(noStop)).toEqual(['no-lingering-transactions']);
  });

  test('checkpoints live during a fault are touched; store faults and failed async snapshots touch none', () => {
    expect(t.checkpoint(1)).toBe(true);
    // Store faults touch no checkpoint, neither the one live then nor the one of their path;
    // a failed async snapshot is a store fault the task reports.
    expect(t.checkpoint(2)).toBe(false);
    expect([5, 6, 8].map((n) => t.checkpoint(n))).toEqual([false, false, false]);
    expect(t.checkpoint(7)).toBe(false);
    expect(t.checkpoint(99)).toBe(false);
  });

  test('attempts on a partitioned host are touched, one with a failed async part is not', () => {
    expect(t.attempt('v0#0@0')).toBe(true);
    expect(t.attempt('v2#0@3')).toBe(false);
    expect(t.file('chk-8/v2#0@3/u')).toBe(false);
    expect(t.attempt('v1#0@0')).toBe(false);
    expect(t.file('chk-7/x')).toBe(false);
    expect(t.file('chk-9/v0#0@0/u')).toBe(true);
    // A failed put wrote nothing; an unknown-outcome deleteDirectory may have left all under it.
    expect(t.file('chk-5/v0#1@0/u')).toBe(false);
    expect(t.file('chk-6/v1#0@0/u')).toBe(true);
    expect(t.file('chk-60/v1#0@0/u')).toBe(false);
  });

  test('paths and transaction names parse', () => {
    expect(checkpointOfPath('chk-12/_metadata')).toBe(12);
    expect(checkpointOfPath('chk-12')).toBe(12);
    expect(checkpointOfPath('elsewhere/chk-1')).toBeUndefined();
    expect(attemptOfPath('chk-1/v0#2@3/uid')).toBe('v0#2@3');
    expect(attemptOfPath('chk-1/_metadata')).toBeUndefined();
    expect(t.transaction('f#0@0/e0')).toBe(false);
  });
});

describe('faultsTouching: what a store fault may leave', () => {
  const end = (seq: number, op: string, path: string, outcome: string) =>
    event(seq, seq * 10, 'store.end', { op, path, outcome }, 'store');
  const t = faultsTouching([
    end(0, 'put', 'chk-1/_metadata', 'failed'),
    end(1, 'put', 'chk-2/_metadata', 'unknown-outcome'),
    end(2, 'put', 'chk-3/a#0@0/u', 'ok'),
    end(3, 'delete', 'chk-3/a#0@0/u', 'failed'),
    end(4, 'put', 'chk-4/a#0@0/u', 'ok'),
    end(5, 'delete', 'chk-4/a#0@0/u', 'unknown-outcome'),
    end(6, 'put', 'chk-4/a#0@0/u', 'ok'),
    end(7, 'put', 'chk-5/a#0@0/u', 'ok'),
    end(8, 'put', 'chk-5/_metadata', 'ok'),
    end(9, 'delete', 'chk-5/a#0@0/u', 'ok'),
    end(10, 'deleteDirectory', 'chk-5', 'failed'),
    end(11, 'put', 'chk-6/a#0@0/u', 'unknown-outcome'),
    end(12, 'deleteDirectory', 'chk-6', 'ok'),
    end(13, 'put', 'chk-7/a#0@0/u', 'ok'),
    end(14, 'deleteDirectory', 'chk-7', 'failed'),
    end(15, 'delete', 'chk-7/a#0@0/u', 'ok'),
  ]);

  test('a failed put leaves nothing; an unknown-outcome put at most its own file', () => {
    expect(t.storeFaultLeft('chk-1/_metadata')).toBe(false);
    expect(t.storeFaultLeft('chk-2/_metadata')).toBe(true);
    // Nothing else of the checkpoint: the writer's other files are the cleanup's to remove.
    expect(t.file('chk-2/a#0@0/u')).toBe(false);
    expect(t.checkpoint(2)).toBe(false);
  });

  test('a failed delete leaves its path, a failed deleteDirectory what is under it', () => {
    expect(t.storeFaultLeft('chk-3/a#0@0/u')).toBe(true);
    expect(t.storeFaultLeft('chk-5/_metadata')).toBe(true);
    expect(t.storeFaultLeft('chk-5/a#0@0/u')).toBe(true);
    expect(t.storeFaultLeft('chk-50/_metadata')).toBe(false);
  });

  test('a later operation that ended on the file explains it instead', () => {
    // Written again after the unknown-outcome delete: that put, not the fault, left it.
    expect(t.storeFaultLeft('chk-4/a#0@0/u')).toBe(false);
    // Removed by a later directory delete, or deleted on its own after a failed directory delete.
    expect(t.storeFaultLeft('chk-6/a#0@0/u')).toBe(false);
    expect(t.storeFaultLeft('chk-7/a#0@0/u')).toBe(false);
    expect(t.storeFaultLeft('chk-9/a#0@0/u')).toBe(false);
  });
});

describe('faultsTouching: message faults', () => {
  const trace = [
    event(0, 0, 'scheduler.deploy', { task: 'v1#0@0', taskExecutor: 'taskexecutor@tm-1' }),
    event(1, 5, 'sink.transaction-begun', { sink: 'f', subtask: 0, attempt: 0, epoch: 3 }, 'tm-1'),
    event(2, 10, 'checkpoint.triggered', { checkpointId: 4 }),
    event(3, 20, 'checkpoint.completed', { checkpointId: 4 }),
    // Acted on long after checkpoint 9's last event: the RPC names it, so it is touched anyway.
    event(4, 100, 'fault', { index: 0, type: 'message', action: 'lose', id: 7, method: 'acknowledgeCheckpoint',
      checkpoint: 9, attempt: 'v3#0@1' }, 'sim'),
    event(5, 110, 'fault', { index: 1, type: 'message', action: 'hold', id: 8, method: 'confirmCheckpoint',
      checkpoint: 5, attempt: 'v1#0@0' }, 'sim'),
    event(6, 120, 'sink.transaction-begun', { sink: 'f', subtask: 0, attempt: 0, epoch: 4 }, 'tm-1'),
    event(7, 130, 'rpc.deliver', { id: 8 }, 'tm-1'),
    event(8, 140, 'sink.transaction-begun', { sink: 'f', subtask: 0, attempt: 0, epoch: 5 }, 'tm-1'),
    // A message fault that did not act (a release is the end of a hold) touches nothing more.
    event(9, 150, 'fault', { index: 2, type: 'message', action: 'release', id: 9, method: 'abortCheckpoint',
      checkpoint: 11, attempt: 'v2#0@0' }, 'sim'),
  ];
  const t = faultsTouching(trace);

  test('touches the checkpoint and the attempt its RPC names', () => {
    expect([9, 5].map((n) => t.checkpoint(n))).toEqual([true, true]);
    expect(t.checkpoint(4)).toBe(false);
    expect(t.checkpoint(11)).toBe(false);
    expect(['v3#0@1', 'v1#0@0'].map((a) => t.attempt(a))).toEqual([true, true]);
    expect(t.attempt('v2#0@0')).toBe(false);
    expect(t.file('chk-9/v3#0@1/uid')).toBe(true);
  });

  test('touches transactions begun before it acted or before the message it held arrived', () => {
    expect(t.transaction('f#0@0/e3')).toBe(true);
    expect(t.transaction('f#0@0/e4')).toBe(true);
    expect(t.transaction('f#0@0/e5')).toBe(false);
  });
});
