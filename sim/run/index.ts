/**
 * A run as data (DESIGN.md "A run is data"): the RunSpec format, its validation and expansion,
 * `simulate`, and the RunResult the oracles read.
 */
export { simulate } from './simulate.ts';
export type { SimulateOptions } from './simulate.ts';
export { validateRunSpec } from './validateRunSpec.ts';
export { expandRunSpec, DEFAULT_CHECKPOINT, DEFAULT_RESTART_STRATEGY } from './expandRunSpec.ts';
export { AVAILABLE_MODES, FAULT_TYPES, RUN_MODES, RUN_SPEC_VERSION } from './RunSpec.ts';
export type {
  CheckpointSpec, DelayMs, ExpandedRunSpec, Fault, FaultTrigger, JobMasterPhase, JobSpec,
  NetworkSpec, ProtocolPoint, RestartStrategySpec, RunMode, RunSpec, SinkPhase, TaskPhase,
} from './RunSpec.ts';
export type { FaultRecord, RunResult, Violation } from './RunResult.ts';
export { flowMetrics, percentile } from './flowMetrics.ts';
export type { FlowMetrics } from './flowMetrics.ts';
export { matchesPoint, pointEventType } from './whenPointReached.ts';
export { jobUids } from './RunJob.ts';
