/**
 * `restore(n)`: the point "the n-th restore of the run" (from 1; trace `checkpoint.restored`).
 * `restoreFrom(c)` (restoreFrom.ts) counts only restores from checkpoint `c`.
 * @throws SimInputError when `n` is not an integer >= 1.
 */
import { SimInputError } from '../sim/SimInputError.ts';
import type { ScenarioPoint } from './Scenario.ts';

export function restore(n = 1): ScenarioPoint {
  if (!Number.isSafeInteger(n) || n < 1) throw new SimInputError(`restore(${String(n)}): n is an integer >= 1`);
  return { kind: 'restore', nth: n };
}
