/**
 * `restoreFrom(c, { nth })`: the point "the nth restore (default the first) from checkpoint c"
 * (trace `checkpoint.restored` with that checkpoint id).
 * @throws SimInputError when `c` or `nth` is not an integer >= 1.
 */
import { checkBuilderOptions } from './builderOptions.ts';
import { SimInputError } from '../sim/SimInputError.ts';
import type { ScenarioPoint } from './Scenario.ts';

export function restoreFrom(c: number, options: { readonly nth?: number } = {}): ScenarioPoint {
  if (!Number.isSafeInteger(c) || c < 1) throw new SimInputError(`restoreFrom(${String(c)}): a checkpoint id is an integer >= 1`);
  checkBuilderOptions(`restoreFrom(${c})`, options, ['nth']);
  const nth = options.nth ?? 1;
  if (!Number.isSafeInteger(nth) || nth < 1) throw new SimInputError(`restoreFrom(${c}, { nth: ${String(nth)} }): nth is an integer >= 1`);
  return nth === 1 ? { kind: 'restore', checkpoint: c } : { kind: 'restore', checkpoint: c, nth };
}
