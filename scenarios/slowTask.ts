/**
 * `slowTask(operator, factor, durationMs)`: a step action: the task running operator uid
 * `operator` (its whole chain, every subtask) works at 1/factor of its rate for `durationMs`,
 * back-pressuring its upstream when it is the bottleneck.
 */
import type { StepAction } from './Scenario.ts';

export function slowTask(operator: string, factor: number, durationMs: number): StepAction {
  return { type: 'slow-task', operator, factor, durationMs };
}
