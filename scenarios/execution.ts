/**
 * `execution.reaches(state, { task, nth })`: the point "a task attempt entered this
 * ExecutionState for the nth time" (default the first; of any attempt of `task` when given, else
 * of any task; trace `task.<state in lower case>`). The moment is the Task's own state change on
 * its TaskExecutor (Flink's Task.transitionState), before the JobMaster hears of it: a fault here
 * lands while the report of the change is still in flight.
 * @throws SimInputError for a state no task enters on its TaskExecutor, a task not named
 *   `<vertex>#<subtask>`, or an nth that is not an integer >= 1.
 */
import { EXECUTION_POINT_STATES, TASK_NAME } from '../sim/run/schema/faultSchema.ts';
import { SimInputError } from '../sim/SimInputError.ts';
import type { ScenarioPoint } from './Scenario.ts';

const STATES: readonly string[] = EXECUTION_POINT_STATES;

export const execution = {
  reaches(state: string, options: { readonly task?: string; readonly nth?: number } = {}): ScenarioPoint {
    if (!STATES.includes(state)) {
      throw new SimInputError(`execution.reaches: unknown ExecutionState ${JSON.stringify(state)} (states: ${STATES.join(', ')})`);
    }
    const { task, nth = 1 } = options;
    if (task !== undefined && !TASK_NAME.test(task)) {
      throw new SimInputError(`execution.reaches(${state}, { task: ${JSON.stringify(task)} }): name a task as <vertex>#<subtask> (e.g. v1#0)`);
    }
    if (!Number.isSafeInteger(nth) || nth < 1) {
      throw new SimInputError(`execution.reaches(${state}, { nth: ${String(nth)} }): nth is an integer >= 1`);
    }
    const known = state as typeof EXECUTION_POINT_STATES[number];
    return { kind: 'execution', state: known, ...(task === undefined ? {} : { task }), ...(nth === 1 ? {} : { nth }) };
  },
};
