/**
 * The task's mailbox loop on its single mailbox thread. Control actions from other threads
 * (checkpoint triggers, notifications, operator events, timers) enter as mails; between mails
 * the default action processes one input element per call. A step takes every mail waiting when
 * it starts (a round: Flink's createBatch), runs them in the order they were put (`putFirst` for
 * urgent ones) whatever their priority, then calls the default action; mails put meanwhile wait
 * for the next round. A priority only limits which mails a nested
 * {@link MailboxProcessor.tryYield} may take, as in Flink's TaskMailbox.take(priority). The
 * default action is suspended while it reports that nothing is available, until resumed.
 *
 * Time. A call of the default action returns the µs it keeps the thread busy (one record's
 * processing cost, or 0 for taking a buffer or an event). Its effects happen when it is called;
 * the thread then pays the cost before it takes the next mail or makes the next call, as a real
 * thread would: a mail that arrives while a record is processed waits for that record only, and
 * one that arrives just as a record ends comes before the next record.
 *
 * Lazy batches. One simulator event per record would make runs several times slower, and the
 * engine must not look into the sim's event queue to learn whether a mail is coming. So after a
 * call that cost c, the task's {@link DefaultActionBatching} says how many further calls n, each
 * costing c, could run late with nothing outside the task able to tell (StreamTask.lazyRecords:
 * no buffer leaves, no request goes out, input and output stay available). The thread pays for
 * the call and those n in one preemptible executor task of n + 1 parts of c
 * (Executor.executePreemptible), and makes the n calls lazily when it ends: the k-th at virtual
 * time T0 + k·c, which {@link MailboxProcessor.currentTimeUs} reports while it runs (the task's
 * clock and processing-time service read it, so operators see each record's own time), at real
 * time T0 + (n + 1)·c. A mail put meanwhile preempts the task: the thread stops at the end of the
 * part in progress, makes the calls whose parts were paid (exactly those that started before the
 * mail arrived) and takes the mail. So a trigger, a notification or an abort is handled between
 * any two records, as Flink's loop checks for mail between default actions, at one event per
 * batch. Under a slowdown the parts take longer; the lazy calls' times are then spread evenly
 * over the batch's real span.
 *
 * Limits, each bounded by one batch (at most one network buffer of records): other work on the
 * thread (the output flusher, network credit, availability callbacks, a cancel) is not a mail
 * and queues behind the batch as behind any costly task, so the flusher sends what was processed
 * by the batch's end; where the batching cannot see every effect of a call (an operator emitting
 * several records per input), a lazy call may finish a buffer, which then leaves at the batch's
 * end, or find the output full, and the thread then stops early (the rest of the batch counted
 * as busy); a consumer hands a buffer back when the batch with its last record ends, one
 * record's cost late (StreamTask); and a timer that a lazy call sets for a time the batch has
 * passed fires at its end.
 *
 * The end (TaskMailbox's OPEN -> QUIESCED -> CLOSED). {@link MailboxProcessor.allActionsCompleted}
 * puts a poison mail first: once it ran, the loop ends (no further mail of its round runs as part
 * of the loop, the default action is not called again) and the code after the loop runs in the
 * same step, on the thread, as Flink's StreamTask.afterInvoke follows runMailboxLoop.
 * {@link MailboxProcessor.prepareClose} then rejects new mails, and
 * {@link MailboxProcessor.drain} runs every mail still queued, in order, whatever its priority.
 * {@link MailboxProcessor.close} (the task's cleanup, or a failure) drops whatever is left.
 *
 * What a mail or the default action throws fails the task (`onError`), as in Flink, except an
 * AssertionError: that is a bug of the engine (or of the job's use of the engine's `assert`),
 * which stops the run so that the harness reports it as a counterexample instead of a failover.
 *
 * @see org.apache.flink.streaming.runtime.tasks.mailbox.MailboxProcessor, TaskMailboxImpl,
 *      MailboxExecutorImpl (tryYield)
 * Invariants: at most one step or batch is queued at a time; nothing runs after close(); a batch
 * in flight is the queued step; a lazily made call costs what its batch was paid for; mails run
 * in the order they were put, except those a nested tryYield takes; a quiesced mailbox's loop has
 * ended.
 */
import type { Executor, PreemptibleTask } from '../../api/Executor.ts';
import { NO_EVENT, type EventRef, type Tracer } from '../../api/Tracer.ts';
import { assert, AssertionError } from '../../util/assert.ts';

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

/** Which calls of the default action may run lazily (see the file comment). */
export interface DefaultActionBatching {
  /**
   * Asked right after a call that returned `costUs` > 0, with no mail waiting: how many further
   * calls may run lazily, each then returning exactly `costUs`. A non-negative integer; 0 runs
   * the next call at its own time, in a step of its own.
   */
  lazyCalls(costUs: number): number;
  /**
   * The thread has made a batch's lazy calls (the batch ended or a mail cut it short), before
   * it takes mails or calls the default action again: the task may do work that waited for the
   * batch on the same thread (StreamTask runs an output flusher that fell due meanwhile).
   */
  batchEnded(): void;
}

/** Every call in its own step. */
const NO_BATCHING: DefaultActionBatching = Object.freeze({
  lazyCalls: () => 0,
  batchEnded: () => {},
});

/** TaskMailbox.State: OPEN takes mails; QUIESCED rejects new ones but runs the queued ones; CLOSED. */
type MailboxState = 'OPEN' | 'QUIESCED' | 'CLOSED';

/** A mail as queued: with the trace event behind the work that put it (Tracer.current). */
interface QueuedMail {
  readonly mail: Mail;
  readonly cause: EventRef;
}

export class MailboxProcessor {
  /** Mails put and not yet taken into a round (TaskMailboxImpl's queue). */
  private readonly mails: QueuedMail[] = [];
  /** The mails the running step took to run (TaskMailboxImpl's batch). */
  private round: QueuedMail[] = [];
  /** A step or a batch is queued on the executor. */
  private stepScheduled = false;
  /** True while a step runs: mails put meanwhile are picked up when it ends. */
  private inStep = false;
  /** True while a round's mails run: a mail put first goes ahead of the rest of the round. */
  private inRound = false;
  private suspended = true;
  private defaultActionDone = false;
  private state: MailboxState = 'OPEN';
  /** False once the poison mail ran (MailboxProcessor.mailboxLoopRunning). */
  private loopRunning = true;
  /** What runs after the loop ended (set by allActionsCompleted), until it ran. */
  private afterLoop: (() => void) | undefined;
  private defaultAction: DefaultAction = () => 'suspend';
  private batching: DefaultActionBatching = NO_BATCHING;
  /** The batch being paid for, preempted when a mail comes. */
  private batch: PreemptibleTask | undefined;
  private batchStartUs = 0;
  private batchCostUs = 0;
  /** The virtual time of the lazy call running now, or -1 outside lazy calls. */
  private lazyTimeUs = -1;

  /** The step and the batch's end as tasks, made once rather than as closures per step. */
  private readonly runStep = (): void => {
    this.stepScheduled = false;
    this.run(0);
  };
  private readonly batchPaid = (paidUnits: number): void => {
    this.batch = undefined;
    this.stepScheduled = false;
    this.run(paidUnits - 1);
  };

  /**
   * @param executor the mailbox thread.
   * @param onError called (on the mailbox thread) when a mail or the default action throws
   *   anything but an AssertionError (that one propagates out of the step and stops the run);
   *   the loop stops processing until closed.
   * @param nowUs the current virtual time, µs.
   * @param tracer when given, each mail runs caused by the work that put it (a round runs several
   *   mails in one task of the thread, so the sim's lanes cannot tell their causes apart).
   */
  constructor(
    private readonly executor: Executor,
    private readonly onError: (e: unknown) => void,
    private readonly nowUs: () => number,
    private readonly tracer?: Pick<Tracer, 'current' | 'causedBy'>,
  ) {}

  /**
   * Installs the default action and starts running it; `batching` lets calls run lazily
   * (default: every call in its own step).
   */
  start(action: DefaultAction, batching: DefaultActionBatching = NO_BATCHING): void {
    this.defaultAction = action;
    this.batching = batching;
    this.defaultActionDone = false;
    this.resume();
  }

  /**
   * Queues a mail behind the others. A mailbox that is no longer open drops it (Flink's put
   * throws, and every caller but a checkpoint trigger swallows that; a trigger checks
   * {@link acceptsMails} first).
   */
  put(mail: Mail): void {
    if (this.state !== 'OPEN') return;
    this.mails.push(this.queued(mail));
    this.mailArrived();
  }

  /**
   * Queues a mail ahead of the others (TaskMailbox.putFirst): from the mailbox thread, ahead of
   * the mails of the running round too.
   */
  putFirst(mail: Mail): void {
    if (this.state !== 'OPEN') return;
    if (this.inRound) this.round.unshift(this.queued(mail));
    else this.mails.unshift(this.queued(mail));
    this.mailArrived();
  }

  private queued(mail: Mail): QueuedMail {
    return { mail, cause: this.tracer?.current() ?? NO_EVENT };
  }

  /**
   * Runs `q`'s mail caused by the work that put it, then gives the step back its own cause (a
   * mail a nested tryYield ran is not the cause of the rest of the mail that yielded). A mail
   * that throws keeps its cause: the task's failure is its doing.
   */
  private runQueued(q: QueuedMail): void {
    const tracer = this.tracer;
    if (tracer === undefined) {
      q.mail.run();
      return;
    }
    const before = tracer.current();
    tracer.causedBy(q.cause);
    q.mail.run();
    tracer.causedBy(before);
  }

  /**
   * The default action may have work again. Called on the mailbox thread (an availability
   * listener), so when the thread is idle the step runs at once, within the caller's task,
   * which spares the simulator the event of a queued step.
   */
  resume(): void {
    if (this.closed || this.defaultActionDone || !this.loopRunning) return;
    this.suspended = false;
    if (this.stepScheduled || this.inStep) return;
    this.run(0);
  }

  /**
   * The virtual time of the work on the thread now: a lazy call's own time while it runs (see
   * the file comment), else the clock's.
   */
  currentTimeUs(): number {
    return this.lazyTimeUs >= 0 ? this.lazyTimeUs : this.nowUs();
  }

  /**
   * From a mail or the default action (on the mailbox thread): runs the first waiting mail whose
   * priority is at least `priority`, skipping the others, and says whether there was one
   * (MailboxExecutor.tryYield; Flink's blocking yield has no run-to-completion counterpart).
   * @throws AssertionError outside a step.
   */
  tryYield(priority: number): boolean {
    assert(this.inStep, 'tryYield outside the mailbox thread');
    const mail = takeFirst(this.round, priority) ?? takeFirst(this.mails, priority);
    if (mail === undefined) return false;
    this.runQueued(mail);
    return true;
  }

  /**
   * Ends the loop (MailboxProcessor.allActionsCompleted): a poison mail goes first; once it ran,
   * `afterLoop` runs in the same step (the rest of StreamTask.invoke after runMailboxLoop). Only
   * the first call counts; ignored unless the mailbox is open.
   */
  allActionsCompleted(afterLoop: () => void): void {
    if (this.state !== 'OPEN' || this.afterLoop !== undefined || !this.loopRunning) return;
    this.afterLoop = afterLoop;
    this.putFirst({ label: 'poison-mail', priority: MAX_PRIORITY, run: () => { this.loopRunning = false; } });
  }

  /**
   * From the code after the loop: new mails are rejected from now on, the queued ones stay for
   * {@link drain} (TaskMailbox.quiesce, as MailboxProcessor.prepareClose).
   * @throws AssertionError while the loop runs.
   */
  prepareClose(): void {
    assert(!this.loopRunning, 'prepareClose while the mailbox loop runs');
    if (this.state === 'OPEN') this.state = 'QUIESCED';
  }

  /**
   * From the code after the loop, on the mailbox thread: runs every mail still queued (the rest
   * of the round, then the queue) in order, whatever its priority (MailboxProcessor.drain). What
   * a mail throws propagates: the drain stops there and the step fails the task.
   * @throws AssertionError unless the mailbox was prepared to close and this is its thread.
   */
  drain(): void {
    assert(this.state === 'QUIESCED' && this.inStep, 'drain needs a quiesced mailbox, on its thread');
    const drained = this.round.concat(this.mails.splice(0));
    this.round = [];
    for (const mail of drained) {
      if (this.closed) return;
      this.runQueued(mail);
    }
  }

  /** Stops the loop; pending mails are dropped and nothing runs any more. */
  close(): void {
    this.state = 'CLOSED';
    this.mails.length = 0;
    this.round.length = 0;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** True while put mails are taken (TaskMailbox state OPEN): a trigger put now will run. */
  get acceptsMails(): boolean {
    return this.state === 'OPEN';
  }

  private get closed(): boolean {
    return this.state === 'CLOSED';
  }

  /** Mails waiting, for tests. */
  get pendingMails(): number {
    return this.mails.length + this.round.length;
  }

  checkInvariants(): void {
    assert(!this.closed || this.pendingMails === 0, 'a closed mailbox holds mails');
    assert(this.state !== 'QUIESCED' || !this.loopRunning, 'a quiesced mailbox whose loop runs');
    assert(this.inStep || this.round.length === 0, 'a round of mails outside a step');
    assert(this.batch === undefined || this.stepScheduled, 'a batch in flight is not queued');
    assert(this.lazyTimeUs < 0 || this.inStep, 'a lazy time outside a step');
  }

  /** A mail came: a batch being paid for stops at the end of its record; else a step runs. */
  private mailArrived(): void {
    if (this.batch !== undefined) this.batch.preempt();
    else this.ensureStep();
  }

  private ensureStep(): void {
    if (this.stepScheduled || this.inStep || this.closed || !this.loopRunning) return;
    this.stepScheduled = true;
    this.executor.execute('mailbox', this.runStep);
  }

  /**
   * Makes the `owedCalls` calls of a paid batch, runs the mails waiting now, then a round of the
   * default action (Flink's loop: processMail takes every mail queued when it starts, then the
   * default action runs once; mails put meanwhile wait for the next round).
   */
  private run(owedCalls: number): void {
    if (this.closed || !this.loopRunning) return;
    this.inStep = true;
    try {
      if (owedCalls > 0) {
        this.catchUp(owedCalls);
        if (!this.closed) this.batching.batchEnded();
      }
      if (this.mails.length > 0) this.runMails();
      if (!this.loopRunning) this.endLoop();
      else if (!this.closed && !this.suspended && !this.defaultActionDone) this.runDefaultAction();
    } catch (e) {
      // A programmer error stops the run (DESIGN.md: an engine assertion is a counterexample);
      // failing the task instead would hide it behind a failover. Anything else a mail or the
      // user's function throws fails the task, as in Flink.
      if (e instanceof AssertionError) throw e;
      this.lazyTimeUs = -1;
      this.inRound = false;
      this.round = [];
      this.close();
      this.onError(e);
      return;
    } finally {
      this.inStep = false;
    }
    if (this.closed || this.stepScheduled) return;
    if (this.mails.length > 0 || (!this.suspended && !this.defaultActionDone)) this.ensureStep();
  }

  /**
   * Takes every mail queued now into a round and runs them (mails they put wait). Once the
   * poison mail ran, the rest of the round goes back ahead of the queue, for the drain.
   */
  private runMails(): void {
    this.round = this.mails.splice(0);
    this.inRound = true;
    for (let mail = this.round.shift(); mail !== undefined; mail = this.round.shift()) {
      this.runQueued(mail);
      if (this.closed || !this.loopRunning) break;
    }
    this.inRound = false;
    if (!this.loopRunning) this.mails.unshift(...this.round);
    this.round = [];
  }

  /** The poison mail ran: the code after the loop runs now, on the thread, once. */
  private endLoop(): void {
    const afterLoop = this.afterLoop;
    this.afterLoop = undefined;
    this.defaultActionDone = true;
    afterLoop?.();
  }

  /**
   * Calls the default action now until a call costs something (the thread then pays for it,
   * with a lazy batch when the batching allows), suspends or ends, or a mail is waiting.
   */
  private runDefaultAction(): void {
    const action = this.defaultAction;
    for (;;) {
      const r = action();
      if (r === 'suspend') {
        this.suspended = true;
        return;
      }
      if (r === 'done') {
        this.defaultActionDone = true;
        return;
      }
      if (r > 0) {
        this.payFor(r);
        return;
      }
      if (this.closed || this.mails.length > 0) return;
    }
  }

  /** Pays `costUs` for the call just made, with the lazy calls the batching allows after it. */
  private payFor(costUs: number): void {
    const lazy = this.closed || this.mails.length > 0 ? 0 : this.batching.lazyCalls(costUs);
    assert(Number.isInteger(lazy) && lazy >= 0,
      () => `lazyCalls must be a non-negative integer, got ${lazy}`);
    this.stepScheduled = true;
    if (lazy === 0) {
      this.executor.execute('mailbox', this.runStep, costUs);
      return;
    }
    this.batchStartUs = this.nowUs();
    this.batchCostUs = costUs;
    this.batch = this.executor.executePreemptible('mailbox', costUs, lazy + 1, this.batchPaid);
  }

  /**
   * Makes the `n` lazy calls a batch paid for, each at its own virtual time. Without slowdowns
   * the batch's real span is (n + 1) parts of its cost, so the k-th call's time is exact.
   */
  private catchUp(n: number): void {
    const startUs = this.batchStartUs;
    const spanUs = this.nowUs() - startUs;
    const costUs = this.batchCostUs;
    const action = this.defaultAction;
    try {
      for (let k = 1; k <= n; k++) {
        if (this.closed || this.suspended || this.defaultActionDone) return;
        this.lazyTimeUs = startUs + Math.round((spanUs * k) / (n + 1));
        const r = action();
        // A batching that cannot see every effect of a call (an operator emitting several
        // records, say) may let one run into a full output; the thread then simply stops.
        if (r === 'suspend') this.suspended = true;
        else if (r === 'done') this.defaultActionDone = true;
        else if (r !== costUs) assert(false, `a lazy call cost ${r} us, its batch ${costUs} us`);
      }
    } finally {
      this.lazyTimeUs = -1;
    }
  }
}

/** Removes and returns the first mail of `queue` whose priority is at least `priority`. */
function takeFirst(queue: QueuedMail[], priority: number): QueuedMail | undefined {
  const i = queue.findIndex((q) => (q.mail.priority ?? MIN_PRIORITY) >= priority);
  return i < 0 ? undefined : queue.splice(i, 1)[0];
}
