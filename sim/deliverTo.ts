/**
 * How the sim hands something that arrived (a network payload or credit, an RPC message, an
 * object-store outcome) to the executor that must handle it: at once when that executor is idle,
 * as a timer wakes a thread (SimExecutor.runOrQueue), else queued behind its tasks. Either way
 * it runs at this virtual instant or after the tasks already submitted, so the executor's FIFO
 * order holds; running at once saves the event queue one event per delivery.
 */
import type { Executor } from '../engine/api/index.ts';
import { SimExecutor } from './SimExecutor.ts';

/** Runs `task` labelled `label` on `executor` now if it is an idle SimExecutor, else queues it. */
export function deliverTo(executor: Executor, label: string, task: () => void): void {
  if (executor instanceof SimExecutor) executor.runOrQueue(label, task);
  else executor.execute(label, task);
}
