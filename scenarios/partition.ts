/**
 * `partition(a, b, { durationMs, oneWay })`: a step action cutting RPC and data connections
 * between two hosts (only a to b when `oneWay`) for `durationMs`. The durable stores are not cut.
 */
import type { StepAction } from './Scenario.ts';
import { checkBuilderOptions } from './builderOptions.ts';

export function partition(a: string, b: string, options: { readonly durationMs: number; readonly oneWay?: boolean }): StepAction {
  checkBuilderOptions(`partition(${JSON.stringify(a)}, ${JSON.stringify(b)})`, options, ['durationMs', 'oneWay']);
  return options.oneWay === undefined
    ? { type: 'partition', a, b, durationMs: options.durationMs }
    : { type: 'partition', a, b, oneWay: options.oneWay, durationMs: options.durationMs };
}
