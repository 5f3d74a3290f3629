/**
 * Oracle 6 of ORACLES.md, storage invariants, judged on the object store's paths after the drain
 * phase (`RunResult.objectStorePaths`) and the trace:
 *
 * - `restorable`: every retained checkpoint is restorable: its `_metadata` and every state file
 *   it references exist. Retained means completed (in `checkpoints.completed`) and never the
 *   target of a delete (`store.begin` of `delete`/`deleteDirectory` on its files or `chk-<id>`):
 *   subsumed checkpoints, and all of them after a terminal job status with the default retention
 *   NEVER_RETAIN_AFTER_TERMINATION, are discarded, so a FINISHED job should leave an empty store,
 *   but for its completed savepoints (`savepoint-<id>`): the job never deletes those (they are the
 *   user's), so they stay retained, restorable and referenced, never a leak. An aborted
 *   savepoint's files are discarded like a checkpoint's, and a leftover of one is a leak.
 * - `no-leaked-files` (only once the job ended): every remaining file is referenced by a retained
 *   checkpoint, or belongs to a checkpoint or an attempt a logged fault touched, or is still being
 *   deleted (a `delete` of it began and had not ended when the run stopped: a store slowed
 *   before the heal time may outlast the drain phase, and the cleanup did its part).
 *   Also not a leak: the state files of an acknowledgement that reached the coordinator of a job
 *   run that had ended (`checkpoint.ackAfterShutdown`): Flink's coordinator drops such an ack and
 *   leaves its files, a known leftover (the files under `<run dir>chk-<id>/<attempt>/`, or
 *   `<run dir>savepoint-<id>/<attempt>/` for a savepoint: a finishing task waits for its pending
 *   savepoint's write, which may outlast the savepoint's expiry and the job's end).
 * - `no-lingering-transactions` (only once the job ended): the same rule for sink transactions
 *   left open or pre-committed; a history that ended with a cancel may leave pre-committed ones
 *   (of the checkpoints the cancel aborted, or of one that completed while the job was being
 *   cancelled, whose notification the cancelled tasks never got: Flink leaves them to the
 *   transaction timeout of the external system), never open ones (the sink's close aborts them).
 *   A history ends with a cancel too when the run a rescale submitted after it was refused its
 *   restore (outputAtCancel's endedByCancel): that run never started, so it committed nothing.
 *   One that ended with a finished stop-with-savepoint may leave those of savepoints taken after
 *   the stop's synchronous savepoint (a savepoint's completion commits nothing, and no later
 *   checkpoint came).
 *
 * What "touched" means is in faultsTouching.ts.
 */
import { savepointTransactions, stopOutcome } from './stopWithSavepoint.ts';
import { jobRunOf, type DecodedCheckpoint } from '../../engine/index.ts';
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';
import { faultsTouching } from './faultsTouching.ts';
import { endedByCancel } from './outputAtCancel.ts';
import type { TouchedByFaults } from './faultsTouching.ts';

/** Options of {@link storageInvariants}. */
export interface StorageOptions {
  /** Longest list in a violation's details; default 20 (counts are exact). */
  readonly maxListed?: number;
}

/** The files a checkpoint references: its metadata and its state files. */
export function checkpointFiles(c: DecodedCheckpoint): string[] {
  const files = [c.metadataPath];
  for (const subtasks of Object.values(c.operators)) {
    for (const entry of Object.values(subtasks)) files.push(entry.path);
  }
  return files;
}

/** Judges the object store and the sink transactions left after the run. */
export function storageInvariants(result: RunResult, options: StorageOptions = {}): Violation[] {
  const maxListed = options.maxListed ?? 20;
  const endMs = result.outcome.timeMs;
  const violations: Violation[] = [];
  const deleted = new Set<string>();
  // Deletes of a file begun minus those ended, per path.
  const deleting = new Map<string, number>();
  for (const e of result.trace) {
    if (e.type !== 'store.begin' && e.type !== 'store.end') continue;
    if (e.attrs['op'] !== 'delete' && e.attrs['op'] !== 'deleteDirectory') continue;
    const path = String(e.attrs['path']);
    if (e.type === 'store.begin') deleted.add(path);
    if (e.attrs['op'] === 'delete') deleting.set(path, (deleting.get(path) ?? 0) + (e.type === 'store.begin' ? 1 : -1));
  }
  const present = new Set(result.objectStorePaths);
  const retained = result.checkpoints.completed.filter((c) => {
    // `chk-<id>`, or a savepoint's `savepoint-<id>` (never deleted by the job: the user's files).
    const dir = c.metadataPath.slice(0, c.metadataPath.lastIndexOf('/'));
    return !deleted.has(dir) && !checkpointFiles(c).some((f) => deleted.has(f));
  });
  for (const c of retained) {
    const missing = checkpointFiles(c).filter((f) => !present.has(f));
    if (missing.length === 0) continue;
    violations.push({
      property: 'storage-invariants',
      summary: `retained checkpoint ${c.checkpointId} is not restorable: ${missing.length} `
        + 'file(s) missing',
      details: { invariant: 'restorable', checkpointId: c.checkpointId, missing: missing.slice(0, maxListed) },
      timeMs: endMs,
    });
  }
  if (result.jobEndMs === undefined) return violations;

  const referenced = new Set(retained.flatMap(checkpointFiles));
  // Read the faults from the trace only if something is left to explain (a FINISHED job
  // usually leaves an empty store and no transactions).
  let faults: TouchedByFaults | undefined;
  const touched = (): TouchedByFaults => (faults ??= faultsTouching(result.trace));
  const leftovers = knownLeftovers(result);
  const leaked = result.objectStorePaths.filter((p) => !referenced.has(p) && !touched().file(p)
    && (deleting.get(p) ?? 0) <= 0 && !leftovers.some((dir) => p.startsWith(dir)));
  if (leaked.length > 0) {
    violations.push({
      property: 'storage-invariants',
      summary: `${leaked.length} file(s) leaked: referenced by no retained checkpoint and touched `
        + 'by no logged fault',
      details: {
        invariant: 'no-leaked-files',
        leaked: leaked.slice(0, maxListed),
        leakedCount: leaked.length,
        retained: retained.map((c) => c.checkpointId),
      },
      timeMs: endMs,
    });
  }
  // A stop whose job failed after its savepoint leaves the savepoint's transactions pre-committed
  // inside it (StopWithSavepointStoppingException says so): the savepoint's, no leak.
  const stop = stopOutcome(result);
  const inSavepoint = stop?.kind === 'job-failed' && stop.savepoint !== undefined
    ? savepointTransactions(stop.savepoint, result.graph) : new Set<string>();
  // A history that ended with a cancel leaves the transactions pre-committed for the checkpoints
  // the cancel aborted: Flink leaves them to the external system's transaction timeout.
  const cancelled = endedByCancel(result) ? preCommittedAtEnd(result) : new Set<string>();
  // A history that ended with a finished stop-with-savepoint leaves pre-committed the transactions
  // of the savepoints its run took after the stop's synchronous savepoint (a higher id): Flink's
  // coordinator notifies no task of a savepoint's completion (only of checkpoints and synchronous
  // savepoints), so only a later checkpoint's notification would commit them, and the stop's is of
  // an older id; the task then ends, and they are left to the external system's timeout.
  const afterStop = stop?.kind === 'finished' && stop.savepoint !== undefined
    ? preCommittedAfter(result, stop.savepoint.checkpointId) : new Set<string>();
  const lingering = result.lingeringTransactions.filter((t) => !touched().transaction(t) && !inSavepoint.has(t)
    && !cancelled.has(t) && !afterStop.has(t));
  if (lingering.length > 0) {
    violations.push({
      property: 'storage-invariants',
      summary: `${lingering.length} sink transaction(s) left open or pre-committed that no logged `
        + 'fault touched',
      details: {
        invariant: 'no-lingering-transactions',
        lingering: lingering.slice(0, maxListed),
        lingeringCount: lingering.length,
      },
      timeMs: endMs,
    });
  }
  return violations;
}

/** The transactions left pre-committed (not open) at the end of the run, by name. */
function preCommittedAtEnd(result: RunResult): Set<string> {
  const state = new Map<string, string>();
  for (const e of result.trace) {
    if (e.type === 'txn.preCommit' || e.type === 'txn.commit' || e.type === 'txn.abort') state.set(String(e.attrs['txn']), e.type);
  }
  return new Set([...state].filter(([, last]) => last === 'txn.preCommit').map(([txn]) => txn));
}

/**
 * The transactions the sink pre-committed for a checkpoint (or savepoint) id above `id` of the
 * history's latest job run (`sink.pre-committed` events), by name.
 */
function preCommittedAfter(result: RunResult, id: number): Set<string> {
  const run = result.jobRuns.length;
  const out = new Set<string>();
  for (const e of result.trace) {
    if (e.type !== 'sink.pre-committed' || jobRunOf(e.attrs) !== run || Number(e.attrs['checkpoint']) <= id) continue;
    out.add(`${String(e.attrs['sink'])}#${String(e.attrs['subtask'])}@${String(e.attrs['attempt'])}/e${String(e.attrs['epoch'])}`);
  }
  return out;
}

/**
 * The directories of state files Flink leaves behind by design: each acknowledgement that reached
 * an ended job run's coordinator (`checkpoint.ackAfterShutdown`), `<run prefix>chk-<id>/<attempt>/`,
 * or `<run prefix>savepoint-<id>/<attempt>/` when the run triggered `<id>` as a savepoint.
 */
function knownLeftovers(result: RunResult): string[] {
  const out: string[] = [];
  const savepoints = new Set<string>();
  for (const e of result.trace) {
    if (e.type === 'checkpoint.triggered' && e.attrs['savepoint'] === true) {
      savepoints.add(`${jobRunOf(e.attrs)}/${String(e.attrs['checkpointId'])}`);
    }
    if (e.type !== 'checkpoint.ackAfterShutdown') continue;
    const run = jobRunOf(e.attrs);
    const id = String(e.attrs['checkpointId']);
    const dir = savepoints.has(`${run}/${id}`) ? 'savepoint' : 'chk';
    out.push(`${run === 1 ? '' : `run-${run}/`}${dir}-${id}/${String(e.attrs['task'])}/`);
  }
  return out;
}
