/**
 * `execution.reaches(state, { task, nth, jobRun })`: the point "a task attempt entered this
 * ExecutionState for the nth time" (default the first; of any attempt of `task` when given, else
 * of any task; of job run `jobRun` when given, else of any run; trace `task.<state in lower
 * case>`). The moment is the Task's own state change on its TaskExecutor (Flink's
 * Task.transitionState), before the JobMaster hears of it: a fault here lands while the report
 * of the change (updateTaskExecutionState) is still in flight.
 * @throws SimInputError for a state no task enters on its TaskExecutor, a task not named
 *   `<vertex>#<subtask>`, an nth or jobRun that is not an integer >= 1, or an unknown option.
 */
import { checkBuilderOptions } from './builderOptions.ts';
import { EXECUTION_POINT_STATES, executionStateRefusal, TASK_NAME } from '../sim/run/schema/faultSchema.ts';
import { SimInputError } from '../sim/SimInputError.ts';
import type { ScenarioPoint } from './Scenario.ts';

/** An ExecutionState a task attempt enters on its TaskExecutor (Flink's names). */
export type ExecutionPointState = typeof EXECUTION_POINT_STATES[number];

const STATES: readonly string[] = EXECUTION_POINT_STATES;
const OPTIONS: readonly string[] = ['task', 'nth', 'jobRun'];

export interface ExecutionPointOptions {
  /** One subtask, `<vertex>#<subtask>` (any attempt of it); absent: any task. */
  readonly task?: string;
  /** Which time (from 1, default 1), counting every matching attempt. */
  readonly nth?: number;
  /** Only attempts of this job run (1 = the first); absent: any run. */
  readonly jobRun?: number;
}

export const execution = {
  reaches(state: ExecutionPointState, options: ExecutionPointOptions = {}): ScenarioPoint {
    const s: string = state;
    if (!STATES.includes(s)) {
      throw new SimInputError(`execution.reaches: ${executionStateRefusal(s)}`);
    }
    checkBuilderOptions(`execution.reaches(${s})`, options, OPTIONS);
    const { task, nth = 1, jobRun } = options;
    if (task !== undefined && (typeof task !== 'string' || !TASK_NAME.test(task))) {
      throw new SimInputError(`execution.reaches(${s}, { task: ${JSON.stringify(task)} }): name a task as <vertex>#<subtask> (e.g. v1#0)`);
    }
    for (const [name, v] of [['nth', nth], ['jobRun', jobRun ?? 1]] as const) {
      if (!Number.isSafeInteger(v) || v < 1) {
        throw new SimInputError(`execution.reaches(${s}, { ${name}: ${String(v)} }): ${name} is an integer >= 1`);
      }
    }
    return {
      kind: 'execution', state, ...(task === undefined ? {} : { task }), ...(nth === 1 ? {} : { nth }),
      ...(jobRun === undefined ? {} : { jobRun }),
    };
  },
};
