/**
 * FullyAcknowledged: reads, trace event by trace event, the moment a checkpoint becomes fully
 * acknowledged, the `jobmaster acknowledged` protocol point: the coordinator handled the last
 * successful ack of a task in the checkpoint's plan, the one it completes the checkpoint on (its
 * `_metadata` write begins then, under the coordinator lock, before `checkpoint.completed`). The
 * engine records no event of its own for it; the plan (`checkpoint.plan`, `waitFor`: the attempt
 * ids the checkpoint waits for) and the acks (`checkpoint.acknowledged`, `task` and `result`) say
 * it, so runs that never name the point record exactly what they did before.
 *
 * A disposed checkpoint records no more acks, so the point is reached exactly when the
 * CheckpointCoordinator calls completePendingCheckpoint (its coordinators acknowledged before
 * any task was triggered). Used live by the fault plan and over a finished trace by scenarios.
 *
 * @see org.apache.flink.runtime.checkpoint.PendingCheckpoint#isFullyAcknowledged
 * Invariants: a checkpoint's set of awaited attempts only shrinks; an emptied one is forgotten.
 */
import { jobRunOf } from '../../engine/index.ts';
import type { TraceEvent } from '../Trace.ts';

/** The trace event types {@link FullyAcknowledged.observe} reads (it ignores every other). */
export const FULLY_ACKNOWLEDGED_EVENTS = ['checkpoint.plan', 'checkpoint.acknowledged'] as const;

/** The tracker; feed it every event of {@link FULLY_ACKNOWLEDGED_EVENTS}, in trace order. */
export class FullyAcknowledged {
  /** `<jobRun>/<checkpointId>` -> the attempts whose successful ack has not come yet. */
  private readonly awaited = new Map<string, Set<string>>();

  /**
   * Takes one event. @returns true when `e` is the ack that leaves its checkpoint with no attempt
   * to wait for (each checkpoint once), false for every other event.
   */
  observe(e: TraceEvent): boolean {
    const key = `${jobRunOf(e.attrs)}/${String(e.attrs['checkpointId'])}`;
    if (e.type === 'checkpoint.plan') {
      const waitFor = String(e.attrs['waitFor'] ?? '');
      this.awaited.set(key, new Set(waitFor === '' ? [] : waitFor.split(',')));
      return false;
    }
    if (e.type !== 'checkpoint.acknowledged' || e.attrs['result'] !== 'SUCCESS') return false;
    const awaited = this.awaited.get(key);
    if (awaited === undefined || !awaited.delete(String(e.attrs['task']))) return false;
    if (awaited.size > 0) return false;
    this.awaited.delete(key);
    return true;
  }
}
