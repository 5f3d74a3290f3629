/**
 * `coordinatorStall(durationMs, operator?)`: a step action: the coordinator thread of source
 * `operator` (absent: the job's first source) is busy with enumerator work for `durationMs`, so
 * split requests, the coordinator's checkpoint snapshot and its notifications wait behind it.
 */
import type { StepAction } from './Scenario.ts';

export function coordinatorStall(durationMs: number, operator?: string): StepAction {
  return { type: 'coordinator-stall', durationMs, ...(operator === undefined ? {} : { operator }) };
}
