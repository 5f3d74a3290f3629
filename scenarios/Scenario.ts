/**
 * The data of a scenario (docs/scenarios.md): what a `defineScenario` call and a scenario JSON
 * file both hold. Everything here is plain data (JSON.stringify gives the file form, less its
 * `version`), and every time is in milliseconds, as at every edge of checkpoint-sim.
 *
 * A scenario is a RunSpec written for people: a job and a configuration (defaults sized for
 * about twenty checkpoints, defaultScenarioConfig.ts), steps that fire an action at a protocol
 * point or a virtual time, and expectations judged on the run's trace and RunResult. The standing
 * oracles judge every scenario too; `runScenario` compiles it into a RunSpec
 * (compileScenario.ts).
 */
import type { CheckpointFailureReason } from '../engine/index.ts';
import type { MarkName } from '../sim/marks.ts';
import type {
  Action, CheckpointSpec, Fault, FaultTrigger, JobSpec, ProtocolPoint, RunSpec,
} from '../sim/run/RunSpec.ts';

/**
 * A protocol point a step or an `expect.at` waits for: the RunSpec's protocol points (task and
 * jobmaster points of a checkpoint id, or of the n-th savepoint step's id; sink transactions;
 * restores; job statuses).
 */
export type ScenarioPoint = ProtocolPoint;

/** A message fault (issue 13): acts on the n-th RPC of `method` matching the filters. */
export interface MessageFault {
  readonly type: 'message';
  readonly action: 'lose' | 'delay' | 'hold';
  /** An engine RPC method name (Flink's), e.g. `confirmCheckpoint`. */
  readonly method: string;
  /** Only RPCs about this checkpoint id. */
  readonly checkpoint?: number;
  /** The sending host (`jobmanager`, `taskmanager-2`) or task (`v1#0`). */
  readonly from?: string;
  /** The receiving host or task. */
  readonly to?: string;
  readonly jobRun?: number;
  /** The n-th matching RPC (from 1, default 1), counted from when the fault is armed. */
  readonly nth?: number;
  /** `delay` only: how long, ms. */
  readonly delayMs?: number;
  /** `hold` only: deliver after this long, ms (absent: at the heal time). */
  readonly durationMs?: number;
}

type WithoutWhen<T> = T extends unknown ? Omit<T, 'when'> : never;

/** The faults a step can fire: every RunSpec fault with a trigger, and message faults. */
export type TriggeredFault = Extract<Fault, { readonly when: FaultTrigger }>;

/**
 * What a user asks of the job in a step: a RunSpec action without its `when` (a savepoint,
 * `triggerSavepoint()`; a stop, `stopWithSavepoint()`). A scenario compiles it into the RunSpec's
 * `actions`, not its faults.
 */
export type JobAction = WithoutWhen<Action>;

/**
 * What a step does: a triggered fault without its `when` (the step says when), or an action on
 * the job ({@link JobAction}).
 */
export type StepAction = WithoutWhen<TriggeredFault> | MessageFault | JobAction;

/** One step: an action at a protocol point, or at a virtual time (ms, before the heal time). */
export type Step<A = StepAction> =
  | { readonly at: ScenarioPoint; readonly do: A }
  | { readonly atMs: number; readonly do: A };

/** A message-fault builder (`lose(...)`, MessageFaultBuilder.ts): data through `toJSON()`. */
export interface MessageFaultData {
  toJSON(): MessageFault;
}

/** A count bound: at least, at most, exactly (give one or two; exactly alone). */
export interface CountBound {
  readonly atLeast?: number;
  readonly atMost?: number;
  readonly exactly?: number;
}

/**
 * An expectation, judged from the trace and the RunResult (never from the engine's code path):
 * at the end of the run, or, inside `at`, on the trace up to the first time a point was reached.
 */
export type ScenarioExpectation =
  | ({ readonly kind: 'checkpointsCompleted' } & CountBound)
  /** `jobRun`: checkpoint n of that job run (default the first: ids go on after a restore). */
  | { readonly kind: 'checkpointCompleted'; readonly checkpoint: number; readonly jobRun?: number }
  | { readonly kind: 'checkpointAborted'; readonly checkpoint: number; readonly reason?: CheckpointFailureReason; readonly jobRun?: number }
  | ({ readonly kind: 'restores' } & CountBound)
  | { readonly kind: 'restoredFrom'; readonly checkpoint: number; readonly nth?: number }
  | { readonly kind: 'jobStatus'; readonly status: string }
  | { readonly kind: 'markReached'; readonly name: MarkName }
  | { readonly kind: 'markNotReached'; readonly name: MarkName }
  | ({ readonly kind: 'duplicates' } & CountBound)
  | ({ readonly kind: 'failovers' } & CountBound)
  | { readonly kind: 'savepointCompleted'; readonly savepoint: number }
  | { readonly kind: 'savepointAborted'; readonly savepoint: number; readonly reason?: CheckpointFailureReason }
  | { readonly kind: 'savepointFailed'; readonly savepoint: number; readonly reason?: CheckpointFailureReason }
  | { readonly kind: 'savepointNotSubsumed'; readonly savepoint: number }
  | { readonly kind: 'savepointNotNotified'; readonly savepoint: number }
  | { readonly kind: 'savepointTransactionsCommitted'; readonly savepoint: number }
  | {
    readonly kind: 'jobRun'; readonly jobRun: number;
    /** Every operator at this parallelism, or these operators (by uid) at theirs. */
    readonly parallelism?: number | Readonly<Record<string, number>>;
    readonly restoredFrom?: 'savepoint' | 'checkpoint';
    readonly claimMode?: 'NO_CLAIM' | 'CLAIM' | 'LEGACY';
    readonly status?: string;
  }
  | { readonly kind: 'fullCheckpoint'; readonly checkpoint: number; readonly jobRun?: number }
  | { readonly kind: 'at'; readonly point: ScenarioPoint; readonly expect: ScenarioExpectation };

/** The expectation kinds, in a fixed order (for messages). */
export const EXPECTATION_KINDS: readonly ScenarioExpectation['kind'][] = [
  'checkpointsCompleted', 'checkpointCompleted', 'checkpointAborted', 'restores', 'restoredFrom',
  'jobStatus', 'markReached', 'markNotReached', 'duplicates', 'failovers', 'savepointCompleted',
  'savepointAborted', 'savepointFailed', 'savepointNotSubsumed', 'savepointNotNotified', 'savepointTransactionsCommitted', 'jobRun',
  'fullCheckpoint', 'at',
];

/**
 * A scenario's configuration: any RunSpec field but `version`, `job` (the scenario's own field),
 * the steps' faults and `actions` (every action is a step). `checkpoint` is merged over the
 * default one field by field (so `{ maxConcurrent: 2 }` keeps the default mode and interval);
 * every other field replaces the default. `faults` are extra faults (world-setting ones, say),
 * after the steps' faults.
 */
export type ScenarioConfig = Partial<Omit<RunSpec, 'version' | 'job' | 'checkpoint' | 'faults' | 'actions'>> & {
  readonly checkpoint?: Partial<CheckpointSpec>;
  readonly faults?: readonly (Fault | MessageFault)[];
};

/** A scenario's input size: the first `records` records of the job (flights; wordcount: lines). */
export interface ScenarioInput {
  readonly records: number;
}

/** The output promise the standing oracles judge. */
export type ScenarioPromise = 'exactly-once' | 'at-least-once';

export interface Scenario {
  /** Lower-case words joined by `-`, unique in the catalogue. */
  readonly name: string;
  /** One sentence: what must keep working. */
  readonly protects: string;
  /** The Flink bug or test it comes from (FLINK-12345, or a test class). */
  readonly source?: string;
  /** Default: flights, records 0..2000 (defaultScenarioConfig.ts). */
  readonly job?: JobSpec;
  readonly config?: ScenarioConfig;
  readonly input?: ScenarioInput;
  readonly steps: readonly Step[];
  readonly expect: readonly ScenarioExpectation[];
  /** Default by mode: aligned exactly-once, at-least-once (and none) at-least-once. */
  readonly promise?: ScenarioPromise;
}

/** What defineScenario takes: a Scenario whose steps may hold message-fault builders. */
export interface ScenarioDefinition extends Omit<Scenario, 'steps'> {
  readonly steps: readonly Step<StepAction | MessageFaultData>[];
}
