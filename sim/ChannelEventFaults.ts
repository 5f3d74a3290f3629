/**
 * ChannelEventFaults: targeted faults on one data channel's checkpoint events (delay the n-th
 * checkpoint barrier or CancelCheckpointMarker that a chosen task receives, optionally from one
 * chosen upstream task), consulted by the data network when a producer sends a payload. The
 * fault plan arms them (sim/run/FaultPlan.ts); this file knows channels and events, not
 * RunSpecs, and works in virtual microseconds.
 *
 * A payload matches an armed fault when it is a checkpoint event (channelEventOf: a barrier or a
 * cancellation marker), it is sent before the heal time, and:
 * - its kind is the fault's (`barrier` or `cancellation`);
 * - with `checkpoint`: it is about that checkpoint id;
 * - its channel's receiving task attempt is one of subtask `to` (`<vertex>#<subtask>`);
 * - with `from`: its channel's producing task attempt is one of subtask `from`;
 * - with `inRun`: the receiving attempt belongs to that job run (the fault plan decides).
 *
 * Each armed fault counts the payloads that match from when it was armed and acts on the `nth`;
 * then it is spent (a fault acts at most once). Acting delays the event by `delayUs` before it
 * travels (cut at the heal time: faults stop there). The channel is FIFO (DataConnection's
 * lanes), so everything sent on it after the event waits behind it, while the task's other
 * channels go on: the event and what follows it arrive late relative to the other inputs, which
 * is what a slow network path or a slow upstream task does to one channel in Flink.
 */
import { channelEventOf, producerOfSubpartitionKey } from '../engine/index.ts';

/** What an armed channel-event fault matches. */
export interface ChannelEventFilter {
  readonly event: 'barrier' | 'cancellation';
  readonly checkpoint?: number;
  /** The receiving subtask, `<vertex>#<subtask>`. */
  readonly to: string;
  /** The sending subtask, `<vertex>#<subtask>`; absent: any channel into `to`. */
  readonly from?: string;
  /** Only channels whose receiving attempt (`<vertex>#<subtask>@<n>`) this accepts. */
  readonly inRun?: (attempt: string) => boolean;
  /** Acts on the n-th matching event since armed, n >= 1. */
  readonly nth: number;
}

/** An event a fault acted on, as the fault plan logs it. */
export interface ChannelEventActed {
  readonly event: 'barrier' | 'cancellation';
  readonly checkpoint: number;
  /** The producing and the receiving task attempt. */
  readonly from: string;
  readonly to: string;
  /** When the event goes on (whole µs, at most the heal time). */
  readonly releaseUs: number;
}

/** A payload a producer is sending on a data connection. */
export interface OutgoingPayload {
  /** The connection's subpartition key (`e<edge>:<producer attempt>/<subpartition>`). */
  readonly key: string;
  /** The receiving task's executor name (`<host>/mailbox/<attempt>`). */
  readonly consumerExecutor: string;
  readonly payload: unknown;
}

interface Armed {
  readonly filter: ChannelEventFilter;
  readonly delayUs: number;
  readonly onAct: (acted: ChannelEventActed) => void;
  seen: number;
}

const MAILBOX = /\/mailbox\/(v\d+#\d+@\d+)$/;

export class ChannelEventFaults {
  private armed: Armed[] = [];

  /** True while some fault is armed (the network's fast path skips everything else). */
  get active(): boolean {
    return this.armed.length > 0;
  }

  /**
   * Arms a fault: from now on it counts matching events, and `onAct` runs (synchronously, in the
   * sending task) when it acts on the `filter.nth` one.
   * @param delayUs how long the event waits before it travels, whole µs > 0.
   */
  arm(filter: ChannelEventFilter, delayUs: number, onAct: (acted: ChannelEventActed) => void): void {
    this.armed.push({ filter, delayUs, onAct, seen: 0 });
  }

  /**
   * Counts `p` against every armed fault. Call only for payloads sent before the heal time.
   * @param nowUs the send time; `healTimeUs` the heal time (a delay ends there at the latest).
   * @returns the extra time before `p` travels, whole µs (0 when no fault acted).
   */
  onSend(p: OutgoingPayload, nowUs: number, healTimeUs: number): number {
    const e = channelEventOf(p.payload);
    if (e === undefined) return 0;
    const to = MAILBOX.exec(p.consumerExecutor)?.[1];
    const from = producerOfSubpartitionKey(p.key);
    if (to === undefined || from === undefined) return 0;
    let extraUs = 0;
    let spent = false;
    for (const a of this.armed) {
      const f = a.filter;
      if (f.event !== e.event || (f.checkpoint !== undefined && f.checkpoint !== e.checkpointId)) continue;
      if (!to.startsWith(`${f.to}@`) || (f.from !== undefined && !from.startsWith(`${f.from}@`))) continue;
      if (f.inRun !== undefined && !f.inRun(to)) continue;
      a.seen++;
      if (a.seen !== f.nth) continue;
      spent = true;
      // Several faults acting on one event: their delays add up, as message faults' do.
      extraUs = Math.min(extraUs + a.delayUs, Math.max(0, healTimeUs - nowUs));
      a.onAct({ event: e.event, checkpoint: e.checkpointId, from, to, releaseUs: nowUs + extraUs });
    }
    if (spent) this.armed = this.armed.filter((a) => a.seen < a.filter.nth);
    return extraUs;
  }
}
