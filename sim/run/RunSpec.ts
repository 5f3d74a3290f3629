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
import type { RpcKind } from '../../engine/index.ts';
import type { GeneratedJobSpec } from '../workloads/generatedJob.ts';

export const RUN_SPEC_VERSION = 3;

/** The checkpointing modes of DESIGN.md; `none` turns checkpointing off. */
export type RunMode = 'aligned' | 'at-least-once' | 'unaligned' | 'aligned-timeout' | 'none';

/** Every mode, in a fixed order (for messages and arbitraries). */
export const RUN_MODES: readonly RunMode[] = ['aligned', 'at-least-once', 'unaligned', 'aligned-timeout', 'none'];

/** The modes `simulate` runs today; the others are refused with a one-line error. */
export const AVAILABLE_MODES: readonly RunMode[] = ['aligned', 'at-least-once', 'none'];

/** A delay distribution in ms (fractions allowed; converted to whole µs). */
export interface DelayMs {
  readonly minMs: number;
  readonly medianMs: number;
  readonly maxMs: number;
}

/**
 * Which job runs. Flights: a range of file indices (`to` exclusive) cut into `splits` splits
 * (default 16). Wordcount: the first `lines` lines of the built-in text (default all 32) in
 * `splits` splits (default 4). Generated: a generated job shape with inline records.
 */
export type JobSpec =
  | { readonly kind: 'flights'; readonly selection: { readonly from: number; readonly to: number };
      readonly splits?: number }
  | { readonly kind: 'wordcount'; readonly lines?: number; readonly splits?: number }
  | { readonly kind: 'generated'; readonly spec: GeneratedJobSpec };

/** The task phases a protocol point can name, and the jobmaster's and sinks'. */
export type TaskPhase = 'triggered' | 'first-barrier' | 'aligned' | 'sync-done' | 'async-done' | 'acked'
  | 'ack-received' | 'notified';
export type JobMasterPhase = 'triggered' | 'coordinators-snapshotted' | 'completed' | 'notified';
export type SinkPhase = 'pre-committed' | 'committed';

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
export type ProtocolPoint =
  | { readonly kind: 'task'; readonly checkpoint: number; readonly phase: TaskPhase; readonly task?: string }
  | { readonly kind: 'jobmaster'; readonly checkpoint: number; readonly phase: JobMasterPhase }
  | { readonly kind: 'sink'; readonly phase: SinkPhase; readonly nth: number }
  | { readonly kind: 'restore'; readonly nth?: number; readonly checkpoint?: number }
  | { readonly kind: 'job'; readonly status: string; readonly nth?: number };

/**
 * When a fault fires: at a virtual time (before the heal time), or right after a protocol point
 * is reached (once; a point reached at or after the heal time fires nothing).
 */
export type FaultTrigger = { readonly atMs: number } | { readonly at: ProtocolPoint };

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
 * - `async-snapshot-failure`: writes of tasks' snapshot files fail with this probability.
 * - `message`: loses, delays or holds one RPC, the `nth` (default 1) call of `method` (the
 *   engine's RPC names, Flink's; `notifyCheckpointComplete` means `confirmCheckpoint`) that
 *   matches the filters, counted from when the fault is armed (time 0, or when `when` fires).
 *   `checkpoint`: only RPCs about that checkpoint; `from` / `to`: a host, or a task
 *   `<vertex>#<subtask>` the RPC names on that side; `jobRun`: reserved (only 1). `delay` adds
 *   `delayMs`; `hold` delivers after `durationMs`, or at the heal time when absent or sooner.
 *   Both keep the link's order (later messages on it wait). See sim/MessageFaults.ts.
 */
export type Fault =
  | { readonly type: 'crash'; readonly host: string; readonly when: FaultTrigger; readonly downMs?: number }
  | { readonly type: 'global-failure'; readonly when: FaultTrigger }
  | { readonly type: 'pause'; readonly host: string; readonly when: FaultTrigger; readonly durationMs: number }
  | { readonly type: 'partition'; readonly a: string; readonly b: string; readonly oneWay?: boolean;
      readonly when: FaultTrigger; readonly durationMs: number }
  | { readonly type: 'rpc-loss'; readonly kind: RpcKind; readonly probability: number }
  | { readonly type: 'rpc-delay'; readonly kind: RpcKind; readonly latency: DelayMs }
  | { readonly type: 'store-failure'; readonly probability: number }
  | { readonly type: 'store-unknown-outcome'; readonly probability: number }
  | { readonly type: 'slow-store'; readonly factor: number }
  | { readonly type: 'async-snapshot-failure'; readonly probability: number }
  | { readonly type: 'slow-task'; readonly operator: string; readonly factor: number;
      readonly when: FaultTrigger; readonly durationMs: number }
  | MessageFault;

/** What a message fault does to the RPC it acts on. */
export type MessageFaultAction = 'lose' | 'delay' | 'hold';

/** A targeted fault on one RPC message (see {@link Fault}). */
export interface MessageFault {
  readonly type: 'message';
  readonly action: MessageFaultAction;
  readonly method: string;
  readonly checkpoint?: number;
  readonly from?: string;
  readonly to?: string;
  readonly jobRun?: number;
  readonly nth?: number;
  readonly delayMs?: number;
  readonly durationMs?: number;
  readonly when?: FaultTrigger;
}

/** Every fault type, in a fixed order. */
export const FAULT_TYPES: readonly Fault['type'][] = [
  'crash', 'global-failure', 'pause', 'partition', 'rpc-loss', 'rpc-delay', 'store-failure',
  'store-unknown-outcome', 'slow-store', 'async-snapshot-failure', 'slow-task', 'message',
];

/** Checkpointing. Defaults follow Flink except the (scaled) timeout: see expandRunSpec. */
export interface CheckpointSpec {
  readonly mode: RunMode;
  /** At least 10 ms (100 gives about 20 checkpoints in a default flights run). */
  readonly intervalMs: number;
  /** At least 10 ms. Default 1000. */
  readonly timeoutMs?: number;
  /** Default 0. */
  readonly minPauseMs?: number;
  /** Default 1. */
  readonly maxConcurrent?: number;
  /** Default 0. */
  readonly tolerableFailures?: number;
  /** Default 1. */
  readonly retained?: number;
  /** For aligned-timeout only: the aligned checkpoint timeout. */
  readonly alignedTimeoutMs?: number;
}

export type RestartStrategySpec =
  | { readonly kind: 'none' }
  | { readonly kind: 'fixed-delay'; readonly attempts: number | 'unlimited'; readonly delayMs: number }
  | { readonly kind: 'exponential-delay'; readonly initialDelayMs: number; readonly maxDelayMs: number;
      readonly multiplier: number; readonly attempts: number | 'unlimited' };

/** The JobManager's thread pools (Flink's `cluster.io-pool.size` for the ioExecutor). */
export interface JobManagerSpec {
  /** Threads of the ioExecutor, where acks, declines and discards run, each submitted on its own. */
  readonly ioPoolSize?: number;
}

export interface NetworkSpec {
  readonly recordsPerBuffer?: number;
  readonly bufferTimeoutMs?: number;
  readonly dataLatency?: DelayMs;
  readonly rpcLatency?: DelayMs;
  readonly rpcTimeoutMs?: number;
}

export interface RunSpec {
  readonly version: number;
  /** The sim's root seed. */
  readonly seed: string;
  readonly job: JobSpec;
  /**
   * One parallelism for every operator, or per operator uid (missing uids get the job's
   * default: flights 4, wordcount 1, generated jobs their shape's). Wordcount runs every
   * operator at one parallelism. For generated jobs this overrides the shape's parallelisms.
   */
  readonly parallelism: number | Readonly<Record<string, number>>;
  /** Max parallelism of every operator; absent: Flink's default per operator (generated: the shape's). */
  readonly maxParallelism?: number;
  /** Default: enough for the largest parallelism. */
  readonly taskManagers?: number;
  /** Default 2. */
  readonly slotsPerTaskManager?: number;
  /** Per-record costs per operator uid, ms (e.g. 0.4); missing uids keep the job's defaults. */
  readonly costsMs?: Readonly<Record<string, number>>;
  readonly network?: NetworkSpec;
  /** Object store latency per operation. */
  readonly storeLatency?: DelayMs;
  readonly heartbeat?: { readonly intervalMs: number; readonly timeoutMs: number };
  /** The JobManager's threads: `ioPoolSize` workers of the JobMaster ioExecutor (default 4, 1..64). */
  readonly jobManager?: JobManagerSpec;
  readonly checkpoint: CheckpointSpec;
  /** Default: fixed delay, unlimited attempts, 10 ms. */
  readonly restartStrategy?: RestartStrategySpec;
  readonly faults: readonly Fault[];
  /** From this time on, faults stop (and crashed hosts come back). */
  readonly healTimeMs: number;
  /** The run stops after this many events or beyond this virtual time. */
  readonly budgets: { readonly maxEvents: number; readonly maxTimeMs: number };
  readonly overrides: readonly { readonly decision: number; readonly alternative: number }[];
  /** Planted-bug switches (mutants) that are on; an unknown id is refused (validateRunSpec). */
  readonly mutations: readonly string[];
}

/** A RunSpec with every default filled in (see expandRunSpec): what reports print. */
export interface ExpandedRunSpec extends RunSpec {
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
}
