/**
 * compileScenario: a scenario as the RunSpec `runScenario` simulates (version RUN_SPEC_VERSION).
 *
 * - seed: `config.seed`, default `scenario:<name>`;
 * - job: the scenario's, default flights records 0..2000; `input.records` sets how many records
 *   it reads (flights: `selection.to` = `from` + records; wordcount: `lines`);
 * - the configuration: scenarioDefaults.ts, with `config` over it (`checkpoint` merged field by
 *   field, every other field replaced);
 * - faults and actions: a step whose action is a fault becomes the next entry of `faults`, one
 *   that is an action on the job (a savepoint, triggerSavepoint()) the next entry of `actions`,
 *   in step order, each with `when` the step's point (`{ at }`) or `{ atMs }`; a crash without
 *   `downMs` gets three heartbeat timeouts; then `config.faults`, in order. So the n-th savepoint
 *   step is the RunSpec's n-th savepoint action, which `savepoint(n)` points name.
 *
 * The spec is validated (validateRunSpec), and its errors name the scenario's field
 * (specErrorPath.ts): `steps[1].do.host: ...`, not `faults[1].host: ...`. So are the
 * expectations' tasks and savepoints (a savepoint the steps do not trigger is bad input).
 *
 * @throws SimInputError (one line, a scenario path) for a scenario that makes no valid RunSpec.
 */
import { ACTION_TYPES } from '../sim/run/schema/actionSchema.ts';
import { RUN_SPEC_VERSION, type Action, type Fault, type JobSpec, type RunSpec } from '../sim/run/RunSpec.ts';
import { savepointActionIndices } from '../sim/run/savepointPoints.ts';
import { checkSpecTasks } from '../sim/run/simulate.ts';
import { jobUids } from '../sim/run/RunJob.ts';
import { validateRunSpec } from '../sim/run/validateRunSpec.ts';
import { SimInputError } from '../sim/SimInputError.ts';
import type { Scenario, ScenarioExpectation, ScenarioPoint, StepAction } from './Scenario.ts';
import { SCENARIO_DEFAULTS } from './scenarioDefaults.ts';
import { specErrorPath } from './specErrorPath.ts';

/** Where a step went in the RunSpec: `faults[fault]` or `actions[action]`. */
export type StepTarget = { readonly fault: number } | { readonly action: number };

export interface CompiledScenario {
  readonly spec: RunSpec;
  /** How many steps (the first faults and every action of the spec are theirs). */
  readonly steps: number;
  /** Step k went to `targets[k]`: faults in step order from 0, actions in step order from 0. */
  readonly targets: readonly StepTarget[];
}

/** Whether a step's action is an action on the job (a RunSpec action) rather than a fault. */
export function isJobAction(a: StepAction): boolean {
  return (ACTION_TYPES as readonly string[]).includes(a.type);
}

/** Step k's target, counting faults and actions apart in step order. */
export function stepTargets(actions: readonly StepAction[]): StepTarget[] {
  let faults = 0;
  let jobActions = 0;
  return actions.map((a) => (isJobAction(a) ? { action: jobActions++ } : { fault: faults++ }));
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
    case 'module': return { ...job, size: n };
  }
}

export function compileScenario(s: Scenario): CompiledScenario {
  const config = s.config ?? {};
  const { checkpoint, faults: extra, seed, ...rest } = config;
  const heartbeatTimeoutMs = config.heartbeat?.timeoutMs ?? SCENARIO_DEFAULTS.heartbeatTimeoutMs;
  const targets = stepTargets(s.steps.map((step) => step.do));
  const compiled = s.steps.map((step) => {
    const action: StepAction = step.do;
    const when = 'at' in step ? { at: step.at } : { atMs: step.atMs };
    const withDown = action.type === 'crash' && action.downMs === undefined
      ? { ...action, downMs: SCENARIO_DEFAULTS.crashDownHeartbeats * heartbeatTimeoutMs } : action;
    return { ...withDown, when };
  });
  const stepFaults = compiled.filter((_c, k) => 'fault' in (targets[k] as StepTarget)) as unknown as Fault[];
  const stepActions = compiled.filter((_c, k) => 'action' in (targets[k] as StepTarget)) as unknown as Action[];
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
    // Only when a step asks for one, so a scenario without actions compiles as before.
    ...(stepActions.length === 0 ? {} : { actions: stepActions }),
  } as RunSpec;
  try {
    validateRunSpec(spec);
    // The tasks the steps name, then those of the expectations' points: a typo there is bad
    // input (exit 2), never a point that "was never reached".
    checkExpectationTasks(s.expect, checkSpecTasks(spec), 'expect');
    checkExpectationUids(s.expect, jobUids(spec.job), 'expect');
    const actionSteps = s.steps.flatMap((step, k) => (isJobAction(step.do) ? [k] : []));
    checkExpectationSavepoints(s.expect, savepointActionIndices(stepActions).map((j) => actionSteps[j] as number), 'expect');
  } catch (e) {
    if (e instanceof SimInputError) {
      throw new SimInputError(specErrorPath(e.message, { targets, input: s.input !== undefined }), { cause: e });
    }
    throw e;
  }
  return { spec, steps: s.steps.length, targets };
}

/**
 * Refuses an expectation (or an `expect.at` point, nested ones too) naming savepoint n when the
 * scenario has fewer savepoint steps (`savepointSteps`: their step indices, in order): it could
 * only fail as "never triggered", for a reason that is the scenario's, not the run's.
 */
function checkExpectationSavepoints(list: readonly ScenarioExpectation[], savepointSteps: readonly number[], path: string): void {
  const have = savepointSteps.length === 0 ? 'no savepoint step'
    : `${savepointSteps.length === 1 ? 'one savepoint step' : `${savepointSteps.length} savepoint steps`} `
      + `(${savepointSteps.map((k) => `steps[${k}]`).join(', ')})`;
  const check = (n: number | undefined, at: string): void => {
    if (n !== undefined && n > savepointSteps.length) {
      throw new SimInputError(`${at}: names savepoint ${n}, but the scenario has ${have}`);
    }
  };
  const walk = (e: ScenarioExpectation, at: string): void => {
    if ('savepoint' in e) check(e.savepoint, `${at}.savepoint`);
    if (e.kind !== 'at') return;
    const point: ScenarioPoint = e.point;
    if (point.kind === 'task' || point.kind === 'jobmaster') check(point.savepoint, `${at}.point.savepoint`);
    walk(e.expect, `${at}.expect`);
  };
  list.forEach((e, i) => walk(e, `${path}[${i}]`));
}

/** Refuses a task in an expectation's point (`expect[i].point.task`, nested `at`s too) the job lacks. */
/**
 * The operator uids a `jobRun` expectation's parallelism map names: a typo is bad input (exit 2),
 * never an expectation that fails on a run that had no such operator.
 */
function checkExpectationUids(list: readonly ScenarioExpectation[], uids: readonly string[], path: string): void {
  list.forEach((e, i) => {
    const at = `${path}[${i}]`;
    if (e.kind === 'at') checkExpectationUids([e.expect], uids, `${at}.expect`);
    if (e.kind !== 'jobRun' || e.parallelism === undefined || typeof e.parallelism === 'number') return;
    for (const uid of Object.keys(e.parallelism)) {
      if (!uids.includes(uid)) throw new SimInputError(`${at}.parallelism: unknown operator uid ${JSON.stringify(uid)} (operators: ${uids.join(', ')})`);
    }
  });
}

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
