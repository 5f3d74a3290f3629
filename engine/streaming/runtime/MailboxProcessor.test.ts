import { describe, expect, test } from 'vitest';
import type { Cancellable, Executor, PreemptibleTask } from '../../api/Executor.ts';
import { MailboxProcessor, MAX_PRIORITY, MIN_PRIORITY } from './MailboxProcessor.ts';

/**
 * A single-thread executor stepped by hand that honours task costs: a task submitted with cost
 * c while the thread is idle becomes due c µs after it reaches the head of the queue.
 */
class TestingCostExecutor implements Executor {
  readonly name = 'test/mailbox';
  readonly alive = true;
  nowUs = 0;
  private readonly queue: { task: () => void; costUs: number }[] = [];
  private headDueUs: number | undefined;

  execute(_label: string, task: () => void, costUs = 0): void {
    this.queue.push({ task, costUs });
    this.headDueUs ??= this.nowUs + costUs;
  }

  executePreemptible(): PreemptibleTask {
    throw new Error('not used');
  }

  schedule(): Cancellable {
    throw new Error('not used');
  }

  /** Runs the head task at its due time; returns false when idle. */
  runNext(): boolean {
    const head = this.queue.shift();
    if (head === undefined || this.headDueUs === undefined) return false;
    this.nowUs = Math.max(this.nowUs, this.headDueUs);
    head.task();
    const next = this.queue[0];
    this.headDueUs = next === undefined ? undefined : this.nowUs + next.costUs;
    return true;
  }

  get queued(): number {
    return this.queue.length;
  }
}

function setup(maxActions: number, canContinue: (busyUs: number) => boolean = () => true) {
  const executor = new TestingCostExecutor();
  const log: string[] = [];
  const mailbox = new MailboxProcessor(executor, (e) => { throw e; }, () => executor.nowUs);
  return { executor, log, mailbox, batching: { maxActions, canContinue } };
}

describe('MailboxProcessor batching', () => {
  test('one step runs up to maxActions default actions and is busy for their summed cost', () => {
    const { executor, log, mailbox, batching } = setup(3);
    let left = 5;
    mailbox.start(() => {
      if (left === 0) return 'done';
      log.push(`r${left--}@${executor.nowUs}`);
      return 10;
    }, batching);
    while (executor.runNext());
    expect(log).toEqual(['r5@0', 'r4@0', 'r3@0', 'r2@30', 'r1@30']);
  });

  test('a mail put by an action ends the batch and runs next', () => {
    const { executor, log, mailbox, batching } = setup(10);
    let n = 0;
    mailbox.start(() => {
      n++;
      log.push(`r${n}`);
      if (n === 2) mailbox.put({ label: 'm', run: () => log.push(`mail@${executor.nowUs}`) });
      return n < 4 ? 5 : 'done';
    }, batching);
    while (executor.runNext());
    expect(log).toEqual(['r1', 'r2', 'mail@10', 'r3', 'r4']);
  });

  test('canContinue bounds the batch with the busy time so far', () => {
    const { executor, log, mailbox, batching } = setup(10, (busyUs) => busyUs < 20);
    let n = 0;
    mailbox.start(() => {
      n++;
      log.push(`r${n}@${executor.nowUs}`);
      return n < 4 ? 10 : 'done';
    }, batching);
    while (executor.runNext());
    expect(log).toEqual(['r1@0', 'r2@0', 'r3@20', 'r4@20']);
  });

  test('a batch that suspends keeps the thread busy: a resume waits for its cost', () => {
    const { executor, log, mailbox, batching } = setup(10);
    let available = 2;
    mailbox.start(() => {
      if (available === 0) return 'suspend';
      log.push(`r${available--}@${executor.nowUs}`);
      return 50;
    }, batching);
    while (executor.runNext());
    expect(log).toEqual(['r2@0', 'r1@0']);
    expect(executor.queued).toBe(0);
    executor.nowUs = 30;
    available = 1;
    mailbox.resume();
    mailbox.put({ label: 'm', run: () => log.push(`mail@${executor.nowUs}`) });
    while (executor.runNext());
    expect(log).toEqual(['r2@0', 'r1@0', 'mail@100', 'r1@100']);
  });
});

describe('MailboxProcessor: mail order and priorities (TaskMailboxImpl)', () => {
  const mail = (log: string[], label: string, priority?: number) => ({
    label, ...(priority === undefined ? {} : { priority }), run: () => log.push(label),
  });

  test('the loop takes mails in the order they were put: a MAX_PRIORITY notification after an '
    + 'earlier normal mail', () => {
    const { executor, log, mailbox } = setup(1);
    mailbox.put(mail(log, 'operator-event'));
    mailbox.put(mail(log, 'notify-checkpoint-complete', MAX_PRIORITY));
    mailbox.put(mail(log, 'trigger-checkpoint'));
    while (executor.runNext());
    expect(log).toEqual(['operator-event', 'notify-checkpoint-complete', 'trigger-checkpoint']);
  });

  test('a nested tryYield at a priority takes only mails of at least that priority, skipping '
    + 'the others', () => {
    const { executor, log, mailbox } = setup(1);
    mailbox.put({
      label: 'yielding',
      run: () => {
        log.push(`yield MAX: ${mailbox.tryYield(MAX_PRIORITY)}`);
        log.push(`yield MAX: ${mailbox.tryYield(MAX_PRIORITY)}`);
        log.push(`yield MIN: ${mailbox.tryYield(MIN_PRIORITY)}`);
      },
    });
    mailbox.put(mail(log, 'normal-1'));
    mailbox.put(mail(log, 'notify', MAX_PRIORITY));
    mailbox.put(mail(log, 'normal-2'));
    while (executor.runNext());
    expect(log).toEqual([
      'notify', 'yield MAX: true', 'yield MAX: false', 'normal-1', 'yield MIN: true', 'normal-2',
    ]);
  });
});
