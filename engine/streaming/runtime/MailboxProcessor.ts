/**
 * The task's mailbox loop on its single mailbox thread. Control actions from other threads
 * (checkpoint triggers, notifications, operator events, timers) enter as mails; between mails
 * the default action processes one input. Mails are taken FIFO (`putFirst` for urgent ones); the
 * default action runs only when no mail is waiting, and is suspended while it reports that
 * nothing is available, until something resumes it.
 *
 * Each step is one task on the mailbox executor. A default-action step may say how long it kept
 * the thread busy (the record's processing cost); the next step starts only after that, so mails
 * that arrive meanwhile wait for the record, as on a real thread.
 *
 * @see org.apache.flink.streaming.runtime.tasks.mailbox.MailboxProcessor, TaskMailboxImpl
 * Invariants: at most one step is scheduled at a time; nothing runs after close().
 */
import type { Executor } from '../../api/Executor.ts';
import { assert } from '../../util/assert.ts';

/** One mail: a labelled action. */
export interface Mail {
  readonly label: string;
  readonly run: () => void;
}

/**
 * The default action: processes one unit of input and returns the µs it took, or `'suspend'`
 * when nothing can be done now (it must arrange a later {@link MailboxProcessor.resume}), or
 * `'done'` when there will never be more input.
 */
export type DefaultAction = () => number | 'suspend' | 'done';

export class MailboxProcessor {
  private readonly mails: Mail[] = [];
  private stepScheduled = false;
  private suspended = true;
  private defaultActionDone = false;
  private closed = false;
  private defaultAction: DefaultAction = () => 'suspend';

  /**
   * @param executor the mailbox thread.
   * @param onError called (on the mailbox thread) when a mail or the default action throws;
   *   the loop stops processing until closed.
   */
  constructor(
    private readonly executor: Executor,
    private readonly onError: (e: unknown) => void,
  ) {}

  /** Installs the default action and starts running it. */
  start(action: DefaultAction): void {
    this.defaultAction = action;
    this.defaultActionDone = false;
    this.resume();
  }

  /** Queues a mail behind the others. Mails to a closed mailbox are dropped. */
  put(mail: Mail): void {
    if (this.closed) return;
    this.mails.push(mail);
    this.ensureStep(0);
  }

  /** Queues a mail ahead of the others (TaskMailbox.putFirst). */
  putFirst(mail: Mail): void {
    if (this.closed) return;
    this.mails.unshift(mail);
    this.ensureStep(0);
  }

  /** The default action may have work again. */
  resume(): void {
    if (this.closed || this.defaultActionDone) return;
    this.suspended = false;
    this.ensureStep(0);
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
    if (this.stepScheduled || this.closed) return;
    this.stepScheduled = true;
    this.executor.execute('mailbox', () => this.step(), delayUs);
  }

  private step(): void {
    this.stepScheduled = false;
    if (this.closed) return;
    let busyUs = 0;
    try {
      const mail = this.mails.shift();
      if (mail !== undefined) {
        mail.run();
      } else if (!this.suspended && !this.defaultActionDone) {
        const r = this.defaultAction();
        if (r === 'suspend') this.suspended = true;
        else if (r === 'done') this.defaultActionDone = true;
        else busyUs = r;
      }
    } catch (e) {
      this.close();
      this.onError(e);
      return;
    }
    if (this.closed) return;
    if (this.mails.length > 0 || (!this.suspended && !this.defaultActionDone)) this.ensureStep(busyUs);
  }
}
