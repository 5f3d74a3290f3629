/**
 * A manually stepped world of executors for unit tests: every task submitted to any of its
 * executors goes into one FIFO queue, and timers wait in virtual time until the test advances
 * the clock. Nothing runs until the test calls {@link TestingScheduler.runAll} or
 * {@link TestingScheduler.advanceTimeUs}, so a test decides exactly when callbacks happen.
 *
 * @see org.apache.flink.util.concurrent.ManuallyTriggeredScheduledExecutorService
 *
 * A task may block its thread (Executor.block): that executor's tasks stay queued, skipped by
 * the FIFO, until its waker is given a task, which runs next. A pool runs each task on the first
 * worker that is not blocked (tasks still run in one FIFO: no two run at once here).
 *
 * Invariants: tasks run in submission order, skipping those of blocked executors (so each
 * executor's tasks run in its own order); timers fire in (due time, submission order), their
 * tasks queued when their executor is blocked; the clock never goes backwards; a killed executor
 * runs nothing more.
 */
import type { Clock } from '../api/Clock.ts';
import type { Cancellable, Executor, ExecutorFactory, PreemptibleTask } from '../api/Executor.ts';
import { assert } from '../util/assert.ts';

interface QueuedTask {
  readonly executor: TestingExecutor | TestingPool;
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
  /** True while one of its tasks runs. */
  running = false;
  /** The wait it is blocked in, else undefined. */
  blockedIn: string | undefined;
  private waker: TestingWaker | undefined;

  constructor(readonly name: string, private readonly scheduler: TestingScheduler) {}

  get alive(): boolean {
    return this.isAlive;
  }

  /** This executor, when a task of it may run now. */
  claim(): TestingExecutor | undefined {
    return this.blockedIn === undefined ? this : undefined;
  }

  block(label: string): Executor {
    assert(this.running, `${this.name}: block ${label} outside a task of this executor`);
    if (this.blockedIn !== undefined && this.waker !== undefined) return this.waker;
    this.blockedIn = label;
    this.waker = new TestingWaker(this);
    return this.waker;
  }

  /** @internal The waker's first task: unblock and run `task` before anything queued. */
  wake(label: string, task: () => void): void {
    this.blockedIn = undefined;
    this.waker = undefined;
    if (this.isAlive) this.scheduler.enqueueFirst({ executor: this, label, task });
  }

  execute(label: string, task: () => void, costUs = 0): void {
    assert(Number.isInteger(costUs) && costUs >= 0, `costUs must be a non-negative integer`);
    if (this.alive) this.scheduler.enqueue({ executor: this, label, task });
  }

  /**
   * Costs are not modelled here: the task runs in its turn with every part paid, or with one
   * part when preempted before it ran.
   */
  executePreemptible(
    label: string, unitCostUs: number, units: number, task: (paidUnits: number) => void,
  ): PreemptibleTask {
    return preemptibleOn(this, label, unitCostUs, units, task);
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

/**
 * A preemptible task on `executor` of a TestingScheduler, which has no costs: it runs as one task,
 * with every part paid unless it was preempted before it ran (then one).
 */
function preemptibleOn(executor: Executor, label: string, unitCostUs: number, units: number,
  task: (paidUnits: number) => void): PreemptibleTask {
  assert(Number.isInteger(unitCostUs) && unitCostUs > 0 && Number.isInteger(units) && units > 0,
    'unitCostUs and units must be positive integers');
  let parts = units;
  let done = false;
  executor.execute(label, () => {
    done = true;
    task(parts);
  });
  return { preempt: () => { if (!done) parts = 1; } };
}

/** What {@link TestingExecutor.block} returns: its first task ends the block. */
class TestingWaker implements Executor {
  private woken = false;

  constructor(private readonly owner: TestingExecutor) {}

  get name(): string {
    return this.owner.name;
  }

  get alive(): boolean {
    return this.owner.alive;
  }

  execute(label: string, task: () => void, costUs?: number): void {
    if (this.woken) {
      this.owner.execute(label, task, costUs);
      return;
    }
    this.woken = true;
    this.owner.wake(label, task);
  }

  executePreemptible(
    label: string, unitCostUs: number, units: number, task: (paidUnits: number) => void,
  ): PreemptibleTask {
    return this.owner.executePreemptible(label, unitCostUs, units, task);
  }

  schedule(label: string, delayUs: number, task: () => void): Cancellable {
    return this.owner.schedule(label, delayUs, task);
  }

  block(label: string): Executor {
    return this.owner.block(label);
  }
}

/** A fixed pool of a {@link TestingScheduler}: each task runs on its first unblocked worker. */
export class TestingPool extends TestingExecutor {
  readonly workers: TestingExecutor[];

  constructor(name: string, size: number, scheduler: TestingScheduler) {
    super(name, scheduler);
    this.workers = Array.from({ length: size }, (_x, i) => new TestingExecutor(`${name}-${i + 1}`, scheduler));
  }

  override get alive(): boolean {
    return this.workers.every((w) => w.alive);
  }

  override claim(): TestingExecutor | undefined {
    return this.workers.find((w) => w.alive && w.blockedIn === undefined);
  }

  override block(label: string): Executor {
    const w = this.workers.find((x) => x.running);
    assert(w !== undefined, `${this.name}: block ${label} outside a task of this pool`);
    return w.block(label);
  }

  override kill(): void {
    super.kill();
    for (const w of this.workers) w.kill();
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
  private readonly pools = new Map<string, TestingPool>();
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

  /** The pool called `name`, created on first use with `size` workers. */
  pool(name: string, size: number): TestingPool {
    let p = this.pools.get(name);
    if (p === undefined) {
      p = new TestingPool(name, size, this);
      this.pools.set(name, p);
    }
    assert(p.workers.length === size, `pool ${name} exists with another size`);
    return p;
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
    for (let i = this.nextRunnable(); i >= 0; i = this.nextRunnable()) {
      assert(count < limit, `runAll: more than ${limit} tasks`);
      const [next] = this.ready.splice(i, 1) as [QueuedTask];
      count++;
      this.runTask(next);
    }
    return count;
  }

  /** The index of the first ready task whose executor may run it now, or -1. */
  private nextRunnable(): number {
    return this.ready.findIndex((t) => t.executor.claim() !== undefined || !t.executor.alive);
  }

  /**
   * Runs ready tasks until the next one is `executor:label` (as in {@link history}), which is left
   * queued; lets a test act between two steps of a pipeline.
   * @throws AssertionError when no such task comes before the queue runs dry.
   */
  runUntilNext(task: string, limit = 1_000_000): void {
    for (let count = 0; ; count++) {
      const i = this.nextRunnable();
      const next = this.ready[i];
      assert(next !== undefined, `runUntilNext: no task ${task} came`);
      if (`${next.executor.name}:${next.label}` === task) return;
      assert(count < limit, `runUntilNext: more than ${limit} tasks`);
      this.ready.splice(i, 1);
      this.runTask(next);
    }
  }

  /** Runs ready tasks, then fires the timers due within `deltaUs`, in order, running tasks. */
  advanceTimeUs(deltaUs: number): void {
    assert(Number.isInteger(deltaUs) && deltaUs >= 0, 'deltaUs must be a non-negative integer');
    const target = this.now + deltaUs;
    this.runAll();
    for (let timer = this.nextTimer(target); timer !== undefined; timer = this.nextTimer(target)) {
      this.now = timer.dueUs;
      timer.pending = false;
      if (timer.executor.claim() === undefined && timer.executor.alive) this.enqueue(timer);
      else this.runTask(timer);
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

  /** @internal A waker's task: it runs before anything queued. */
  enqueueFirst(task: QueuedTask): void {
    this.ready.unshift(task);
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
    const worker = task.executor.alive ? task.executor.claim() : undefined;
    if (worker === undefined) return;
    this.ran.push(`${task.executor.name}:${task.label}`);
    worker.running = true;
    try {
      task.task();
    } finally {
      worker.running = false;
    }
    this.afterEachTask?.();
  }
}
