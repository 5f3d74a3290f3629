/**
 * The end of a StreamTask whose mailbox loop ended because all its actions completed: its data
 * ended and, with checkpointing on, its final checkpoint (or its synchronous savepoint) was
 * notified (reference 5.7). From there to FINISHED, in Flink's order (StreamTask.afterInvoke,
 * then Task.doRun once invoke returned), all on the task's thread:
 *
 * 1. The mailbox rejects new mails (timers' and notifications' are dropped, a checkpoint trigger
 *    is declined as TASK_CLOSING by the StreamTask), and the mails queued before that run, in
 *    order, whatever their priority. The task still counts as running, so a checkpoint trigger
 *    queued behind the final notification is performed: the operators are finished, so it
 *    snapshots finished state, its barrier goes downstream and its asynchronous part starts.
 *    Dropping those mails instead left such a checkpoint unanswered until it expired.
 * 2. The task stops counting as running (a later async failure is then not declined) and its
 *    outputs are flushed.
 * 3. With checkpoints after tasks finish, the thread waits for every asynchronous checkpoint part
 *    still running to end (acknowledged, failed or discarded): the wait ends in a task of the
 *    thread once the last one ended; with none running it goes on at once.
 * 4. Each output partition gets EndOfPartition and the task reports FINISHED, unless it was
 *    canceled or failed meanwhile.
 *
 * @see org.apache.flink.streaming.runtime.tasks.StreamTask#afterInvoke,
 *      org.apache.flink.streaming.runtime.tasks.SubtaskCheckpointCoordinatorImpl#waitForPendingCheckpoints,
 *      org.apache.flink.runtime.taskmanager.Task#doRun
 */
import type { Executor } from '../../api/Executor.ts';
import type { ResultPartition } from '../../io/ResultPartition.ts';
import type { MailboxProcessor } from './MailboxProcessor.ts';
import type { SubtaskCheckpointCoordinator } from './SubtaskCheckpointCoordinator.ts';

/** What afterInvoke needs of its StreamTask. */
export interface FinishingStreamTask {
  readonly mailbox: MailboxProcessor;
  /** The task's (mailbox) thread, where the wait for pending checkpoints ends. */
  readonly executor: Executor;
  readonly checkpointCoordinator: SubtaskCheckpointCoordinator;
  readonly partitions: readonly ResultPartition[];
  /** Flink's areCheckpointsWithFinishedTasksEnabled: checkpointing on, and checkpoints after tasks finish. */
  readonly checkpointsWithFinishedTasks: boolean;
  /** The task was canceled or failed (and cleaned up): it does not finish. */
  isCleanedUp(): boolean;
  /** StreamTask's isRunning = false. */
  stopRunning(): void;
  /** Reports the task FINISHED (its partitions have ended). */
  finished(): void;
}

/**
 * Runs the steps of the file comment for `task`. Called on the task's thread right after the
 * mailbox's poison mail ran (MailboxProcessor.allActionsCompleted's `afterLoop`). What a drained
 * mail throws propagates (the mailbox step fails the task).
 */
export function afterInvoke(task: FinishingStreamTask): void {
  const { mailbox } = task;
  // Flink quiesces the timer services first; here a timer's mail is rejected like any other.
  mailbox.prepareClose();
  mailbox.drain();
  if (task.isCleanedUp()) return;
  task.stopRunning();
  for (const p of task.partitions) p.flushAll();
  const pending = task.checkpointsWithFinishedTasks ? task.checkpointCoordinator.pendingCheckpointsFinished() : undefined;
  if (pending === undefined) {
    endInvoke(task);
    return;
  }
  // The thread blocks in Flink; the async thread's completion wakes it: a hop back to the thread.
  pending.whenCompleteAsync(task.executor, 'pending-checkpoints-finished', () => endInvoke(task));
}

/** Task.doRun after invoke returned: EndOfPartition on every output, then FINISHED. */
function endInvoke(task: FinishingStreamTask): void {
  if (task.isCleanedUp()) return;
  for (const p of task.partitions) p.finish();
  task.finished();
}
