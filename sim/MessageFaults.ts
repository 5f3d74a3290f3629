/**
 * MessageFaults: targeted faults on single RPC messages (lose, delay or hold the n-th message of
 * a method that matches filters), consulted by RpcNetwork when a message is sent. The fault plan
 * arms them (sim/run/FaultPlan.ts); this file knows messages, not RunSpecs, and works in virtual
 * microseconds.
 *
 * A message matches an armed fault when it is a call (answers of asks never match: an answer is
 * the return value of a call, not a method of its own, and Flink's gateways cannot lose one
 * without the call), it is sent before the heal time, and:
 * - its method is the fault's (RpcMethods.ts, aliases resolved by the caller);
 * - with `checkpoint`: the message is about that checkpoint ({@link rpcCheckpointId}); one about
 *   no checkpoint never matches;
 * - with `from` / `to` as a host: the sending / receiving endpoint's host;
 * - with `from` / `to` as a task `<vertex>#<subtask>`: the message names a task attempt of that
 *   subtask on that side ({@link rpcTask}: the sending task of an ack, a decline, a state update
 *   or an operator event to the coordinator; the receiving task of a trigger, a confirmation, an
 *   abort, a submission, a cancellation or an operator event to the task); one that names no
 *   task there never matches.
 *
 * Each armed fault counts the messages that match from when it was armed and acts on the
 * `nth`; then it is spent (a fault acts at most once). Several faults may act on one message:
 * it is lost if any loses it, otherwise its extra delays add up. What a delay or a hold does to
 * the message's arrival is RpcNetwork's (per-link order, the heal time).
 */
import { rpcCheckpointId, rpcTask, type RpcTask } from '../engine/index.ts';

/** A host id (`jobmanager`, `taskmanager-2`) or a subtask `<vertex>#<subtask>`. */
export type MessageEnd = { readonly host: string } | { readonly task: string };

/** What an armed message fault matches. */
export interface MessageFilter {
  /** The engine's method name (aliases already resolved). */
  readonly method: string;
  readonly checkpoint?: number;
  readonly from?: MessageEnd;
  readonly to?: MessageEnd;
  /**
   * Only messages to or from this job run's JobMaster (its address: `jobmaster` for run 1,
   * `jobmaster-<n>` after, JobRun.ts).
   */
  readonly jobMasterAddress?: string;
  /** Acts on the n-th matching message since armed, n >= 1. */
  readonly nth: number;
}

/** What an armed fault does to the message it acts on. */
export type MessageAction =
  | { readonly action: 'lose' }
  | { readonly action: 'delay'; readonly delayUs: number }
  /** Held until `durationUs` after the send, or the heal time when absent or sooner. */
  | { readonly action: 'hold'; readonly durationUs?: number };

/** A message an armed fault acted on, as the fault plan logs it. */
export interface MessageActed {
  /** The message's trace id (`rpc.send` `id`). */
  readonly id: number;
  readonly method: string;
  readonly checkpoint: number | undefined;
  /** The task attempt the message names, if any. */
  readonly attempt: string | undefined;
  readonly action: MessageAction['action'];
  /** For `hold`: when the message goes on (whole µs, at most the heal time). */
  readonly releaseUs?: number;
}

/** The message being sent, as the network sees it. */
export interface OutgoingMessage {
  readonly id: number;
  readonly method: string;
  readonly args: readonly unknown[];
  readonly srcHost: string;
  /** The destination endpoint's host; undefined when no endpoint has the address yet. */
  readonly dstHost: string | undefined;
  /** The sending and receiving endpoints' addresses. */
  readonly from: string;
  readonly to: string;
}

/** What the network does with a message some fault acted on. */
export interface MessageVerdict {
  readonly lose: boolean;
  /** Extra time before the message travels, whole µs (delays and holds). */
  readonly extraUs: number;
}

interface Armed {
  readonly filter: MessageFilter;
  readonly action: MessageAction;
  readonly onAct: (acted: MessageActed) => void;
  seen: number;
}

export class MessageFaults {
  private armed: Armed[] = [];

  /** True while some fault is armed (the network's fast path skips everything else). */
  get active(): boolean {
    return this.armed.length > 0;
  }

  /**
   * Arms a fault: from now on it counts matching messages, and `onAct` runs (synchronously, in
   * the sending task) when it acts on the `filter.nth` one.
   */
  arm(filter: MessageFilter, action: MessageAction, onAct: (acted: MessageActed) => void): void {
    this.armed.push({ filter, action, onAct, seen: 0 });
  }

  /**
   * Counts `m` against every armed fault. Call only for calls (never answers) sent before the
   * heal time.
   * @param nowUs the send time; `healTimeUs` the heal time (holds end there at the latest).
   * @returns undefined when no fault acted, else what to do with `m`.
   */
  onSend(m: OutgoingMessage, nowUs: number, healTimeUs: number): MessageVerdict | undefined {
    let verdict: { lose: boolean; extraUs: number } | undefined;
    let spent = false;
    let checkpoint: number | undefined | null = null;
    let task: RpcTask | undefined | null = null;
    for (const a of this.armed) {
      const f = a.filter;
      if (f.method !== m.method) continue;
      if (f.jobMasterAddress !== undefined && m.from !== f.jobMasterAddress && m.to !== f.jobMasterAddress) continue;
      if (f.checkpoint !== undefined) {
        if (checkpoint === null) checkpoint = rpcCheckpointId(m.method, m.args);
        if (checkpoint !== f.checkpoint) continue;
      }
      if (f.from !== undefined || f.to !== undefined) {
        if (task === null) task = rpcTask(m.method, m.args);
        if (!endMatches(f.from, 'from', m.srcHost, task) || !endMatches(f.to, 'to', m.dstHost, task)) continue;
      }
      a.seen++;
      if (a.seen !== f.nth) continue;
      spent = true;
      verdict ??= { lose: false, extraUs: 0 };
      let releaseUs: number | undefined;
      switch (a.action.action) {
        case 'lose':
          verdict.lose = true;
          break;
        case 'delay':
          verdict.extraUs += a.action.delayUs;
          break;
        case 'hold': {
          const d = a.action.durationUs;
          releaseUs = d === undefined ? healTimeUs : Math.min(nowUs + d, healTimeUs);
          verdict.extraUs += releaseUs - nowUs;
          break;
        }
      }
      if (checkpoint === null) checkpoint = rpcCheckpointId(m.method, m.args);
      if (task === null) task = rpcTask(m.method, m.args);
      a.onAct({
        id: m.id, method: m.method, checkpoint, attempt: task?.attempt, action: a.action.action,
        ...(releaseUs === undefined ? {} : { releaseUs }),
      });
    }
    if (spent) this.armed = this.armed.filter((a) => a.seen < a.filter.nth);
    return verdict;
  }
}

function endMatches(end: MessageEnd | undefined, side: RpcTask['side'], host: string | undefined,
  task: RpcTask | undefined): boolean {
  if (end === undefined) return true;
  if ('host' in end) return host === end.host;
  return task !== undefined && task.side === side && task.attempt.startsWith(`${end.task}@`);
}
