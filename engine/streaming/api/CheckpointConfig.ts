/**
 * Checkpointing as a job enables it (StreamExecutionEnvironment.enableCheckpointing), in
 * milliseconds at this edge, and its conversion into the coordinator's configuration in virtual
 * microseconds. Defaults follow Flink (max concurrent 1, min pause 0, tolerable failures 0,
 * retained 1, exactly-once, checkpoints after tasks finish) except the timeout, scaled to the
 * simulated world: 1 s.
 *
 * @see org.apache.flink.streaming.api.environment.CheckpointConfig
 */
import {
  checkpointCoordinatorConfiguration, type CheckpointCoordinatorConfiguration,
} from '../../checkpoint/CheckpointCoordinatorConfiguration.ts';
import { InvalidJobError } from './InvalidJobError.ts';

export type CheckpointingMode = 'EXACTLY_ONCE' | 'AT_LEAST_ONCE';

/**
 * Flink 1.20's ExternalizedCheckpointRetention (`execution.checkpointing.externalized-checkpoint-
 * retention`): what happens to a job's retained checkpoints when the job ends.
 * NO_EXTERNALIZED_CHECKPOINTS (the default): deleted whenever the job ends; RETAIN_ON_CANCELLATION:
 * kept when the job is cancelled (or fails); DELETE_ON_CANCELLATION: kept only when the job FAILED.
 * A FINISHED job deletes its checkpoints under every policy.
 */
export type ExternalizedCheckpointRetention =
  | 'NO_EXTERNALIZED_CHECKPOINTS' | 'RETAIN_ON_CANCELLATION' | 'DELETE_ON_CANCELLATION';

/** The coordinator's CheckpointRetentionPolicy of each (CheckpointConfig's mapping in Flink). */
const RETENTION_POLICY = {
  NO_EXTERNALIZED_CHECKPOINTS: 'NEVER_RETAIN_AFTER_TERMINATION',
  RETAIN_ON_CANCELLATION: 'RETAIN_ON_CANCELLATION',
  DELETE_ON_CANCELLATION: 'RETAIN_ON_FAILURE',
} as const;

export interface CheckpointConfig {
  /** Periodic interval, ms (at least 10). */
  readonly intervalMs: number;
  readonly mode?: CheckpointingMode;
  /** Default 1000 ms. */
  readonly timeoutMs?: number;
  readonly minPauseMs?: number;
  readonly maxConcurrent?: number;
  readonly tolerableFailures?: number;
  readonly retained?: number;
  readonly checkpointsAfterTasksFinish?: boolean;
  /** Default NO_EXTERNALIZED_CHECKPOINTS. */
  readonly externalizedCheckpointRetention?: ExternalizedCheckpointRetention;
}

const MS = 1000;

function ms(name: string, value: number | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || Math.round(value * MS) !== value * MS) {
    throw new InvalidJobError(`checkpointing: ${name} must be a number of ms >= ${min} (whole µs), got ${String(value)}`);
  }
  return value * MS;
}

function int(name: string, value: number | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < min) {
    throw new InvalidJobError(`checkpointing: ${name} must be an integer >= ${min}, got ${String(value)}`);
  }
  return value;
}

/** Validates `c` and converts it to µs. @throws InvalidJobError with a one-line reason. */
export function toCoordinatorConfiguration(c: CheckpointConfig): CheckpointCoordinatorConfiguration {
  if (c.mode !== undefined && c.mode !== 'EXACTLY_ONCE' && c.mode !== 'AT_LEAST_ONCE') {
    throw new InvalidJobError(`checkpointing: unknown mode ${String(c.mode)}`);
  }
  const retention = c.externalizedCheckpointRetention;
  if (retention !== undefined && !Object.hasOwn(RETENTION_POLICY, retention)) {
    throw new InvalidJobError(`checkpointing: unknown externalizedCheckpointRetention ${String(retention)}`);
  }
  const options = {
    intervalUs: ms('intervalMs', c.intervalMs, 10),
    timeoutUs: ms('timeoutMs', c.timeoutMs, 10),
    minPauseUs: ms('minPauseMs', c.minPauseMs, 0),
    maxConcurrent: int('maxConcurrent', c.maxConcurrent, 1),
    tolerableFailures: int('tolerableFailures', c.tolerableFailures, 0),
    retained: int('retained', c.retained, 1),
    mode: c.mode,
    checkpointsAfterTasksFinish: c.checkpointsAfterTasksFinish,
    retention: retention === undefined ? undefined : RETENTION_POLICY[retention],
  };
  const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  return checkpointCoordinatorConfiguration(defined);
}
