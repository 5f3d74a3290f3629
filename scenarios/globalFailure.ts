/** `globalFailure()`: a step action: a global failover, handled as a mail on the JobMaster main thread. */
import type { StepAction } from './Scenario.ts';

export function globalFailure(): StepAction {
  return { type: 'global-failure' };
}
