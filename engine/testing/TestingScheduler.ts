/**
 * A manually stepped world of executors for unit tests: every task submitted to any of its
 * executors goes into one FIFO queue, and timers wait in virtual time until the test advances
 * the clock. Nothing runs until the test calls {@link TestingScheduler.runAll} or
 * {@link TestingScheduler.advanceTimeUs}, so a test decides exactly when callbacks happen.
 *
 * @see org.apache.flink.util.concurrent.ManuallyTriggeredScheduledExecutorService
 *
 * Invariants: tasks run in submission order (so each executor's tasks run in its own order);
 * timers fire in (due time, submission order); the clock never goes backwards; a killed
 * executor runs nothing more.
 */
import type { Clock } from '../api/Clock.ts';
import type { Cancellable, Executor, ExecutorFactory, PreemptibleTask } from '../api/Executor.ts';
import { assert } from '../util/assert.ts';

interface QueuedTask {
  readonly executor: TestingExecutor;
  readonly label: string;
  readonly task: () => void;
}

interface Timer extends QueuedTask {
  readonly dueUs: number;
  readonly seq: number;
  pending: boolean;
}

/** One executor of a {@link TestingScheduler}. */
export class TestingExecutor implements Executor {
  private isAlive = true;

  constructor(readonly name: string, private readonly scheduler: TestingScheduler) {}

  get alive(): boolean {
    return this.isAlive;
  }

  execute(label: string, task: () => void, costUs = 0): void {
    assert(Number.isInteger(costUs) && costUs >= 0, `costUs must be a non-negative integer`);
    if (this.isAlive) this.scheduler.enqueue({ executor: this, label, task });
  }

  /**
   * Costs are not modelled here: the task runs in its turn with every part paid, or with one
   * part when preempted before it ran.
   */
  executePreemptible(
    label: string, unitCostUs: number, units: number, task: (paidUnits: number) => void,
  ): PreemptibleTask {
    assert(Number.isInteger(unitCostUs) && unitCostUs > 0 && Number.isInteger(units) && units > 0,
      'unitCostUs and units must be positive integers');
    let parts = units;
    let done = false;
    this.execute(label, () => {
      done = true;
      task(parts);
    });
    return { preempt: () => { if (!done) parts = 1; } };
  }

  schedule(label: string, delayUs: number, task: () => void): Cancellable {
    assert(Number.isInteger(delayUs) && delayUs >= 0, `delayUs must be a non-negative integer`);
    return this.scheduler.addTimer({ executor: this, label, task }, delayUs);
  }

  /** Simulates a crash of this executor's host: queued and later work is dropped. */
  kill(): void {
    this.isAlive = false;
  }
}

export class TestingScheduler implements ExecutorFactory, Clock {
  /** Runs after every task, e.g. to check invariants. */
  afterEachTask: (() => void) | undefined;
  private now = 0;
  private seq = 0;
  private readonly ready: QueuedTask[] = [];
  private timers: Timer[] = [];
  private readonly executors = new Map<string, TestingExecutor>();
  private readonly ran: string[] = [];

  /** The executor called `name`, created on first use. */
  get(name: string): TestingExecutor {
    let executor = this.executors.get(name);
    if (executor === undefined) {
      executor = new TestingExecutor(name, this);
      this.executors.set(name, executor);
    }
    return executor;
  }

  nowUs(): number {
    return this.now;
  }

  /** Labels of the tasks run so far, as `executor:label`. */
  get history(): readonly string[] {
    return this.ran;
  }

  /** Tasks ready to run. */
  numQueuedTasks(): number {
    return this.ready.length;
  }

  /** Timers not yet fired or cancelled. */
  numPendingTimers(): number {
    return this.timers.filter((t) => t.pending).length;
  }

  /**
   * Runs ready tasks, including those they submit, until none is left.
   * @returns the number of tasks run. @throws AssertionError after `limit` tasks (a livelock).
   */
  runAll(limit = 1_000_000): number {
    let count = 0;
    while (this.ready.length > 0) {
      assert(count < limit, `runAll: more than ${limit} tasks`);
      const next = this.ready.shift() as QueuedTask;
      count++;
      this.runTask(next);
    }
    return count;
  }

  /** Runs ready tasks, then fires the timers due within `deltaUs`, in order, running tasks. */
  advanceTimeUs(deltaUs: number): void {
    assert(Number.isInteger(deltaUs) && deltaUs >= 0, 'deltaUs must be a non-negative integer');
    const target = this.now + deltaUs;
    this.runAll();
    for (let timer = this.nextTimer(target); timer !== undefined; timer = this.nextTimer(target)) {
      this.now = timer.dueUs;
      timer.pending = false;
      this.runTask(timer);
      this.runAll();
    }
    this.now = target;
  }

  /** Runs tasks and fires timers until nothing is left (or `limitUs` of virtual time passed). */
  runUntilIdle(limitUs = 10_000_000): void {
    const end = this.now + limitUs;
    this.runAll();
    for (let t = this.nextTimer(end); t !== undefined; t = this.nextTimer(end)) {
      this.advanceTimeUs(t.dueUs - this.now);
    }
  }

  /** @internal Used by {@link TestingExecutor}. */
  enqueue(task: QueuedTask): void {
    this.ready.push(task);
  }

  /** @internal Used by {@link TestingExecutor}. */
  addTimer(task: QueuedTask, delayUs: number): Cancellable {
    const timer: Timer = { ...task, dueUs: this.now + delayUs, seq: this.seq++, pending: true };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.pending = false;
      },
      get pending() {
        return timer.pending;
      },
    };
  }

  private nextTimer(untilUs: number): Timer | undefined {
    this.timers = this.timers.filter((t) => t.pending);
    let best: Timer | undefined;
    for (const t of this.timers) {
      if (t.dueUs > untilUs) continue;
      const earlier = best === undefined || t.dueUs < best.dueUs ||
        (t.dueUs === best.dueUs && t.seq < best.seq);
      if (earlier) {
        best = t;
      }
    }
    return best;
  }

  private runTask(task: QueuedTask): void {
    if (!task.executor.alive) return;
    this.ran.push(`${task.executor.name}:${task.label}`);
    task.task();
    this.afterEachTask?.();
  }
}
