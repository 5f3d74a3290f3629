/**
 * The task's mailbox loop on its single mailbox thread. Control actions from other threads
 * (checkpoint triggers, notifications, operator events, timers) enter as mails; between mails
 * the default action processes one input. Mails are taken FIFO (`putFirst` for urgent ones)
 * whatever their priority: a priority only limits which mails a nested
 * {@link MailboxProcessor.tryYield} may take, as in Flink's TaskMailbox.take(priority). The
 * default action runs only when no mail is waiting, and is suspended while it reports that
 * nothing is available, until something resumes it.
 *
 * Each step is one task on the mailbox executor. A default-action step may say how long it kept
 * the thread busy (the record's processing cost); the next step starts only after that, so mails
 * that arrive meanwhile wait for the record, as on a real thread.
 *
 * A default-action step may run the default action several times in a row (a batch), as Flink's
 * loop does while no mail is waiting; the step is then busy for the summed cost. The batch ends
 * as soon as a mail is waiting, the action suspends or is done, `maxActions` calls were made, or
 * the task's {@link DefaultActionBatching.canContinue} says no (the end of a network buffer, an
 * event, unavailable output, a processing-time timer falling due within the batch). Batching only
 * saves simulator events: mails still run between records at batch boundaries, which the bounds
 * keep short in virtual time.
 *
 * @see org.apache.flink.streaming.runtime.tasks.mailbox.MailboxProcessor, TaskMailboxImpl,
 *      MailboxExecutorImpl (tryYield)
 * Invariants: at most one step is scheduled at a time; nothing runs after close(); no step
 * starts before the busy time of the previous one has elapsed (also when the action suspended
 * at the end of a batch and is resumed, or a mail comes, while the thread is still busy).
 */
import type { Executor } from '../../api/Executor.ts';
import { assert } from '../../util/assert.ts';

/** The priority of ordinary mails (TaskMailbox.MIN_PRIORITY, the main mailbox executor's). */
export const MIN_PRIORITY = -1;
/** The priority of checkpoint notifications (TaskMailbox.MAX_PRIORITY, Integer.MAX_VALUE). */
export const MAX_PRIORITY = 2 ** 31 - 1;

/** One mail: a labelled action, {@link MIN_PRIORITY} unless given. */
export interface Mail {
  readonly label: string;
  readonly run: () => void;
  readonly priority?: number;
}

/**
 * The default action: processes one unit of input and returns the µs it took, or `'suspend'`
 * when nothing can be done now (it must arrange a later {@link MailboxProcessor.resume}), or
 * `'done'` when there will never be more input.
 */
export type DefaultAction = () => number | 'suspend' | 'done';

/** How many default actions one step may run back to back (see the file comment). */
export interface DefaultActionBatching {
  /** The most default-action calls per step (positive). */
  readonly maxActions: number;
  /**
   * Whether another call may follow in this step, the step having been busy `busyUs` so far.
   * Asked only after a call that returned a cost.
   */
  canContinue(busyUs: number): boolean;
}

/** One default action per step. */
const NO_BATCHING: DefaultActionBatching = Object.freeze({
  maxActions: 1,
  canContinue: () => false,
});

export class MailboxProcessor {
  private readonly mails: Mail[] = [];
  private stepScheduled = false;
  /** True while a step runs: mails put meanwhile are picked up when it ends, after its cost. */
  private inStep = false;
  private suspended = true;
  private defaultActionDone = false;
  private closed = false;
  private defaultAction: DefaultAction = () => 'suspend';
  private batching: DefaultActionBatching = NO_BATCHING;

  /** Virtual time (µs) until which the last step keeps the thread busy. */
  private busyUntilUs = 0;

  /** The step as a task, made once rather than as a new closure per step. */
  private readonly runStep = (): void => this.step();

  /**
   * @param executor the mailbox thread.
   * @param onError called (on the mailbox thread) when a mail or the default action throws;
   *   the loop stops processing until closed.
   * @param nowUs the current virtual time, µs.
   */
  constructor(
    private readonly executor: Executor,
    private readonly onError: (e: unknown) => void,
    private readonly nowUs: () => number,
  ) {}

  /**
   * Installs the default action and starts running it; `batching` lets one step run it several
   * times (default: once per step).
   * @throws AssertionError if `batching.maxActions` is not a positive integer.
   */
  start(action: DefaultAction, batching: DefaultActionBatching = NO_BATCHING): void {
    assert(Number.isInteger(batching.maxActions) && batching.maxActions >= 1,
      () => `maxActions must be a positive integer, got ${batching.maxActions}`);
    this.defaultAction = action;
    this.batching = batching;
    this.defaultActionDone = false;
    this.resume();
  }

  /** Queues a mail behind the others. Mails to a closed mailbox are dropped. */
  put(mail: Mail): void {
    if (this.closed) return;
    this.mails.push(mail);
    this.ensureStep(this.remainingBusyUs());
  }

  /** Queues a mail ahead of the others (TaskMailbox.putFirst). */
  putFirst(mail: Mail): void {
    if (this.closed) return;
    this.mails.unshift(mail);
    this.ensureStep(this.remainingBusyUs());
  }

  /** The default action may have work again. */
  resume(): void {
    if (this.closed || this.defaultActionDone) return;
    this.suspended = false;
    this.ensureStep(this.remainingBusyUs());
  }

  /**
   * From a mail or the default action (on the mailbox thread): runs the first waiting mail whose
   * priority is at least `priority`, skipping the others, and says whether there was one
   * (MailboxExecutor.tryYield; Flink's blocking yield has no run-to-completion counterpart).
   * @throws AssertionError outside a step.
   */
  tryYield(priority: number): boolean {
    assert(this.inStep, 'tryYield outside the mailbox thread');
    const i = this.mails.findIndex((m) => (m.priority ?? MIN_PRIORITY) >= priority);
    if (i < 0) return false;
    const [mail] = this.mails.splice(i, 1);
    mail?.run();
    return true;
  }

  /** Stops the loop; pending mails are dropped and nothing runs any more. */
  close(): void {
    this.closed = true;
    this.mails.length = 0;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Mails waiting, for tests. */
  get pendingMails(): number {
    return this.mails.length;
  }

  checkInvariants(): void {
    assert(!this.closed || this.mails.length === 0, 'a closed mailbox holds mails');
  }

  private ensureStep(delayUs: number): void {
    if (this.stepScheduled || this.inStep || this.closed) return;
    this.stepScheduled = true;
    this.executor.execute('mailbox', this.runStep, delayUs);
  }

  private step(): void {
    this.stepScheduled = false;
    if (this.closed) return;
    let busyUs = 0;
    this.inStep = true;
    try {
      const mail = this.mails.shift();
      if (mail !== undefined) {
        mail.run();
      } else if (!this.suspended && !this.defaultActionDone) {
        busyUs = this.runDefaultActions();
      }
    } catch (e) {
      this.close();
      this.onError(e);
      return;
    } finally {
      this.inStep = false;
    }
    if (this.closed) return;
    if (busyUs > 0) this.busyUntilUs = this.nowUs() + busyUs;
    const more = !this.suspended && !this.defaultActionDone;
    if (this.mails.length > 0 || more) this.ensureStep(busyUs);
  }

  /** How long the thread is still busy with the last step's work, µs. */
  private remainingBusyUs(): number {
    return Math.max(0, this.busyUntilUs - this.nowUs());
  }

  /** Runs the default action once, or as a batch while allowed; returns the summed cost. */
  private runDefaultActions(): number {
    const batching = this.batching;
    const action = this.defaultAction;
    let busyUs = 0;
    for (let calls = 1; ; calls++) {
      const r = action();
      if (r === 'suspend') {
        this.suspended = true;
        return busyUs;
      }
      if (r === 'done') {
        this.defaultActionDone = true;
        return busyUs;
      }
      busyUs += r;
      if (calls >= batching.maxActions || this.closed || this.mails.length > 0 ||
        !batching.canContinue(busyUs)) {
        return busyUs;
      }
    }
  }
}
