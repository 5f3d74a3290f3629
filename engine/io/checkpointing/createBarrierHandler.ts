/**
 * Picks a task's barrier handler for the checkpointing mode (reference 3.0): EXACTLY_ONCE gets
 * the aligned SingleCheckpointBarrierHandler, AT_LEAST_ONCE the CheckpointBarrierTracker. With
 * unaligned checkpoints (a later issue) EXACTLY_ONCE will get the alternating handler instead.
 *
 * @see org.apache.flink.streaming.runtime.io.checkpointing.InputProcessorUtil
 *      (createCheckpointBarrierHandler)
 *
 * Invariants: the handler returned is new and owned by the caller, who registers its
 * checkInvariants() and closes it with the task.
 */
import { unreachable } from '../../util/assert.ts';
import type {
  CheckpointBarrierHandler, CheckpointBarrierHandlerOptions,
} from './CheckpointBarrierHandler.ts';
import { CheckpointBarrierTracker } from './CheckpointBarrierTracker.ts';
import { SingleCheckpointBarrierHandler } from './SingleCheckpointBarrierHandler.ts';

/** Flink's CheckpointingMode. */
export type CheckpointingMode = 'EXACTLY_ONCE' | 'AT_LEAST_ONCE';

/**
 * A new barrier handler for a task with network inputs, in `mode`.
 * @throws AssertionError if the inputs have no channels (a pure source has no handler).
 */
export function createBarrierHandler(
  mode: CheckpointingMode, options: CheckpointBarrierHandlerOptions,
): CheckpointBarrierHandler {
  switch (mode) {
    case 'EXACTLY_ONCE':
      return new SingleCheckpointBarrierHandler(options);
    case 'AT_LEAST_ONCE':
      return new CheckpointBarrierTracker(options);
    default:
      return unreachable(mode, 'checkpointing mode');
  }
}
