/**
 * The scenario layer's public API (docs/scenarios.md): define a scenario, build its points,
 * actions and expectations, run it, read one from a file. Not the catalogue
 * (scenarios/catalogue/): importing the package should not build thirty scenarios; the CLI's
 * `scenario run` runs them.
 */
export { defineScenario } from './defineScenario.ts';
export { checkpoint } from './checkpoint.ts';
export type { CheckpointPoints } from './checkpoint.ts';
export { savepoint } from './savepoint.ts';
export { sinkTransaction } from './sinkTransaction.ts';
export type { SinkTransactionPoints } from './sinkTransaction.ts';
export { restore } from './restore.ts';
export { restoreFrom } from './restoreFrom.ts';
export { job } from './job.ts';
export { execution } from './execution.ts';
export { crash } from './crash.ts';
export { pause } from './pause.ts';
export { partition } from './partition.ts';
export { globalFailure } from './globalFailure.ts';
export { slowTask } from './slowTask.ts';
export { coordinatorStall } from './coordinatorStall.ts';
export { lose } from './lose.ts';
export { delay } from './delay.ts';
export { hold } from './hold.ts';
export { triggerSavepoint } from './triggerSavepoint.ts';
export { stopWithSavepoint } from './stopWithSavepoint.ts';
export { cancel } from './cancel.ts';
export { rescale } from './rescale.ts';
export { MessageFaultBuilder } from './MessageFaultBuilder.ts';
export { expect } from './expect.ts';
export { runScenario } from './runScenario.ts';
export type { RunScenarioOptions, ScenarioFailure, ScenarioResult } from './runScenario.ts';
export { parseScenario } from './parseScenario.ts';
export { compileScenario } from './compileScenario.ts';
export type { CompiledScenario } from './compileScenario.ts';
export { scenarioSchema } from './scenarioSchema.ts';
export { SCENARIO_DEFAULTS } from './scenarioDefaults.ts';
export type {
  CountBound, JobAction, MessageFault, Scenario, ScenarioConfig, ScenarioDefinition, ScenarioExpectation, ScenarioInput,
  ScenarioPoint, ScenarioPromise, Step, StepAction,
} from './Scenario.ts';
export { fuzzScenario } from './fuzzScenario.ts';
export type { FuzzOptions, FuzzReport } from './fuzzScenario.ts';
