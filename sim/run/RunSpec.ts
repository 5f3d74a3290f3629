/**
 * RunSpec: one run as plain JSON data (DESIGN.md "A run is data"). Everything a person writes
 * here is in milliseconds (names end in `Ms`); `simulate` converts to virtual microseconds
 * (rounded to whole µs). A RunSpec plus the code version fully determines the run: the same spec
 * always gives the same trace hash.
 *
 * Versioned: `version` must be {@link RUN_SPEC_VERSION}; a repro file from another version is
 * refused with a clear error rather than silently misread. `validateRunSpec` checks a spec,
 * `expandRunSpec` fills every default and returns an {@link ExpandedRunSpec}, which is what
 * reports print and what `RunResult.spec` holds.
 */
import type { z } from 'zod';
import type {
  actionSchema, checkpointSpecSchema, delayMsSchema, faultSchema, faultTriggerSchema, jobSpecSchema, protocolPointSchema,
  restartStrategySchema, runSpecSchema,
} from './runSpecSchema.ts';
import { RUN_MODES as MODES } from './runSpecSchema.ts';
import { FAULT_TYPE_NAMES, type JOB_MASTER_PHASES, type SINK_PHASES, type TASK_PHASES } from './schema/faultSchema.ts';

export { RUN_SPEC_VERSION } from './runSpecSchema.ts';

/**
 * The type of a parsed file: `T` with every field and array readonly (the schema's inferred
 * types are mutable; nothing downstream writes into a spec).
 */
export type DeepReadonly<T> = T extends readonly (infer E)[] ? readonly DeepReadonly<E>[]
  : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;

/** The checkpointing modes of DESIGN.md; `none` turns checkpointing off. */
export type RunMode = typeof MODES[number];

/** Every mode, in a fixed order (for messages and arbitraries). */
export const RUN_MODES: readonly RunMode[] = MODES;

/** The modes `simulate` runs today; the others are refused with a one-line error. */
export const AVAILABLE_MODES: readonly RunMode[] = ['aligned', 'at-least-once', 'none'];

/** A delay distribution in ms (fractions allowed; converted to whole µs). */
export type DelayMs = DeepReadonly<z.infer<typeof delayMsSchema>>;

/**
 * Which job runs. Flights: a range of file indices (`to` exclusive) cut into `splits` splits
 * (default 16). Wordcount: the first `lines` lines of the built-in text (default all 32) in
 * `splits` splits (default 4). Generated: a generated job shape with inline records
 * (GeneratedJobSpec of sim/workloads/generatedJob.ts, the same shape).
 */
export type JobSpec = DeepReadonly<z.infer<typeof jobSpecSchema>>;

/** The task phases a protocol point can name, and the jobmaster's and sinks'. */
export type TaskPhase = typeof TASK_PHASES[number];
export type JobMasterPhase = typeof JOB_MASTER_PHASES[number];
export type SinkPhase = typeof SINK_PHASES[number];

/**
 * A protocol point: a moment named by the protocol rather than by the clock. `task` points match
 * the trace events recorded for one task and checkpoint `checkpoint` (optionally one task, named
 * `<vertex>#<subtask>` as in traces, e.g. `v1#0`; `ack-received` is the coordinator handling
 * that task's ack, `notified` the task receiving the completion notification), `jobmaster`
 * points the coordinator's, `sink` points the n-th (from 1) sink transaction reaching that state
 * in the transactional store, `restore` the n-th (default 1) restore of the job from a
 * checkpoint (only restores from `checkpoint` counted when given), `job` the job entering
 * JobStatus `status` the n-th (default 1) time. See FaultPlan.ts for the exact trace events.
 */
export type ProtocolPoint = DeepReadonly<z.infer<typeof protocolPointSchema>>;

/**
 * When a fault fires: at a virtual time (before the heal time), or right after a protocol point
 * is reached (once; a point reached at or after the heal time fires nothing).
 */
export type FaultTrigger = DeepReadonly<z.infer<typeof faultTriggerSchema>>;

/**
 * One fault. Every fault stops at the heal time: crashed hosts come back, pauses, partitions and
 * slow tasks end, injected losses, delays, store failures and slowness stop. Hosts are
 * `jobmanager` and `taskmanager-1..N`; only TaskManagers crash (no JobManager crash until HA
 * exists). Faults without `when` are active from the start to the heal time.
 *
 * - `crash`: the host restarts after `downMs`, or at the heal time if that comes first (or if
 *   `downMs` is absent).
 * - `slow-task`: the task running operator `operator` (its whole chain, every subtask) works at
 *   `1/factor` of its rate for `durationMs` (a record in progress when it starts or ends takes
 *   longer only for the part inside the fault); back pressure when that task is the bottleneck.
 * - `coordinator-stall`: the coordinator thread of source `operator` (absent: the job's first
 *   source) takes one task of enumerator work lasting `durationMs`, queued behind what it has
 *   already; everything queued behind it waits (split requests, the coordinator's checkpoint
 *   snapshot, notifications). The work ends at the heal time if it is still running then.
 * - `async-snapshot-failure`: writes of tasks' snapshot files fail with this probability.
 * - `message`: loses, delays or holds one RPC, the `nth` (default 1) call of `method` (the
 *   engine's RPC names, Flink's; `notifyCheckpointComplete` means `confirmCheckpoint`) that
 *   matches the filters, counted from when the fault is armed (time 0, or when `when` fires).
 *   `checkpoint`: only RPCs about that checkpoint; `from` / `to`: a host, or a task
 *   `<vertex>#<subtask>` the RPC names on that side; `jobRun`: reserved (only 1). `delay` adds
 *   `delayMs`; `hold` delivers after `durationMs`, or at the heal time when absent or sooner.
 *   Both keep the link's order (later messages on it wait). See sim/MessageFaults.ts.
 */
export type Fault = DeepReadonly<z.infer<typeof faultSchema>>;

/**
 * A targeted fault on one RPC message: loses, delays or holds the `nth` (default 1) call of
 * `method` (the engine's RPC names, Flink's; `notifyCheckpointComplete` means
 * `confirmCheckpoint`) that matches the filters, counted from when the fault is armed (time 0, or
 * when `when` fires). `checkpoint`: only RPCs about that checkpoint; `from` / `to`: a host, or a
 * task `<vertex>#<subtask>` the RPC names on that side; `jobRun`: reserved (only 1). `delay` adds
 * `delayMs`; `hold` delivers after `durationMs`, or at the heal time when absent or sooner. Both
 * keep the link's order (later messages on it wait). See sim/MessageFaults.ts.
 */
export type MessageFault = Extract<Fault, { readonly type: 'message' }>;

/**
 * A targeted fault on one data channel: delays the `nth` (default 1) checkpoint barrier or
 * CancelCheckpointMarker (`event`) of checkpoint `checkpoint` (any, when absent) that task `to`
 * receives, on its channel from task `from` (any channel into `to`, when absent), counted from
 * when the fault is armed (time 0, or when `when` fires). The event and everything behind it on
 * that channel wait `delayMs` (at most until the heal time); the task's other channels go on.
 * `jobRun`: only tasks of that job run (absent: run 1 when `checkpoint` is given, else any). See
 * sim/ChannelEventFaults.ts.
 */
export type ChannelEventFault = Extract<Fault, { readonly type: 'channel-event' }>;

/** What a message fault does to the RPC it acts on. */
export type MessageFaultAction = MessageFault['action'];

/** Every fault type, in a fixed order. */
export const FAULT_TYPES: readonly Fault['type'][] = FAULT_TYPE_NAMES;

/**
 * An action on the job, as a user or their tooling takes it (sim/run/ActionPlan.ts): at a time,
 * or once right after a protocol point. Unlike a fault, an action fires whether or not the heal
 * time has passed. `savepoint`: JobMaster.triggerSavepoint; `format` (canonical by default) is a
 * property only.
 */
export type Action = DeepReadonly<z.infer<typeof actionSchema>>;

/** When an action fires. */
export type ActionTrigger = Action['when'];

/** Checkpointing. Defaults follow Flink except the (scaled) timeout: see expandRunSpec. */
export type CheckpointSpec = DeepReadonly<z.infer<typeof checkpointSpecSchema>>;

export type RestartStrategySpec = DeepReadonly<z.infer<typeof restartStrategySchema>>;

type Spec = DeepReadonly<z.infer<typeof runSpecSchema>>;

/** The JobManager's thread pools (Flink's `cluster.io-pool.size` for the ioExecutor). */
export type JobManagerSpec = NonNullable<Spec['jobManager']>;

export type NetworkSpec = NonNullable<Spec['network']>;

/**
 * One run (see runSpecSchema.ts for each field's meaning, bounds and default). `parallelism` is
 * one number for every operator or a map per operator uid (missing uids get the job's default:
 * flights 4, wordcount 1, generated jobs their shape's); `healTimeMs` is when every fault stops;
 * `budgets` end the run; `mutations` are planted-bug ids.
 */
export type RunSpec = Spec;

/** A RunSpec with every default filled in (see expandRunSpec): what reports print. */
export interface ExpandedRunSpec extends Omit<RunSpec, '$schema'> {
  readonly taskManagers: number;
  readonly slotsPerTaskManager: number;
  readonly costsMs: Readonly<Record<string, number>>;
  readonly network: Required<NetworkSpec>;
  readonly storeLatency: DelayMs;
  readonly heartbeat: { readonly intervalMs: number; readonly timeoutMs: number };
  readonly jobManager: Required<JobManagerSpec>;
  readonly checkpoint: Required<Omit<CheckpointSpec, 'alignedTimeoutMs'>>
    & { readonly alignedTimeoutMs?: number };
  readonly restartStrategy: RestartStrategySpec;
  readonly actions: readonly Action[];
}
