/**
 * RunResult: what `simulate(spec)` returns, everything the oracles and reports read. Oracles
 * never look inside the engine: they read this. Times are in ms (virtual), as at every edge.
 */
import type { JobStatus, StreamGraph } from '../../engine/index.ts';
import type { JobJudging } from '../jobs/JobDefinition.ts';
import type { RunCheckpoint } from '../MiniCluster.ts';
import type { CommittedRecord } from '../SimTransactionalStore.ts';
import type { TraceEvent } from '../Trace.ts';
import type { ActionRecord, JobRunRecord, StuckStop } from './ActionPlan.ts';
import type { CheckpointStatsResult } from './checkpointStatsResult.ts';
import type { FaultRecord } from './FaultPlan.ts';
import type { FlowMetrics } from './flowMetrics.ts';
import type { ExpandedRunSpec } from './RunSpec.ts';

export type { FaultRecord } from './FaultPlan.ts';
export type { FlowMetrics } from './flowMetrics.ts';
export type {
  CheckpointStatsEntry, CheckpointStatsResult, RestoreStatsEntry, SubtaskCheckpointStatsResult,
} from './checkpointStatsResult.ts';

/** A violated property, as ORACLES.md "What a counterexample must say" asks. */
export interface Violation {
  /** The oracle, e.g. `end-to-end-exactly-once`, `consistent-cut`, `liveness`. */
  readonly property: string;
  /** One line for people. */
  readonly summary: string;
  /** The checkpoint or record involved, expected and actual values, ... */
  readonly details: unknown;
  /** Virtual time of the violation, ms. */
  readonly timeMs: number;
}

export interface RunResult {
  /** The spec as run, with every default filled in (the "expanded configuration"). */
  readonly spec: ExpandedRunSpec;
  /** The job that ran (for the reference fold), with its checkpointing settings. */
  readonly graph: StreamGraph;
  /** How the oracles judge this job; absent: the built-in defaults. */
  readonly judging?: JobJudging;
  readonly traceHash: string;
  /** Stored trace events (may be capped by `traceLimit`; the hash covers all). */
  readonly trace: readonly TraceEvent[];
  /** Events recorded but not stored because of `traceLimit` (absent: the whole trace is stored). */
  readonly traceDropped?: number;
  /**
   * Why the run ended: `stopped` (job end + drain), `max-events` or `max-time` (a budget),
   * `idle` (nothing left to do), `engine-assertion` (see `engineAssertion`); events run and the
   * virtual time at the end.
   */
  readonly outcome: {
    readonly reason: string;
    readonly events: number;
    readonly timeMs: number;
    readonly message: string;
  };
  /**
   * Present when an engine assertion ended the run (`outcome.reason` `engine-assertion`): its
   * message, where in the engine it was thrown (`<path>:<line>` relative to the project, see
   * sim/engineAssertion.ts; undefined if the stack does not say), the stack's frames inside the
   * project and the virtual time, ms. Everything else in the result is what the run produced up
   * to that point.
   */
  readonly engineAssertion?: {
    readonly message: string;
    readonly location: string | undefined;
    readonly stack: readonly string[];
    readonly timeMs: number;
  };
  readonly jobStatus: JobStatus;
  /** Virtual time the job reached a terminal status, ms. */
  readonly jobEndMs: number | undefined;
  readonly checkpoints: {
    /** `checkpoint.triggered` events (every trigger, whatever became of it). */
    readonly triggered: number;
    /** Every completed checkpoint, decoded when it completed, in completion order. */
    readonly completed: readonly RunCheckpoint[];
    /** Aborts by reason (CheckpointFailureReason). */
    readonly aborted: Readonly<Record<string, number>>;
  };
  /**
   * Flink's checkpoint statistics (CheckpointStatsTracker) at the end of the run: per checkpoint
   * and per subtask, and the restores; times in virtual ms, sizes in bytes (docs/statistics.md).
   * Of the latest job run when the history has several (each run's: `jobRuns[i].checkpointStats`).
   */
  readonly checkpointStats: CheckpointStatsResult;
  /**
   * Flow metrics of the whole run (docs/statistics.md "Flow metrics", sim/run/flowMetrics.ts):
   * `committedRecords` (all copies the sinks committed); `latencyMs` p50/p99/max/mean, virtual ms
   * from the source reading a record to the commit of the transaction that made its copy visible
   * (null with nothing committed); `throughputPerSec`, committed records per virtual second from
   * the first source read to the last commit (null with nothing committed); `backPressuredMs`,
   * virtual ms tasks waited for a free output buffer (credit), in total and per task
   * `<vertex>#<subtask>` (Flink's backPressuredTimeMsPerSecond, accumulated). Kept aside from the
   * trace: computing them changes no trace hash.
   */
  readonly flow: FlowMetrics;
  /** Restores from a checkpoint (regional and global); fresh starts without one do not count. */
  readonly restores: number;
  /** Committed sink records in commit order, with the transaction each came from. */
  readonly committed: readonly CommittedRecord[];
  /**
   * The records of the transactions still pre-committed at the end (a stop whose job failed
   * leaves the savepoint's so), in creation order.
   */
  readonly preCommitted: readonly CommittedRecord[];
  /**
   * The records of the transactions aborted after their pre-commit (a fresh attempt's abort of
   * lingering ones may abort those a stop's savepoint holds), in creation order.
   */
  readonly abortedPreCommitted: readonly CommittedRecord[];
  /** Final keyed state of the attempts that finished: uid -> state -> key -> value. */
  readonly finalState: Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, unknown>>>>>>;
  /** Files left in the object store after the drain phase, sorted. */
  readonly objectStorePaths: readonly string[];
  /** Sink transactions left open or pre-committed after the drain phase (`sink#subtask@attempt/e<epoch>`). */
  readonly lingeringTransactions: readonly string[];
  /** Mark counts by name, in first-reached order. */
  readonly marks: Readonly<Record<string, number>>;
  readonly unusedOverrides: readonly { readonly decision: number; readonly alternative: number }[];
  /**
   * The run's decisions (all kinds) and order decisions, and with a PCT schedule (`spec.pct`)
   * what it did: its change points, those the run never reached (it made fewer order
   * decisions), how many lanes got a priority, and at how many order decisions the schedule
   * proposed another candidate than the seeded draw would have taken.
   */
  readonly schedule: {
    readonly decisions: number;
    readonly orderDecisions: number;
    readonly pct?: {
      readonly changePoints: readonly number[];
      readonly unusedChangePoints: readonly number[];
      readonly lanes: number;
      readonly differed: number;
    };
  };
  /** What the fault plan did, in order (crashes, restarts, partitions, heals, ...). */
  readonly faults: readonly FaultRecord[];
  /** Indices of faults whose trigger was never reached (like unused overrides). */
  readonly unfiredFaults: readonly number[];
  /** What the actions (savepoints) did, in order: fired, then completed or failed. */
  readonly actions: readonly ActionRecord[];
  /** Indices of actions whose time or point never came. */
  readonly unfiredActions: readonly number[];
  /**
   * The job runs of the history, the first run first: each later one started by a rescale
   * action from a savepoint or a retained checkpoint of the run before (JobRun.ts), with its
   * parallelism by operator uid and the status it ended in (the latest's when the run ended).
   */
  readonly jobRuns: readonly (JobRunRecord & {
    readonly status: JobStatus;
    /** The run's own checkpoint statistics (present when the history has several runs). */
    readonly checkpointStats?: CheckpointStatsResult;
  })[];
  /**
   * A stop-with-savepoint that can never end (tasks wait for a lost confirmation or abort of its
   * synchronous savepoint): a known Flink 1.20 outcome, marked `stop-with-savepoint-stuck`.
   */
  readonly stuckStop?: StuckStop;
  /** Filled by the oracles. */
  readonly violations: readonly Violation[];
}
