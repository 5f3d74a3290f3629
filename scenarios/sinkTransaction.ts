/**
 * `sinkTransaction(n)`: the points of the n-th sink transaction of the run (from 1, counted
 * across every sink subtask): `preCommitted()` (trace `txn.preCommit`) and `committed()`
 * (`txn.commit`).
 * @throws SimInputError when `n` is not an integer >= 1.
 */
import { SimInputError } from '../sim/SimInputError.ts';
import type { ScenarioPoint } from './Scenario.ts';

export interface SinkTransactionPoints {
  preCommitted(): ScenarioPoint;
  committed(): ScenarioPoint;
}

export function sinkTransaction(n: number): SinkTransactionPoints {
  if (!Number.isSafeInteger(n) || n < 1) throw new SimInputError(`sinkTransaction(${String(n)}): n is an integer >= 1`);
  return {
    preCommitted: () => ({ kind: 'sink', phase: 'pre-committed', nth: n }),
    committed: () => ({ kind: 'sink', phase: 'committed', nth: n }),
  };
}
