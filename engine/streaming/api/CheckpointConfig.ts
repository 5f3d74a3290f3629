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
  type CheckpointCoordinatorConfigurationOptions,
} from '../../checkpoint/CheckpointCoordinatorConfiguration.ts';
import { InvalidJobError } from './InvalidJobError.ts';

export type CheckpointingMode = 'EXACTLY_ONCE' | 'AT_LEAST_ONCE';

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

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Validates `c` and converts it to µs. @throws InvalidJobError with a one-line reason. */
export function toCoordinatorConfiguration(c: CheckpointConfig): CheckpointCoordinatorConfiguration {
  if (c.mode !== undefined && c.mode !== 'EXACTLY_ONCE' && c.mode !== 'AT_LEAST_ONCE') {
    throw new InvalidJobError(`checkpointing: unknown mode ${String(c.mode)}`);
  }
  // Only the fields that are set (exact optional properties): assigned one by one rather than
  // filtered out of Object.entries, which cost more than the rest of this per-job conversion.
  const options: Mutable<CheckpointCoordinatorConfigurationOptions> = {};
  const intervalUs = ms('intervalMs', c.intervalMs, 10);
  if (intervalUs !== undefined) options.intervalUs = intervalUs;
  const timeoutUs = ms('timeoutMs', c.timeoutMs, 10);
  if (timeoutUs !== undefined) options.timeoutUs = timeoutUs;
  const minPauseUs = ms('minPauseMs', c.minPauseMs, 0);
  if (minPauseUs !== undefined) options.minPauseUs = minPauseUs;
  const maxConcurrent = int('maxConcurrent', c.maxConcurrent, 1);
  if (maxConcurrent !== undefined) options.maxConcurrent = maxConcurrent;
  const tolerableFailures = int('tolerableFailures', c.tolerableFailures, 0);
  if (tolerableFailures !== undefined) options.tolerableFailures = tolerableFailures;
  const retained = int('retained', c.retained, 1);
  if (retained !== undefined) options.retained = retained;
  if (c.mode !== undefined) options.mode = c.mode;
  if (c.checkpointsAfterTasksFinish !== undefined) options.checkpointsAfterTasksFinish = c.checkpointsAfterTasksFinish;
  return checkpointCoordinatorConfiguration(options);
}
