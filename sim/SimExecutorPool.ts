/**
 * SimExecutorPool: a fixed pool of simulated threads sharing one FIFO, as a Java
 * ThreadPoolExecutor with a fixed number of threads (Flink's JobMaster ioExecutor). Each worker
 * is an ordinary SimExecutor of the host (`<name>-1` to `<name>-<size>`, so the trace names the
 * thread that ran a task). A task goes to the lowest-numbered idle worker at once, else waits in
 * the pool's FIFO until a worker becomes idle; so tasks submitted back to back can run on
 * different workers, and when both are due at the same instant their order is an order decision
 * of the event queue, never a fixed FIFO order.
 *
 * Invariants: a task waits in the pool's FIFO only while no worker is idle; the pool holds
 * nothing once its host crashed.
 */
import { assert } from '../engine/api/index.ts';
import { harnessAssert } from './harnessAssert.ts';
import type { Cancellable, Executor, PreemptibleTask } from '../engine/api/index.ts';
import type { SimContext } from './SimContext.ts';
import type { SimExecutor } from './SimExecutor.ts';
import type { SimHost } from './SimHost.ts';
import { scheduleTimer, type TimerTarget } from './SimTimer.ts';


interface QueuedTask {
  readonly label: string;
  readonly task: () => void;
  readonly costUs: number;
  /** The trace's current cause when it was submitted (Trace.ts, cause links). */
  readonly cause: number;
}

export class SimExecutorPool implements Executor, TimerTarget {
  readonly name: string;
  private readonly waiting: QueuedTask[] = [];
  private dead = false;

  /**
   * @param workers the pool's threads, already created on `host` (they die with it).
   */
  constructor(
    private readonly ctx: SimContext,
    private readonly host: SimHost,
    localName: string,
    readonly workers: readonly SimExecutor[],
  ) {
    // SimHost checked the size the engine asked for; an empty pool here is the sim's own bug.
    harnessAssert(workers.length >= 1, `pool ${localName} needs at least one worker`);
    this.name = `${host.id}/${localName}`;
  }

  get size(): number {
    return this.workers.length;
  }

  get alive(): boolean {
    return !this.dead;
  }

  /** Tasks waiting for a worker. */
  get queued(): number {
    return this.waiting.length;
  }

  execute(label: string, task: () => void, costUs = 0): void {
    if (!(Number.isSafeInteger(costUs) && costUs >= 0)) {
      assert(false, `${this.name}: execute ${label}: costUs must be a non-negative integer, got ${costUs}`);
    }
    if (this.dead) return;
    const idle = this.waiting.length === 0 ? this.workers.find((w) => w.idle) : undefined;
    if (idle !== undefined) idle.execute(label, task, costUs);
    else this.wait({ label, task, costUs, cause: this.ctx.trace.cause });
  }

  /**
   * A preemptible task on the pool: it goes to a worker like any task and is paid there part by
   * part; a preempt before a worker took it leaves it one part.
   */
  executePreemptible(
    label: string, unitCostUs: number, units: number, task: (paidUnits: number) => void,
  ): PreemptibleTask {
    const valid = Number.isSafeInteger(unitCostUs) && unitCostUs > 0 && Number.isSafeInteger(units) && units > 0;
    if (!valid) {
      assert(false, `${this.name}: executePreemptible ${label}: unitCostUs and units must be `
        + `positive integers, got ${unitCostUs} and ${units}`);
    }
    let parts = units;
    let inner: PreemptibleTask | undefined;
    const idle = this.waiting.length === 0 ? this.workers.find((w) => w.idle) : undefined;
    if (idle !== undefined) return idle.executePreemptible(label, unitCostUs, units, task);
    // Waits for a worker as one part-sized task; the worker then pays the parts left.
    this.wait({ label, costUs: 0, cause: this.ctx.trace.cause, task: () => {
      const worker = this.workers.find((w) => w.isRunning);
      if (worker === undefined) return;
      inner = worker.executePreemptible(label, unitCostUs, parts, task);
    } });
    return { preempt: () => {
      if (inner !== undefined) inner.preempt();
      else parts = 1;
    } };
  }

  schedule(label: string, delayUs: number, task: () => void): Cancellable {
    return scheduleTimer(this.ctx, this.host, this, this.name, this.dead, label, delayUs, task);
  }

  /** A timer of the pool fell due: its task is submitted like any other. */
  runOrQueue(label: string, task: () => void): void {
    this.execute(label, task);
  }

  /** Blocks the worker that runs the current task (see Executor.block). */
  block(label: string): Executor {
    const worker = this.workers.find((w) => w.isRunning);
    assert(worker !== undefined, () => `${this.name}: block ${label} outside a task of this pool`);
    return worker.block(label);
  }

  /** The host crashed: forget the waiting tasks (the workers died with the host). */
  kill(): void {
    this.dead = true;
    this.waiting.length = 0;
  }

  /** Queues `t` until a worker is idle, and asks the workers to say when they are. */
  private wait(t: QueuedTask): void {
    // Workers tell the pool when they are idle only while tasks wait: nothing to do otherwise.
    if (this.waiting.length === 0) for (const w of this.workers) w.idleListener = this;
    this.waiting.push(t);
  }

  /** @internal A worker is idle while tasks wait: it takes the next. */
  workerIdle(worker: SimExecutor): void {
    const next = this.waiting.shift();
    if (next !== undefined) worker.executeCaused(next.label, next.task, next.costUs, next.cause);
    if (this.waiting.length === 0) for (const w of this.workers) w.idleListener = undefined;
  }
}
