/**
 * The checkpoint settings of a job: interval, timeout, min pause, concurrency, tolerable failures,
 * retention and the checkpointing mode, validated as Flink validates them. Times are virtual
 * microseconds (people write milliseconds at the edges; RunSpec converts).
 *
 * @see org.apache.flink.runtime.jobgraph.tasks.CheckpointCoordinatorConfiguration,
 *      org.apache.flink.configuration.CheckpointingOptions (reference 1.1)
 * Invariants: a built configuration is frozen and valid; `intervalUs >= minPauseUs` whenever
 * periodic checkpoints are on (the interval is raised to the min pause, as Flink's coordinator
 * does).
 */
import { assert } from '../util/assert.ts';

/** The smallest interval and timeout Flink accepts (MINIMAL_CHECKPOINT_TIME, 10 ms) in µs. */
export const MINIMAL_CHECKPOINT_TIME_US = 10_000;

/** "No periodic checkpoints": Flink uses Long.MAX_VALUE as the interval. */
export const NO_PERIODIC_CHECKPOINTS = Number.MAX_SAFE_INTEGER;

/** Externalized-checkpoint retention policy (CheckpointRetentionPolicy). */
export type CheckpointRetentionPolicy =
  | 'NEVER_RETAIN_AFTER_TERMINATION'
  | 'RETAIN_ON_FAILURE'
  | 'RETAIN_ON_CANCELLATION';

/** The validated settings; see the file comment. */
export interface CheckpointCoordinatorConfiguration {
  /** Periodic interval, µs; {@link NO_PERIODIC_CHECKPOINTS} when periodic checkpoints are off. */
  readonly intervalUs: number;
  /** A pending checkpoint expires this long after its creation, µs. */
  readonly timeoutUs: number;
  /** Minimum pause between a completion and the next periodic trigger, µs. */
  readonly minPauseUs: number;
  readonly maxConcurrent: number;
  readonly tolerableFailures: number;
  /** Completed checkpoints kept in the store. */
  readonly retained: number;
  readonly mode: 'EXACTLY_ONCE' | 'AT_LEAST_ONCE';
  readonly unaligned: boolean;
  /** Aligned checkpoint timeout with unaligned checkpoints on, µs; 0 = always unaligned. */
  readonly alignedCheckpointTimeoutUs: number;
  readonly checkpointsAfterTasksFinish: boolean;
  readonly retention: CheckpointRetentionPolicy;
}

/** Options for {@link checkpointCoordinatorConfiguration}; every field has Flink's default. */
export interface CheckpointCoordinatorConfigurationOptions {
  /** Omitted: no periodic checkpoints (manual triggers only). */
  readonly intervalUs?: number;
  /** Default 1 s virtual (DESIGN.md scales Flink's 10 min to the simulated world). */
  readonly timeoutUs?: number;
  readonly minPauseUs?: number;
  readonly maxConcurrent?: number;
  readonly tolerableFailures?: number;
  readonly retained?: number;
  readonly mode?: 'EXACTLY_ONCE' | 'AT_LEAST_ONCE';
  readonly unaligned?: boolean;
  readonly alignedCheckpointTimeoutUs?: number;
  readonly checkpointsAfterTasksFinish?: boolean;
  readonly retention?: CheckpointRetentionPolicy;
}

function checkInt(name: string, value: number, min: number): void {
  assert(Number.isInteger(value) && value >= min,
    () => `checkpoint configuration: ${name} must be an integer >= ${min}, got ${value}`);
}

/**
 * Builds and validates a configuration.
 * @throws AssertionError with a message naming the bad field: interval or timeout below 10 ms,
 *   min pause or tolerable failures below 0, max concurrent or retained below 1, max concurrent
 *   above 1 with unaligned checkpoints.
 */
export function checkpointCoordinatorConfiguration(
  options: CheckpointCoordinatorConfigurationOptions = {},
): CheckpointCoordinatorConfiguration {
  const timeoutUs = options.timeoutUs ?? 1_000_000;
  const minPauseUs = options.minPauseUs ?? 0;
  const maxConcurrent = options.maxConcurrent ?? 1;
  const tolerableFailures = options.tolerableFailures ?? 0;
  const retained = options.retained ?? 1;
  const unaligned = options.unaligned ?? false;
  const alignedCheckpointTimeoutUs = options.alignedCheckpointTimeoutUs ?? 0;
  let intervalUs = options.intervalUs ?? NO_PERIODIC_CHECKPOINTS;
  checkInt('intervalUs', intervalUs, MINIMAL_CHECKPOINT_TIME_US);
  checkInt('timeoutUs', timeoutUs, MINIMAL_CHECKPOINT_TIME_US);
  checkInt('minPauseUs', minPauseUs, 0);
  checkInt('maxConcurrent', maxConcurrent, 1);
  checkInt('tolerableFailures', tolerableFailures, 0);
  checkInt('retained', retained, 1);
  checkInt('alignedCheckpointTimeoutUs', alignedCheckpointTimeoutUs, 0);
  assert(!unaligned || maxConcurrent <= 1,
    'checkpoint configuration: unaligned checkpoints need maxConcurrent <= 1');
  // Flink's coordinator raises the interval to the min pause (reference 1.1).
  if (intervalUs !== NO_PERIODIC_CHECKPOINTS && intervalUs < minPauseUs) intervalUs = minPauseUs;
  return Object.freeze({
    intervalUs,
    timeoutUs,
    minPauseUs,
    maxConcurrent,
    tolerableFailures,
    retained,
    mode: options.mode ?? 'EXACTLY_ONCE',
    unaligned,
    alignedCheckpointTimeoutUs,
    checkpointsAfterTasksFinish: options.checkpointsAfterTasksFinish ?? true,
    retention: options.retention ?? 'NEVER_RETAIN_AFTER_TERMINATION',
  });
}

/** True when the configuration asks for periodic checkpoints. */
export function isPeriodicCheckpointingConfigured(c: CheckpointCoordinatorConfiguration): boolean {
  return c.intervalUs !== NO_PERIODIC_CHECKPOINTS;
}
