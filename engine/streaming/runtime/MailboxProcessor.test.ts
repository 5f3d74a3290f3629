import { describe, expect, test } from 'vitest';
import type { Cancellable, Executor, PreemptibleTask } from '../../api/Executor.ts';
import { NO_EVENT, type EventRef } from '../../api/Tracer.ts';
import { assert, AssertionError } from '../../util/assert.ts';
import { MailboxProcessor, MAX_PRIORITY, MIN_PRIORITY } from './MailboxProcessor.ts';

interface Queued {
  readonly task: () => void;
  costUs: number;
  /** Set for a preemptible task: its part cost and the parts it will pay. */
  readonly preemptible?: { readonly unitCostUs: number; parts: number };
}

/**
 * A single-thread executor stepped by hand that honours task costs: a task becomes due its cost
 * after it reaches the head of the queue; a preemptible task preempted while it pays is due at
 * the end of the part in progress.
 */
class TestingCostExecutor implements Executor {
  readonly name = 'test/mailbox';
  readonly alive = true;
  nowUs = 0;
  /** Tasks run so far (each would be one simulator event). */
  ran = 0;
  private readonly queue: Queued[] = [];
  private headSinceUs = 0;

  execute(_label: string, task: () => void, costUs = 0): void {
    this.push({ task, costUs });
  }

  executePreemptible(
    _label: string, unitCostUs: number, units: number, task: (paidUnits: number) => void,
  ): PreemptibleTask {
    const preemptible = { unitCostUs, parts: units };
    const entry: Queued = { task: () => task(preemptible.parts), costUs: unitCostUs * units, preemptible };
    this.push(entry);
    return { preempt: () => this.preempt(entry) };
  }

  schedule(): Cancellable {
    throw new Error('not used');
  }

  block(): Executor {
    throw new Error('not used');
  }

  /** Runs the head task at its due time; returns false when idle. */
  runNext(): boolean {
    const head = this.queue.shift();
    if (head === undefined) return false;
    this.nowUs = Math.max(this.nowUs, this.headSinceUs + head.costUs);
    this.headSinceUs = this.nowUs;
    this.ran++;
    head.task();
    return true;
  }

  /** Runs every task due by `timeUs`, then moves the clock there. */
  runUntil(timeUs: number): void {
    for (let head = this.queue[0]; head !== undefined && this.headSinceUs + head.costUs <= timeUs; head = this.queue[0]) {
      this.runNext();
    }
    this.nowUs = timeUs;
  }

  runAll(): void {
    while (this.runNext());
  }

  private push(entry: Queued): void {
    if (this.queue.length === 0) this.headSinceUs = this.nowUs;
    this.queue.push(entry);
  }

  private preempt(entry: Queued): void {
    const i = this.queue.indexOf(entry);
    const p = entry.preemptible;
    if (i < 0 || p === undefined) return;
    const paidUs = i === 0 ? this.nowUs - this.headSinceUs : 0;
    p.parts = Math.min(p.parts, Math.max(1, Math.ceil(paidUs / p.unitCostUs)));
    entry.costUs = p.parts * p.unitCostUs;
  }
}

/** A mailbox whose default action processes `records` records of `costUs` each, logging them. */
function setup(o: { records: number; costUs: number; lazyCalls?: (costUs: number) => number }) {
  const executor = new TestingCostExecutor();
  const log: string[] = [];
  const mailbox = new MailboxProcessor(executor, (e) => { throw e; }, () => executor.nowUs);
  let processed = 0;
  const mail = (label: string, priority?: number) => ({
    label,
    ...(priority === undefined ? {} : { priority }),
    run: () => log.push(`${label}@${executor.nowUs} after ${processed}`),
  });
  mailbox.start(() => {
    if (processed === o.records) return 'done';
    processed++;
    log.push(`r${processed}@${mailbox.currentTimeUs()}`);
    return o.costUs;
  }, { lazyCalls: o.lazyCalls ?? (() => 9), batchEnded: () => {} });
  return { executor, log, mailbox, mail, processed: () => processed };
}

describe('MailboxProcessor: lazy batches', () => {
  test('the records of a batch run at their own virtual times, in one executor task per batch', () => {
    const { executor, log } = setup({ records: 8, costUs: 10, lazyCalls: () => 3 });
    executor.runAll();
    expect(log).toEqual(['r1@0', 'r2@10', 'r3@20', 'r4@30', 'r5@40', 'r6@50', 'r7@60', 'r8@70']);
    // r1 runs within start (an idle thread resumes at once); then the batch ending at 40
    // (lazily r2-r4, then r5) and the batch ending at 80 (lazily r6-r8, then the call that
    // finds the end of input).
    expect(executor.ran).toBe(2);
  });

  test('a mail put during a batch is taken when the record in progress ends, after exactly the '
    + 'records that started before it came (Flink checks for mail between default actions)', () => {
    const { executor, log, mailbox, mail } = setup({ records: 20, costUs: 10 });
    executor.runUntil(35);
    mailbox.put(mail('trigger'));
    executor.runAll();
    expect(log.slice(0, 6)).toEqual(['r1@0', 'r2@10', 'r3@20', 'r4@30', 'trigger@40 after 4', 'r5@40']);
    expect(log.filter((l) => l.startsWith('r'))).toHaveLength(20);
  });

  test('a mail put just as a record ends comes before the record that starts then', () => {
    const { executor, log, mailbox, mail } = setup({ records: 20, costUs: 10 });
    executor.runUntil(30);
    mailbox.put(mail('notify'));
    executor.runAll();
    expect(log.slice(0, 5)).toEqual(['r1@0', 'r2@10', 'r3@20', 'notify@30 after 3', 'r4@30']);
  });

  test('a mail put before the first record took its cost waits for that record only', () => {
    const { executor, log, mailbox, mail } = setup({ records: 20, costUs: 10 });
    executor.runUntil(1);
    mailbox.put(mail('abort'));
    executor.runAll();
    expect(log.slice(0, 3)).toEqual(['r1@0', 'abort@10 after 1', 'r2@10']);
  });

  test('a lazy call that suspends ends the batch; resume goes on', () => {
    const executor = new TestingCostExecutor();
    const log: string[] = [];
    const mailbox = new MailboxProcessor(executor, (e) => { throw e; }, () => executor.nowUs);
    let available = 3;
    mailbox.start(() => {
      if (available === 0) return 'suspend';
      available--;
      log.push(`r@${mailbox.currentTimeUs()}`);
      return 10;
    }, { lazyCalls: () => 5, batchEnded: () => {} });
    executor.runAll();
    expect(log).toEqual(['r@0', 'r@10', 'r@20']);
    available = 1;
    mailbox.resume();
    executor.runAll();
    expect(log).toEqual(['r@0', 'r@10', 'r@20', 'r@60']);
  });

  test('a closed mailbox makes no lazy call of the batch in flight', () => {
    const { executor, log, mailbox } = setup({ records: 20, costUs: 10 });
    executor.runUntil(25);
    mailbox.close();
    executor.runAll();
    expect(log).toEqual(['r1@0']);
  });
});

describe('MailboxProcessor: mail order and priorities (TaskMailboxImpl)', () => {
  test('the loop takes mails in the order they were put: a MAX_PRIORITY notification after an '
    + 'earlier normal mail', () => {
    const { executor, log, mailbox, mail } = setup({ records: 3, costUs: 10 });
    executor.runUntil(5);
    mailbox.put(mail('operator-event'));
    mailbox.put(mail('notify-checkpoint-complete', MAX_PRIORITY));
    mailbox.put(mail('trigger-checkpoint'));
    executor.runAll();
    expect(log.filter((l) => !l.startsWith('r'))).toEqual([
      'operator-event@10 after 1', 'notify-checkpoint-complete@10 after 1', 'trigger-checkpoint@10 after 1',
    ]);
  });

  test('a nested tryYield at a priority takes only mails of at least that priority, skipping '
    + 'the others', () => {
    const executor = new TestingCostExecutor();
    const log: string[] = [];
    const mailbox = new MailboxProcessor(executor, (e) => { throw e; }, () => executor.nowUs);
    const mail = (label: string, priority?: number) => ({
      label, ...(priority === undefined ? {} : { priority }), run: () => log.push(label),
    });
    mailbox.put({
      label: 'yielding',
      run: () => {
        log.push(`yield MAX: ${mailbox.tryYield(MAX_PRIORITY)}`);
        log.push(`yield MAX: ${mailbox.tryYield(MAX_PRIORITY)}`);
        log.push(`yield MIN: ${mailbox.tryYield(MIN_PRIORITY)}`);
      },
    });
    mailbox.put(mail('normal-1'));
    mailbox.put(mail('notify', MAX_PRIORITY));
    mailbox.put(mail('normal-2'));
    executor.runAll();
    expect(log).toEqual([
      'notify', 'yield MAX: true', 'yield MAX: false', 'normal-1', 'yield MIN: true', 'normal-2',
    ]);
  });

  test('a step runs the mails waiting when it starts; mails they put wait for the next round', () => {
    const { executor, log, mailbox, mail } = setup({ records: 3, costUs: 10, lazyCalls: () => 0 });
    executor.runUntil(5);
    mailbox.put({ label: 'first', run: () => { log.push('first'); mailbox.put(mail('put-by-first')); } });
    mailbox.put(mail('second'));
    executor.runAll();
    expect(log).toEqual(['r1@0', 'first', 'second@10 after 1', 'r2@10', 'put-by-first@20 after 2', 'r3@20']);
  });
});

describe('MailboxProcessor failures', () => {
  /** A mailbox whose onError records what it got instead of rethrowing. */
  function recording() {
    const executor = new TestingCostExecutor();
    const failures: unknown[] = [];
    const mailbox = new MailboxProcessor(executor, (e) => failures.push(e), () => executor.nowUs);
    return { executor, failures, mailbox };
  }

  test('an AssertionError from a mail propagates out of the step; any other error fails the task', () => {
    const planted = recording();
    expect(() => {
      planted.mailbox.put({ label: 'm', run: () => assert(false, 'planted engine bug') });
      planted.executor.runAll();
    }).toThrow(AssertionError);
    expect(planted.failures).toEqual([]);
    // A user function's own error stays a task failure, as in Flink: onError, and the mailbox
    // closes, dropping what was queued behind.
    const user = recording();
    const boom = new Error('user function failed');
    user.mailbox.put({ label: 'm', run: () => { throw boom; } });
    user.mailbox.put({ label: 'later', run: () => user.failures.push('later ran') });
    user.executor.runAll();
    expect(user.failures).toEqual([boom]);
    expect(user.mailbox.isClosed).toBe(true);
  });

  test('so does an AssertionError from the default action', () => {
    const { executor, failures, mailbox } = recording();
    expect(() => {
      mailbox.start(() => {
        throw new AssertionError('planted in the default action');
      });
      executor.runAll();
    }).toThrow('planted in the default action');
    expect(failures).toEqual([]);
  });
});

describe('MailboxProcessor: each mail runs caused by the work that put it', () => {
  /**
   * A tracer's current cause as the sim keeps it: the executor task does not change it here, so
   * only the mailbox's own bookkeeping can give a mail its putter's cause.
   */
  function causes() {
    const tracer = {
      now: NO_EVENT as EventRef,
      current: () => tracer.now,
      causedBy: (cause: EventRef) => {
        if (cause !== NO_EVENT) tracer.now = cause;
      },
    };
    return tracer;
  }

  test('mails of one round, and a mail a nested tryYield takes, each see their own putter\'s '
    + 'cause; the yielding mail gets its own back', () => {
    const executor = new TestingCostExecutor();
    const tracer = causes();
    const seen: string[] = [];
    const mailbox = new MailboxProcessor(executor, (e) => { throw e; }, () => executor.nowUs, tracer);
    const put = (cause: number, label: string, priority?: number, run?: () => void) => {
      tracer.now = cause;
      mailbox.put({
        label, ...(priority === undefined ? {} : { priority }),
        run: run ?? (() => seen.push(`${label}<-${tracer.current()}`)),
      });
    };
    put(11, 'yielding', undefined, () => {
      seen.push(`yielding<-${tracer.current()}`);
      mailbox.tryYield(MAX_PRIORITY);
      seen.push(`yielding after yield<-${tracer.current()}`);
    });
    put(12, 'trigger');
    put(13, 'notify', MAX_PRIORITY);
    put(14, 'abort');
    tracer.now = 99;
    executor.runAll();
    expect(seen).toEqual([
      'yielding<-11', 'notify<-13', 'yielding after yield<-11', 'trigger<-12', 'abort<-14',
    ]);
  });

  test('a mail that throws fails the task under its own cause (the failure is its doing)', () => {
    const executor = new TestingCostExecutor();
    const tracer = causes();
    const failedUnder: EventRef[] = [];
    const mailbox = new MailboxProcessor(
      executor, () => failedUnder.push(tracer.current()), () => executor.nowUs, tracer);
    tracer.now = 5;
    mailbox.put({ label: 'fine', run: () => {} });
    tracer.now = 6;
    mailbox.put({ label: 'throws', run: () => { throw new Error('user function failed'); } });
    tracer.now = 7;
    mailbox.put({ label: 'later', run: () => {} });
    executor.runAll();
    expect(failedUnder).toEqual([6]);
  });
});

describe('MailboxProcessor: the end of the loop (allActionsCompleted, prepareClose, drain)', () => {
  /**
   * A mailbox whose afterLoop logs, quiesces it, logs the put that is now rejected, drains, and
   * logs again: the order in `log` is the order things ran on the thread.
   */
  function ending() {
    const executor = new TestingCostExecutor();
    const log: string[] = [];
    const failures: unknown[] = [];
    const mailbox = new MailboxProcessor(executor, (e) => failures.push(e), () => executor.nowUs);
    const mail = (label: string, priority?: number) => ({
      label, ...(priority === undefined ? {} : { priority }), run: () => log.push(label),
    });
    const afterLoop = () => {
      log.push(`loop ended (accepts mails: ${mailbox.acceptsMails})`);
      mailbox.prepareClose();
      mailbox.put(mail('put after prepareClose'));
      log.push(`prepared to close (accepts mails: ${mailbox.acceptsMails})`);
      mailbox.drain();
      log.push('drained');
    };
    return { executor, log, failures, mailbox, mail, afterLoop };
  }

  test('the poison mail goes ahead of the rest of its round; the drain then runs that rest and the queue, in '
    + 'order, notifications too; a mail put once the mailbox is quiesced never runs', () => {
    const { executor, log, mailbox, mail, afterLoop } = ending();
    mailbox.put({ label: 'final-notification', run: () => { log.push('final-notification'); mailbox.allActionsCompleted(afterLoop); } });
    mailbox.put(mail('trigger-3'));
    mailbox.put(mail('notify-subsumed', MAX_PRIORITY));
    executor.runAll();
    expect(log).toEqual([
      'final-notification', 'loop ended (accepts mails: true)', 'prepared to close (accepts mails: false)',
      'trigger-3', 'notify-subsumed', 'drained',
    ]);
    expect(mailbox.pendingMails).toBe(0);
  });

  test('ended from the default action: the mails queued before the poison ran are drained, and the default '
    + 'action is not called again', () => {
    const { executor, log, mailbox, mail, afterLoop } = ending();
    let calls = 0;
    mailbox.start(() => {
      calls++;
      mailbox.allActionsCompleted(afterLoop);
      // A second call (the task asks again) changes nothing.
      mailbox.allActionsCompleted(() => log.push('second afterLoop'));
      return 'done';
    });
    mailbox.put(mail('trigger'));
    executor.runAll();
    mailbox.resume();
    executor.runAll();
    expect(calls).toBe(1);
    expect(log).toEqual([
      'loop ended (accepts mails: true)', 'prepared to close (accepts mails: false)', 'trigger', 'drained',
    ]);
  });

  test('a drained mail that throws fails the task, and the mails behind it do not run', () => {
    const { executor, log, failures, mailbox, mail, afterLoop } = ending();
    const boom = new Error('Stop-with-savepoint failed.');
    mailbox.put({ label: 'final-notification', run: () => mailbox.allActionsCompleted(afterLoop) });
    mailbox.put({ label: 'throws', run: () => { throw boom; } });
    mailbox.put(mail('behind'));
    executor.runAll();
    expect(failures).toEqual([boom]);
    expect(log).toEqual(['loop ended (accepts mails: true)', 'prepared to close (accepts mails: false)']);
    expect(mailbox.isClosed).toBe(true);
  });

  test('prepareClose while the loop runs, or drain outside the thread, is an engine bug', () => {
    const { mailbox } = ending();
    expect(() => mailbox.prepareClose()).toThrow(AssertionError);
    expect(() => mailbox.drain()).toThrow(AssertionError);
  });
});
