/**
 * compileScenario: a scenario as the RunSpec `runScenario` simulates (version RUN_SPEC_VERSION).
 *
 * - seed: `config.seed`, default `scenario:<name>`;
 * - job: the scenario's, default flights records 0..2000; `input.records` sets how many records
 *   it reads (flights: `selection.to` = `from` + records; wordcount: `lines`);
 * - the configuration: scenarioDefaults.ts, with `config` over it (`checkpoint` merged field by
 *   field, every other field replaced);
 * - faults: step i becomes `faults[i]`, its `when` the step's point (`{ at }`) or `{ atMs }`; a
 *   crash without `downMs` gets three heartbeat timeouts; then `config.faults`, in order.
 *
 * The spec is validated (validateRunSpec), and its errors name the scenario's field
 * (specErrorPath.ts): `steps[1].do.host: ...`, not `faults[1].host: ...`.
 *
 * @throws SimInputError (one line, a scenario path) for a scenario that makes no valid RunSpec.
 */
import { RUN_SPEC_VERSION, type Fault, type JobSpec, type RunSpec } from '../sim/run/RunSpec.ts';
import { checkSpecTasks } from '../sim/run/simulate.ts';
import { validateRunSpec } from '../sim/run/validateRunSpec.ts';
import { SimInputError } from '../sim/SimInputError.ts';
import type { Scenario, ScenarioExpectation, StepAction } from './Scenario.ts';
import { SCENARIO_DEFAULTS } from './scenarioDefaults.ts';
import { specErrorPath } from './specErrorPath.ts';

export interface CompiledScenario {
  readonly spec: RunSpec;
  /** Faults 0..steps-1 are the steps' (in step order). */
  readonly steps: number;
}

function jobOf(s: Scenario): JobSpec {
  const job = s.job ?? SCENARIO_DEFAULTS.job;
  if (s.input === undefined) return job;
  const n = s.input.records;
  switch (job.kind) {
    case 'flights': return { ...job, selection: { from: job.selection.from, to: job.selection.from + n } };
    case 'wordcount': return { ...job, lines: n };
    case 'generated':
      throw new SimInputError('input: a generated job carries its own records; set them in job.spec.records');
  }
}

export function compileScenario(s: Scenario): CompiledScenario {
  const config = s.config ?? {};
  const { checkpoint, faults: extra, seed, ...rest } = config;
  const heartbeatTimeoutMs = config.heartbeat?.timeoutMs ?? SCENARIO_DEFAULTS.heartbeatTimeoutMs;
  const stepFaults = s.steps.map((step) => {
    const action: StepAction = step.do;
    const when = 'at' in step ? { at: step.at } : { atMs: step.atMs };
    const withDown = action.type === 'crash' && action.downMs === undefined
      ? { ...action, downMs: SCENARIO_DEFAULTS.crashDownHeartbeats * heartbeatTimeoutMs } : action;
    return { ...withDown, when } as unknown as Fault;
  });
  const spec = {
    version: RUN_SPEC_VERSION,
    seed: seed ?? `scenario:${s.name}`,
    job: jobOf(s),
    parallelism: SCENARIO_DEFAULTS.parallelism,
    slotsPerTaskManager: SCENARIO_DEFAULTS.slotsPerTaskManager,
    healTimeMs: SCENARIO_DEFAULTS.healTimeMs,
    budgets: SCENARIO_DEFAULTS.budgets,
    overrides: [],
    mutations: [],
    ...rest,
    checkpoint: { ...SCENARIO_DEFAULTS.checkpoint, ...checkpoint },
    faults: [...stepFaults, ...((extra ?? []) as readonly Fault[])],
  } as RunSpec;
  try {
    validateRunSpec(spec);
    // The tasks the steps name, then those of the expectations' points: a typo there is bad
    // input (exit 2), never a point that "was never reached".
    checkExpectationTasks(s.expect, checkSpecTasks(spec), 'expect');
  } catch (e) {
    if (e instanceof SimInputError) {
      throw new SimInputError(specErrorPath(e.message, { steps: s.steps.length, input: s.input !== undefined }), { cause: e });
    }
    throw e;
  }
  return { spec, steps: s.steps.length };
}

/** Refuses a task in an expectation's point (`expect[i].point.task`, nested `at`s too) the job lacks. */
function checkExpectationTasks(list: readonly ScenarioExpectation[], tasks: readonly string[], path: string): void {
  list.forEach((e, i) => checkExpectationTask(e, tasks, `${path}[${i}]`));
}

function checkExpectationTask(e: ScenarioExpectation, tasks: readonly string[], path: string): void {
  if (e.kind !== 'at') return;
  const task = (e.point as { task?: string }).task;
  if (task !== undefined && !tasks.includes(task)) {
    throw new SimInputError(`${path}.point.task: no task ${task} in this job (tasks: ${tasks.join(', ')})`);
  }
  checkExpectationTask(e.expect, tasks, `${path}.expect`);
}
