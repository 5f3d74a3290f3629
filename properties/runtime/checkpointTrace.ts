/**
 * Trace queries for the end-to-end checkpointing tests: the events of one checkpoint or one task,
 * the RPC messages of one kind (an `rpc.deliver` carries only the message id, so kinds are
 * joined from the `rpc.send` events), job statuses, and the flights job with checkpointing on.
 *
 * Invariants: every query reads the stored trace in `seq` order and never changes it; a run that
 * uses these must store its whole trace (no `traceLimit`).
 */
import type { RpcKind } from '../../engine/api/index.ts';
import { twoPhaseCommitSink } from '../../engine/index.ts';
import type { CheckpointConfig, StreamGraph } from '../../engine/index.ts';
import type { MiniCluster } from '../../sim/MiniCluster.ts';
import type { TraceEvent } from '../../sim/Trace.ts';
import { flightsJob, type FlightsJobOptions } from '../../sim/workloads/flights.ts';

/** Options of {@link checkpointedFlights}: the job's selection and parallelism plus checkpointing. */
export interface CheckpointedFlightsOptions extends Partial<Omit<FlightsJobOptions, 'sink'>> {
  readonly checkpointing?: Partial<CheckpointConfig>;
}

/**
 * The flights job (a two-phase-commit sink) with checkpoints every 100 ms, aligned, unless
 * `checkpointing` overrides; default selection 3,000 flights at parallelism 2.
 */
export function checkpointedFlights(options: CheckpointedFlightsOptions = {}): StreamGraph {
  const { checkpointing, ...job } = options;
  const graph = flightsJob({
    selection: { from: 0, to: 3000 }, parallelism: 2, ...job, sink: twoPhaseCommitSink('flights'),
  });
  return { ...graph, checkpointing: { intervalMs: 100, mode: 'EXACTLY_ONCE', ...checkpointing } };
}

/** The stored trace of a run. */
export function events(cluster: MiniCluster): readonly TraceEvent[] {
  return cluster.world.trace.events;
}

/** Events of `type`, optionally of one checkpoint. */
export function ofType(cluster: MiniCluster, type: string, checkpointId?: number): TraceEvent[] {
  return events(cluster).filter((e) => e.type === type
    && (checkpointId === undefined || e.attrs['checkpointId'] === checkpointId));
}

/** Mark events of `name`. */
export function marksNamed(cluster: MiniCluster, name: string): TraceEvent[] {
  return events(cluster).filter((e) => e.type === 'mark' && e.attrs['name'] === name);
}

/** The checkpoint id an event carries. @throws Error if it carries none. */
export function checkpointIdOf(e: TraceEvent): number {
  const id = e.attrs['checkpointId'];
  if (typeof id !== 'number') throw new Error(`event ${e.seq} ${e.type} has no checkpointId`);
  return id;
}

/**
 * The one event of `type` for `checkpointId` and `task`.
 * @throws Error if there is not exactly one.
 */
export function taskEvent(
  cluster: MiniCluster, type: string, checkpointId: number, task: string,
): TraceEvent {
  const found = ofType(cluster, type, checkpointId).filter((e) => e.attrs['task'] === task);
  if (found.length !== 1) {
    throw new Error(`expected one ${type} of checkpoint ${checkpointId} for ${task}, found ${found.length}`);
  }
  return found[0] as TraceEvent;
}

/** Job statuses in the order the JobMaster reached them. */
export function jobStatuses(cluster: MiniCluster): string[] {
  return ofType(cluster, 'job.status').map((e) => String(e.attrs['status']));
}

/** One RPC message: its send event, its delivery (if it arrived) and its kind. */
export interface RpcMessageEvents {
  readonly send: TraceEvent;
  readonly deliver: TraceEvent | undefined;
  readonly kind: RpcKind;
  readonly method: string;
}

/** Every RPC request (not answers) of `kind`, with its delivery when it arrived. */
export function rpcMessages(cluster: MiniCluster, kind: RpcKind): RpcMessageEvents[] {
  const byId = new Map<unknown, { send: TraceEvent; deliver: TraceEvent | undefined }>();
  for (const e of events(cluster)) {
    if (e.type === 'rpc.send' && e.attrs['kind'] === kind && e.attrs['answer'] === false) {
      byId.set(e.attrs['id'], { send: e, deliver: undefined });
    } else if (e.type === 'rpc.deliver') {
      const m = byId.get(e.attrs['id']);
      if (m !== undefined) m.deliver = e;
    }
  }
  return [...byId.values()].map((m) => ({ ...m, kind, method: String(m.send.attrs['method']) }));
}

/** The last `checkpoint.completed` recorded before `seq`, or undefined. */
export function latestCompletedBefore(cluster: MiniCluster, seq: number): number | undefined {
  let latest: number | undefined;
  for (const e of ofType(cluster, 'checkpoint.completed')) {
    if (e.seq < seq) latest = checkpointIdOf(e);
  }
  return latest;
}

/** The attempt ids (`v0#1@0`) of the tasks that acknowledged `checkpointId` at the JobMaster. */
export function acknowledgedTasks(cluster: MiniCluster, checkpointId: number): string[] {
  return ofType(cluster, 'checkpoint.acknowledged', checkpointId).map((e) => String(e.attrs['task']));
}
