/**
 * `crash(host, { downMs })`: a step action that crashes a TaskManager (`taskmanager-1..N`; the
 * JobManager cannot crash until HA exists). It comes back after `downMs`; without it, after the
 * scenario default (three heartbeat timeouts, compileScenario.ts), not at the heal time as a bare
 * RunSpec crash would (a scenario heals late).
 */
import { checkBuilderOptions } from './builderOptions.ts';
import type { StepAction } from './Scenario.ts';

export function crash(host: string, options: { readonly downMs?: number } = {}): StepAction {
  checkBuilderOptions(`crash(${JSON.stringify(host)})`, options, ['downMs']);
  return options.downMs === undefined ? { type: 'crash', host } : { type: 'crash', host, downMs: options.downMs };
}
