/**
 * A restore that cannot assign the checkpoint's state to the job as it now is: a max parallelism
 * the job configured differently, a parallelism above the state's max parallelism, state of an
 * operator the job no longer has (without allowNonRestoredState), a vertex of finished and
 * unfinished operators. Flink throws an IllegalStateException; the message is one line naming the
 * operator uid and the numbers, so the simulator can report it as the restore's outcome.
 *
 * @see org.apache.flink.runtime.checkpoint.StateAssignmentOperation#checkParallelismPreconditions
 */
import { ExpectedError } from '../util/ExpectedError.ts';

export class StateAssignmentError extends ExpectedError {
  override readonly name = 'StateAssignmentError';
  constructor(
    message: string,
    /** The operator whose state could not be assigned. */
    readonly operatorUid: string,
  ) {
    super(message);
  }
}
