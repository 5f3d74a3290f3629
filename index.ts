/**
 * The package root: what `import { ... } from 'checkpoint-sim'` gives a user's own code and
 * tests (package.json `exports` points here, compiled to dist/index.js with dist/index.d.ts).
 *
 * It sits above every folder (like cli/) and only re-exports, so the one-way imports of
 * docs/architecture.md stay as they are. It lives at the repository root rather than in a folder
 * of its own because it belongs to no layer, and `api/` would be confused with engine/api/ (the
 * engine's ports, which users never need).
 *
 * What is public, and why:
 * - a run as data: `simulate(spec)` and the RunSpec format (docs/runspec.md) with its validation,
 *   defaults and version, and the RunResult it returns (times in ms);
 * - `judgeRun` (also as `judge`): the standing oracles (docs/oracles.md), so a test can judge its own run;
 * - `explore` (cli/library/explore.ts): the search of `checkpoint-sim explore` on a job module,
 *   as an assertion for a user's test file, rejecting with an ExploreFailure that says how to
 *   replay what it found;
 * - the job API of README "Writing a job": StreamExecutionEnvironment, sources, sinks, the
 *   function types, and MiniCluster, which runs such a job in the simulated world (times in µs);
 * - TwoPhaseCommitSinkFunction (Flink's class of that name), the base of a user's own
 *   two-phase-commit sink, with the transaction handle its steps receive (SinkTransaction, whose
 *   `id` is a TransactionId), so a user's sink is judged end to end like the built-in one;
 * - `SimInputError`, thrown for bad input, so a caller can tell it from a harness failure;
 * - the scenarios (scenarios/index.ts): `defineScenario`, the point, action and expectation
 *   builders, `runScenario`, `fuzzScenario`, `parseScenario` (not the catalogue: the CLI runs it).
 * Engine internals (the coordinator, tasks, the ports) are not exported: they may change freely.
 */

// A run as data.
export {
  simulate, validateRunSpec, expandRunSpec, DEFAULT_CHECKPOINT, DEFAULT_RESTART_STRATEGY,
  AVAILABLE_MODES, FAULT_TYPES, RUN_MODES, RUN_SPEC_VERSION,
} from './sim/run/index.ts';
export type {
  SimulateOptions, CheckpointSpec, DelayMs, ExpandedRunSpec, Fault, FaultTrigger, JobMasterPhase,
  JobSpec, NetworkSpec, ProtocolPoint, RestartStrategySpec, RunMode, RunSpec, SinkPhase, TaskPhase,
  FaultRecord, FlowMetrics, RunResult, Violation,
} from './sim/run/index.ts';
export { SimInputError } from './sim/index.ts';
export type { TraceEvent } from './sim/index.ts';
export { PLANTED_BUG_IDS } from './engine/index.ts';
export { CHECKPOINT_FAILURE_REASONS } from './engine/index.ts';
export type { CheckpointFailureReason } from './engine/index.ts';
export { MARKS, MARK_NAMES } from './sim/marks.ts';
export type { MarkName } from './sim/marks.ts';

// Judging a run.
// `judge` is judgeRun under the name the library's three verbs share (explore, simulate, judge).
export { judgeRun, judgeRun as judge, ORACLE_NAMES } from './properties/oracles/judgeRun.ts';
export type {
  Counterexample, JudgeOptions, OracleName, RunVerdict,
} from './properties/oracles/judgeRun.ts';

// Writing a job and running it on a MiniCluster.
export {
  StreamExecutionEnvironment, DataStream, KeyedStream, InvalidJobError,
  splitSource, consecutiveSplits, twoPhaseCommitSink, collectSink, recordIdentity,
  TwoPhaseCommitSinkFunction,
} from './engine/index.ts';
export type {
  EnvironmentOptions, OperatorOptions, CheckpointConfig, CheckpointingMode, JobStatus, StreamGraph,
  StreamRecord, Key, Collector, MapFunction, FilterFunction, FlatMapFunction, KeySelector,
  KeyedProcessFunction, KeyedContext, TimerService, StateDescriptor, ValueState, MapState,
  ListState, SplitData, SplitSource, SinkDefinition, CollectedRecord,
  SinkFunctionContext, SinkTransaction, TwoPhaseCommitSinkFunctionFactory, TransactionId,
} from './engine/index.ts';
export { MiniCluster } from './sim/MiniCluster.ts';
export type { MiniClusterOptions, MiniClusterResult } from './sim/MiniCluster.ts';
export type { WorldOptions } from './sim/index.ts';

// A job of your own: a module exporting a JobDefinition (docs/jobs.md).
export { defineJob } from './sim/jobs/JobDefinition.ts';
export type {
  JobDefinition, JobInput, JobInputGenerator, JobJudging, OutputComparison, OutputJudging, StateJudging,
} from './sim/jobs/JobDefinition.ts';
export { loadJobModule } from './properties/jobModules/loadJobModule.ts';
export type { LoadedJobModule } from './sim/jobs/jobModuleRegistry.ts';

// Exploring a job module from a test file, as an assertion (docs/jobs.md, "From a test file").
export { explore, ExploreFailure, LIBRARY_DEFAULT_RUNS } from './cli/library/explore.ts';
export type { ExploreJobModule, ExploreJobOptions } from './cli/library/explore.ts';
export { HarnessError } from './properties/explore/explore.ts';
export type {
  Counterexample as ExploreCounterexample, Expectation, ExploreReport, ModeSummary,
} from './properties/explore/explore.ts';

// Scenarios.
export * from './scenarios/index.ts';
