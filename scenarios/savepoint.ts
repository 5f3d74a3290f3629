/**
 * `savepoint(n)`: the protocol points of the n-th savepoint step of the scenario (from 1, in step
 * order: the n-th step whose action triggers a savepoint, `triggerSavepoint()`), as plain data
 * for a step's `at` or an `expect.at`. The same builders as `checkpoint(n)` (checkpoint.ts), but
 * about the checkpoint id that savepoint got when the coordinator triggered it, which a scenario
 * cannot know in advance: `savepoint(1).completed()`, `savepoint(1).syncDoneOn('v1#0')`,
 * `savepoint(1).notified()` (which a savepoint never reaches: no task is notified of one).
 * Points of a savepoint that never got an id are never reached. The JSON form is the RunSpec's
 * `{ kind: 'jobmaster', savepoint: n, phase: 'completed' }` (docs/runspec.md, Savepoint points).
 *
 * @throws SimInputError when `n` is not an integer >= 1 (a scenario naming more savepoints than
 *   it has steps for is refused when it is defined).
 */
import { SimInputError } from '../sim/SimInputError.ts';
import { pointsOf, type CheckpointPoints } from './checkpoint.ts';

export function savepoint(n: number): CheckpointPoints {
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new SimInputError(`savepoint(${String(n)}): which savepoint step, an integer >= 1`);
  }
  return pointsOf({ savepoint: n });
}
