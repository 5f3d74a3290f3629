/**
 * Barrier handling on task inputs (reference section 3): the aligned exactly-once handler, the
 * at-least-once tracker, and the interfaces they use to reach the task and its inputs.
 */
export { AbstractAlignedBarrierHandlerState } from './AbstractAlignedBarrierHandlerState.ts';
export type { BarrierHandlerController, BarrierHandlerState } from './BarrierHandlerState.ts';
export { channelKey } from './ChannelInfo.ts';
export type { ChannelInfo } from './ChannelInfo.ts';
export { ChannelState } from './ChannelState.ts';
export type { ChannelStateOptions } from './ChannelState.ts';
export type { CheckpointableInputs } from './CheckpointableInputs.ts';
export type { CheckpointableTask } from './CheckpointableTask.ts';
export type {
  CheckpointBarrierHandler, CheckpointBarrierHandlerOptions,
} from './CheckpointBarrierHandler.ts';
export {
  CheckpointBarrierTracker, MAX_CHECKPOINTS_TO_TRACK, TRACKER_RECREATES_ABORTED,
} from './CheckpointBarrierTracker.ts';
export type { CheckpointBarrierTrackerOptions } from './CheckpointBarrierTracker.ts';
export { CollectingBarriers } from './CollectingBarriers.ts';
export { createBarrierHandler } from './createBarrierHandler.ts';
export type { CheckpointingMode } from './createBarrierHandler.ts';
export { InputGateCheckpointableInputs } from './InputGateCheckpointableInputs.ts';
export type { CheckpointableGate } from './InputGateCheckpointableInputs.ts';
export {
  ALIGNED_RESUME_IMMEDIATELY, SingleCheckpointBarrierHandler,
} from './SingleCheckpointBarrierHandler.ts';
export type { SingleCheckpointBarrierHandlerOptions } from './SingleCheckpointBarrierHandler.ts';
export { WaitingForFirstBarrier } from './WaitingForFirstBarrier.ts';
