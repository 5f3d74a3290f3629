/** `pause(host, durationMs)`: a step action: the host (any, the JobManager too) runs nothing for that long. */
import type { StepAction } from './Scenario.ts';

export function pause(host: string, durationMs: number): StepAction {
  return { type: 'pause', host, durationMs };
}
