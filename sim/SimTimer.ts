/**
 * SimTimer: a one-shot timer of an executor (a ScheduledExecutorService task). It is its own lane
 * in the event queue; when due, its task runs on the executor (at once if the executor is idle,
 * else behind the executor's queue). It dies with its host incarnation.
 *
 * Invariants: `pending` is true exactly while the timer sits in the queue; cancelling twice or
 * after it fired does nothing.
 */
import { assert } from '../engine/api/index.ts';
import type { Cancellable } from '../engine/api/index.ts';
import { QueueEntry } from './EventQueue.ts';
import type { SimContext } from './SimContext.ts';
import type { SimHost } from './SimHost.ts';

/** What a timer runs its task on: an executor, or a pool (which hands it to a worker). */
export interface TimerTarget {
  /** Runs `task` at once if idle (a timer waking the thread), else queues it. */
  runOrQueue(label: string, task: () => void): void;
}

export class SimTimer extends QueueEntry implements Cancellable {
  private label = '';
  private task: (() => void) | undefined;
  /** The trace's current cause when the timer was started: its task's cause. */
  private cause = -1;

  constructor(
    private readonly ctx: SimContext,
    /** The host whose incarnation the timer dies with. */
    readonly host: SimHost,
    private readonly executor: TimerTarget,
    /** The executor's (or pool's) name, for {@link laneKey}. */
    private readonly targetName = '',
  ) {
    super();
  }

  /**
   * `timer:<executor>:<label>`: the timers of one kind on one thread are one lane for a priority
   * schedule (labels are stable texts without ids), so a periodic trigger, a checkpoint's
   * canceller or a heartbeat keeps its rank against the thread's other work from one firing to
   * the next, as one timer thread of Flink's would.
   */
  laneKey(): string {
    return `timer:${this.targetName}:${this.label}`;
  }

  /** Queues the timer `delayUs` from now. */
  start(label: string, delayUs: number, task: () => void): void {
    this.label = label;
    this.task = task;
    this.cause = this.ctx.trace.cause;
    this.ctx.queue.push(this, this.ctx.clock.nowUs + delayUs);
  }

  get pending(): boolean {
    return this.heapIndex >= 0;
  }

  cancel(): void {
    if (this.heapIndex < 0) return;
    this.ctx.queue.remove(this);
    this.task = undefined;
  }

  fire(): void {
    const task = this.task as () => void;
    this.task = undefined;
    this.ctx.trace.cause = this.cause;
    this.executor.runOrQueue(this.label, task);
  }

  /** The host crashed: leave the queue without firing. */
  kill(): void {
    this.ctx.queue.remove(this);
    this.task = undefined;
  }
}

const NOT_PENDING: Cancellable = Object.freeze({ cancel: () => {}, pending: false });

/**
 * `Executor.schedule` of an executor or pool `target` named `name`: a SimTimer `delayUs` (whole
 * µs, at least 0) from now that runs `task` on `target`; nothing (a timer that is not pending)
 * when the target is dead. Shared so both kinds of executor check and schedule alike.
 * @throws AssertionError when `delayUs` is not a non-negative safe integer (an engine bug).
 */
export function scheduleTimer(
  ctx: SimContext, host: SimHost, target: TimerTarget, name: string, dead: boolean,
  label: string, delayUs: number, task: () => void,
): Cancellable {
  if (!(Number.isSafeInteger(delayUs) && delayUs >= 0)) {
    assert(false, `${name}: schedule ${label}: delayUs must be a non-negative integer, got ${delayUs}`);
  }
  if (dead) return NOT_PENDING;
  const timer = new SimTimer(ctx, host, target, name);
  timer.start(label, delayUs, task);
  return timer;
}
