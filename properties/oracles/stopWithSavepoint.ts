/**
 * How the oracles read a run that stopped with a savepoint (RunSpec action `stop-with-savepoint`).
 *
 * A stop's outcome comes from the action log (what the user's client learnt) and the harness's
 * stuck check, never from the engine's code path:
 *
 * - `finished`: the stop returned the savepoint's path. The job read its input only up to the
 *   savepoint's cut, so every oracle judges the run against the job's input cut at the
 *   savepoint's source positions (F(prefixes(savepoint))): {@link judgedAtStop} gives the run
 *   with that cut graph, and the rest of the input is judged never read (a record past the cut
 *   in the output is a surplus).
 * - `job-failed`: the savepoint exists but the job ended FAILED (StopWithSavepointStoppingException).
 *   Sinks that had the savepoint's notification committed its transactions, the others left them
 *   pre-committed inside the savepoint: committed plus those pre-committed records must equal
 *   F(prefixes(savepoint)) ({@link outputAtStop}); those transactions are the savepoint's, not
 *   lingering leaks. So are those of them a failover's fresh sink attempts aborted as lingering
 *   after the savepoint's tasks had acknowledged it and failed, restoring from an older
 *   checkpoint (Flink's failover never restores a savepoint): Flink loses them the same way, and
 *   their records count as the savepoint's. The final keyed state cannot be judged (the job did
 *   not finish).
 * - `failed`: the savepoint failed, the job failed over and kept running: judged as any run.
 * - `refused`: the request failed before its savepoint was triggered (the job was not running,
 *   no coordinator): the refusal failed nothing over and left periodic checkpointing as it was
 *   (stopped while the job restarts, running otherwise); judged as any run.
 * - `stuck`: tasks wait forever for a lost confirmation or abort (RunResult.stuckStop), a known
 *   Flink 1.20 outcome: liveness counts it as known, never as a pass or a violation. After a
 *   completed savepoint (a lost confirmation) its output is judged as after `job-failed`: the
 *   notified sinks committed, the others hold their transactions pre-committed in the savepoint.
 * - `pending`: the stop fired and the run ended before any outcome: judged as any run.
 */
import type { DecodedCheckpoint, StreamGraph } from '../../engine/index.ts';
import { TwoPhaseCommitSinkOperator, jobRunOf } from '../../engine/index.ts';
import type { RunCheckpoint } from '../../sim/MiniCluster.ts';
import type { RunResult } from '../../sim/run/RunResult.ts';
import { actionOrigin } from '../../sim/run/savepointPoints.ts';
import { transactionName } from '../../sim/SimTransactionalStore.ts';
import { restoreRefused } from './restoreRefused.ts';
import { splitPositions } from './splitPositions.ts';

/** What a run's stop-with-savepoint came to. */
export interface StopOutcome {
  readonly kind: 'finished' | 'job-failed' | 'failed' | 'refused' | 'stuck' | 'pending';
  /** Index of the stop in the spec's actions. */
  readonly action: number;
  /** When the stop fired, ms. */
  readonly firedMs: number;
  /** The synchronous savepoint (`finished`, `job-failed`, `stuck` after a completion). */
  readonly savepoint?: DecodedCheckpoint;
}

/** The stop's outcome, or undefined when the run had no stop that fired. */
export function stopOutcome(result: RunResult): StopOutcome | undefined {
  // Every oracle of a judgement asks: read the run once (a failed stop scans its trace).
  const known = outcomes.get(result);
  if (known !== undefined) return known ?? undefined;
  const outcome = readStopOutcome(result);
  outcomes.set(result, outcome ?? null);
  return outcome;
}

/** Stop outcomes by run (null: no stop that fired). */
const outcomes = new WeakMap<RunResult, StopOutcome | null>();

/**
 * The stop of the history's latest job run: the last stop-with-savepoint, or rescale's stop (via
 * stop-with-savepoint) that never got to start the next run, fired at that run, unless an earlier
 * one ended the run after its savepoint completed ({@link endedByStop}). Undefined when none.
 */
function latestRunStop(result: RunResult): number | undefined {
  // A latest run refused at its submission never ran: the history ended with the run before it,
  // stopped by the rescale that submitted it (restoreRefused.ts).
  const refused = restoreRefused(result);
  if (refused?.action !== undefined && result.spec.actions[refused.action]?.type === 'rescale'
    && (result.spec.actions[refused.action] as { via?: string }).via !== 'cancel') return refused.action;
  const latest = result.jobRuns.length;
  // The last one fired: an earlier stop that failed left the run going for a later one.
  let stop: number | undefined;
  for (const r of result.actions) {
    if (r.event !== 'fired' || (r.jobRun ?? 1) !== latest) continue;
    const a = result.spec.actions[r.action];
    if (a?.type === 'stop-with-savepoint' || (a?.type === 'rescale' && (a.via ?? 'stop-with-savepoint') === 'stop-with-savepoint')) {
      // A rescale that started the next run is not the latest run's stop.
      if (a.type === 'rescale' && result.actions.some((x) => x.action === r.action && x.event === 'completed')) continue;
      // A stop whose savepoint completed ended the job (FINISHED, or FAILED by a task that did not
      // finish after it): it is the run's last word. A later one fires at a job that is no longer
      // running and is refused, or, fired while the tasks were still finishing, fails.
      if (stop !== undefined && endedRun(result, stop)) break;
      stop = r.action;
    }
  }
  return stop;
}

/**
 * Whether the stop `action` ended its job run after its savepoint: it completed (FINISHED), or
 * its job failed after the savepoint (StopWithSavepointStoppingException, FAILED).
 */
function endedRun(result: RunResult, action: number): boolean {
  return result.actions.some((x) => x.action === action
    && (x.event === 'completed' || (x.event === 'failed' && x.reason === 'StopWithSavepointStoppingException')));
}

function readStopOutcome(result: RunResult): StopOutcome | undefined {
  const stop = latestRunStop(result);
  if (stop === undefined) return undefined;
  const records = result.actions.filter((a) => a.action === stop);
  const fired = records.find((a) => a.event === 'fired');
  if (fired === undefined) return undefined;
  const base = { action: stop, firedMs: fired.timeMs };
  const run = fired.jobRun ?? 1;
  const savepointOf = (id: number | undefined): DecodedCheckpoint | undefined =>
    result.checkpoints.completed.find((c) => c.kind !== 'checkpoint' && c.checkpointId === id && (c.jobRun ?? 1) === run);
  if (restoreRefused(result)?.action === stop) {
    // The rescale's stop finished (it submitted the refused run): judged at its savepoint.
    const savepoint = savepointOf(records.find((a) => a.event === 'completed')?.checkpointId);
    if (savepoint !== undefined) return { ...base, kind: 'finished', savepoint };
  }
  if (result.stuckStop !== undefined) {
    const savepoint = savepointOf(result.stuckStop.checkpointId);
    return { ...base, kind: 'stuck', ...(savepoint === undefined ? {} : { savepoint }) };
  }
  const done = records.find((a) => a.event === 'completed' || a.event === 'failed');
  if (done === undefined) return { ...base, kind: 'pending' };
  const savepoint = savepointOf(done.checkpointId);
  if (done.event === 'completed' && savepoint !== undefined) return { ...base, kind: 'finished', savepoint };
  if (done.reason === 'StopWithSavepointStoppingException' && savepoint !== undefined) {
    return { ...base, kind: 'job-failed', savepoint };
  }
  // Its synchronous savepoint was triggered (the coordinator recorded the request's origin) or not.
  const origin = actionOrigin(stop);
  const triggered = result.trace.some((e) => e.type === 'checkpoint.triggered' && e.attrs['origin'] === origin);
  return { ...base, kind: triggered ? 'failed' : 'refused' };
}

/**
 * True when the run's output is judged at the stop's savepoint without a final state: a stop
 * whose job failed after its savepoint, or one stuck on a lost confirmation of it.
 */
export function judgedAtSavepointOnly(stop: StopOutcome | undefined): stop is StopOutcome & { savepoint: DecodedCheckpoint } {
  return stop?.savepoint !== undefined && (stop.kind === 'job-failed' || (stop.kind === 'stuck' && stop.savepoint.kind !== 'checkpoint'));
}

/**
 * `graph` with every source split cut to its position in `savepoint` (the job's input as far as
 * the savepoint says it was read): a plain copy, the split records sliced.
 */
export function cutAtSavepoint(graph: StreamGraph, savepoint: DecodedCheckpoint): StreamGraph {
  const { positions } = splitPositions(savepoint, graph);
  const cut: StreamGraph = {
    ...graph,
    nodes: graph.nodes.map((n) => {
      if (n.spec.kind !== 'source') return n;
      const splits = n.spec.source.splits.map((s) => ({ id: s.id, records: s.records.slice(0, positions.get(s.id) ?? s.records.length) }));
      return { ...n, spec: { ...n.spec, source: { ...n.spec.source, splits } } };
    }),
  };
  wholeGraphs.set(cut, wholeGraphOf(graph));
  return cut;
}

/** The whole job of each graph {@link cutAtSavepoint} made. */
const wholeGraphs = new WeakMap<StreamGraph, StreamGraph>();

/**
 * The whole job a graph was cut from at a stop's savepoint ({@link cutAtSavepoint}), or `graph`
 * itself. The at-least-once oracle looks up there a record past the cut that an earlier run read
 * ahead before a restore rewound it (atLeastOnce.ts, aheadOfCut).
 */
export function wholeGraphOf(graph: StreamGraph): StreamGraph {
  return wholeGraphs.get(graph) ?? graph;
}

/** Cut graphs by run, so every oracle of one judgement shares one (and its folds). */
const cutGraphs = new WeakMap<RunResult, RunResult>();

/**
 * The run as the oracles judge it: after a `finished` or `job-failed` stop, the same result with
 * its graph cut at the savepoint ({@link cutAtSavepoint}); otherwise `result` itself.
 */
export function judgedAtStop(result: RunResult): RunResult {
  const stop = stopOutcome(result);
  if (stop?.savepoint === undefined || (stop.kind !== 'finished' && !judgedAtSavepointOnly(stop))) return result;
  let cut = cutGraphs.get(result);
  if (cut === undefined) {
    cut = { ...result, graph: cutAtSavepoint(result.graph, stop.savepoint) };
    cutGraphs.set(result, cut);
    // The cut copy has the same action log and trace: the same outcome.
    outcomes.set(cut, stop);
  }
  return cut;
}

/**
 * The sink transactions stored in `savepoint` as pre-committed (every sink subtask's
 * `pendingCommit`), as the store names them: `sink#subtask@attempt/e<epoch>`.
 */
export function savepointTransactions(savepoint: DecodedCheckpoint, graph: StreamGraph): Set<string> {
  return new Set(savepointPending(savepoint, graph).keys());
}

/** {@link savepointTransactions} with the checkpoint each was pre-committed for. */
function savepointPending(savepoint: DecodedCheckpoint, graph: StreamGraph): Map<string, number> {
  const out = new Map<string, number>();
  for (const node of graph.nodes) {
    if (node.spec.kind !== 'sink' || node.spec.sink.kind !== 'two-phase-commit') continue;
    for (const subtask of Object.values(savepoint.operators[node.uid] ?? {})) {
      for (const state of TwoPhaseCommitSinkOperator.decode(subtask.data)) {
        for (const [checkpointId, id] of state.pendingCommit) out.set(transactionName(id), checkpointId);
      }
    }
  }
  return out;
}

/**
 * The output a `job-failed` stop leaves: the committed records plus the records of the
 * transactions pre-committed inside the savepoint that were never committed, whether still
 * pre-committed or aborted since by a failover's fresh attempt ({@link abortedByFailoverAfter}).
 */
export function outputAtStop(result: RunResult, savepoint: DecodedCheckpoint): RunResult['committed'] {
  const pending = savepointPending(savepoint, result.graph);
  const preCommitted = result.preCommitted.filter((c) =>
    pending.has(transactionName(c.txn)));
  const aborted = abortedByFailoverAfter(result, savepoint, pending);
  const abortedRecords = result.abortedPreCommitted.filter((c) => aborted.has(transactionName(c.txn)));
  return [...result.committed, ...preCommitted, ...abortedRecords];
}

/**
 * The transactions of `pending` (the stop's savepoint's, by name, with the checkpoint each was
 * pre-committed for) that a sink attempt of the savepoint's job run aborted as lingering
 * (`sink.abort-lingering`) after a restore of that run that came after the savepoint's trigger
 * and went back to a checkpoint older than the transaction's, or to none (`checkpoint.restored`,
 * the latest before the abort): one pre-committed for the restored checkpoint or an earlier one
 * is in the restored state, and aborting it is no failover's right. This is Flink 1.20's doing: a task that
 * fails after acknowledging the stop's synchronous savepoint does not fail it (only unacknowledged
 * tasks fail a pending checkpoint), the failover restores from the checkpoint store, which holds
 * no savepoint, and the fresh sinks abort the transactions of every checkpoint after the restored
 * one (KafkaWriter#abortLingeringTransactions), before the stop's handling fails the job with
 * StopWithSavepointStoppingException.
 */
function abortedByFailoverAfter(result: RunResult, savepoint: RunCheckpoint, pending: ReadonlyMap<string, number>): Set<string> {
  const out = new Set<string>();
  const run = savepoint.jobRun ?? 1;
  let triggered = false;
  /** The checkpoint the latest restore of `run` after the savepoint's trigger went back to. */
  let restored: number | undefined;
  for (const e of result.trace) {
    if (jobRunOf(e.attrs) !== run) continue;
    if (e.type === 'checkpoint.triggered' && e.attrs['checkpointId'] === savepoint.checkpointId) triggered = true;
    else if (e.type === 'checkpoint.restored' && triggered) restored = Number(e.attrs['checkpointId']);
    else if (e.type === 'sink.abort-lingering' && restored !== undefined) {
      const name = `${String(e.attrs['sink'])}#${String(e.attrs['subtask'])}@${String(e.attrs['attempt'])}/e${String(e.attrs['epoch'])}`;
      const checkpointId = pending.get(name);
      if (checkpointId !== undefined && checkpointId > restored) out.add(name);
    }
  }
  return out;
}
