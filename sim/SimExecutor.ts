/**
 * SimExecutor: one simulated thread of a host incarnation (Flink's single-threaded executors:
 * an RPC endpoint's main thread, a mailbox thread, the ioExecutor, ...).
 *
 * It is one lane of the event queue: a FIFO of tasks with at most one heap entry, due when the
 * head task's cost has elapsed. So tasks of one executor never reorder, and tasks of different
 * executors interleave only through the queue (ties are order decisions).
 *
 * A task may block its thread (`block`): from the end of that task the executor starts nothing
 * until the waker it got is given a task, which then runs first. A pool's worker reports when it
 * becomes idle (`idleListener`), so the pool can hand it the next task of its shared queue.
 *
 * A preemptible task (executePreemptible) is an ordinary task whose cost is `units` parts;
 * preempting it while it pays re-times the lane to the end of the part in progress, computed
 * from the cost paid so far at the rates in force (slowdowns included), so it is still one event.
 *
 * Invariants: a non-empty, unpaused, unblocked, live executor is queued (except while it runs a
 * task); a blocked executor is never queued; a dead executor holds no tasks and drops new ones
 * silently; tasks run only while the host is not paused; a preemptible task's queued cost is
 * always a whole number of its parts.
 */
import { assert } from '../engine/api/index.ts';
import type { Cancellable, Executor, PreemptibleTask } from '../engine/api/index.ts';
import { QueueEntry } from './EventQueue.ts';
import type { RateChangeListener } from './ExecutorSlowdowns.ts';
import type { SimContext } from './SimContext.ts';
import type { SimHost } from './SimHost.ts';
import { scheduleTimer } from './SimTimer.ts';

/** Compact the FIFO arrays once this many slots at the front are consumed. */
const COMPACT_AT = 1024;


/** A task of {@link SimExecutor.executePreemptible}: the parts it will pay and its callback. */
class SimPreemptibleTask implements PreemptibleTask {
  /** Parts it pays: `units` until preempted, then the parts paid by the end of the cut. */
  parts: number;
  done = false;
  /** The task as queued on the executor. */
  readonly run = (): void => {
    this.done = true;
    this.task(this.parts);
  };

  constructor(
    private readonly executor: SimExecutor,
    readonly unitCostUs: number,
    units: number,
    private readonly task: (paidUnits: number) => void,
  ) {
    this.parts = units;
  }

  preempt(): void {
    if (!this.done) this.executor.preempt(this);
  }
}

export class SimExecutor extends QueueEntry implements Executor, RateChangeListener {
  readonly name: string;
  private readonly nameHash: number;
  private labels: string[] = [];
  private tasks: ((() => void) | undefined)[] = [];
  private costs: number[] = [];
  /** The trace's current cause when each task was queued (Trace.ts, cause links). */
  private causes: number[] = [];
  private head = 0;
  /** The head task's cost elapsed while the host was paused. */
  private headCostPaid = false;
  private dead = false;
  // The cost the queued head task is paying, for re-timing it when a slowdown starts or ends:
  // since `headSinceUs` it had `headLeftUs` of cost left (at factor 1), paid at `headFactor`.
  private headSinceUs = 0;
  private headLeftUs = 0;
  private headFactor = 1;
  /**
   * When the head task began paying its cost (virtual µs), -1 before it has: stored with the
   * task in a trace that keeps tasks (`startUs`), so an export can draw how long it took. Not
   * hashed, so it changes no run.
   */
  private headStartUs = -1;
  /** True while `fire` runs a task of this executor. */
  private running = false;
  /** The label of the wait this thread is blocked in (see {@link block}), else undefined. */
  private blockedIn: string | undefined;
  /** The waker of the current block. */
  private waker: SimExecutorWaker | undefined;
  /**
   * Set by a pool on its workers, while tasks wait for one: told when the worker has nothing
   * queued and neither runs a task nor is blocked, so that it can hand it its next task. An
   * object, not a callback: a per-run closure called from this shared code made scavenges about
   * four times slower (a run's whole world promoted: 7.5 MB against 0.8 MB per scavenge in the
   * explore bench, with the same allocations).
   */
  idleListener: { workerIdle(worker: SimExecutor): void } | undefined;

  /** `localName` is the name on the host; the full name is `${host}/${localName}`. */
  constructor(
    private readonly ctx: SimContext,
    private readonly host: SimHost,
    localName: string,
  ) {
    super();
    this.name = `${host.id}/${localName}`;
    this.nameHash = ctx.trace.hashing.stringHash(this.name);
    ctx.slowdowns?.register(this);
  }

  get alive(): boolean {
    return !this.dead;
  }

  /** `exec:<host>/<name>`: one thread, the classic unit of a priority schedule. */
  laneKey(): string {
    return `exec:${this.name}`;
  }

  /** Tasks waiting (not counting one that is running). */
  get queued(): number {
    return this.tasks.length - this.head;
  }

  /** True while a task of this executor runs. */
  get isRunning(): boolean {
    return this.running;
  }

  /** Live, with nothing queued, not running a task and not blocked: a pool may hand it work. */
  get idle(): boolean {
    return !this.dead && !this.running && this.blockedIn === undefined && this.tasks.length === this.head;
  }

  /** See {@link Executor.block}. */
  block(label: string): Executor {
    assert(this.running, () => `${this.name}: block ${label} outside a task of this executor`);
    if (this.blockedIn !== undefined && this.waker !== undefined) return this.waker;
    this.blockedIn = label;
    // A task the current one queued here already waits for the wake like every other.
    if (this.heapIndex >= 0) this.ctx.queue.remove(this);
    this.ctx.trace.task(this.name, this.nameHash, `blocked: ${label}`);
    this.waker = new SimExecutorWaker(this);
    return this.waker;
  }

  /** @internal Ends the block: `task` goes to the head of the FIFO and the thread goes on. */
  wake(label: string, task: () => void, costUs: number): void {
    if (!(Number.isSafeInteger(costUs) && costUs >= 0)) {
      assert(false, `${this.name}: wake ${label}: costUs must be a non-negative integer, got ${costUs}`);
    }
    this.blockedIn = undefined;
    this.waker = undefined;
    if (this.dead) return;
    // A new head: whatever the old one had begun paying before the block is paid again.
    this.headStartUs = -1;
    const cause = this.ctx.trace.cause;
    if (this.head > 0) {
      this.head--;
      this.tasks[this.head] = task;
      this.labels[this.head] = label;
      this.costs[this.head] = costUs;
      this.causes[this.head] = cause;
    } else {
      this.tasks.unshift(task);
      this.labels.unshift(label);
      this.costs.unshift(costUs);
      this.causes.unshift(cause);
    }
    this.headCostPaid = false;
    if (!this.running && this.heapIndex < 0 && !this.host.paused) this.queueHead(costUs);
  }

  execute(label: string, task: () => void, costUs = 0): void {
    this.executeCaused(label, task, costUs, this.ctx.trace.cause);
  }

  /**
   * {@link execute} of a task caused by event `cause` (a `seq`, or NO_CAUSE) rather than by the
   * current cause: a pool hands a worker a task that waited while other work ran.
   */
  executeCaused(label: string, task: () => void, costUs: number, cause: number): void {
    if (!(Number.isSafeInteger(costUs) && costUs >= 0)) {
      assert(false, `${this.name}: execute ${label}: costUs must be a non-negative integer, got ${costUs}`);
    }
    if (this.dead) return;
    this.labels.push(label);
    this.tasks.push(task);
    this.costs.push(costUs);
    this.causes.push(cause);
    if (this.heapIndex < 0 && !this.host.paused && this.blockedIn === undefined
      && this.tasks.length - this.head === 1) this.queueHead(costUs);
  }

  executePreemptible(
    label: string, unitCostUs: number, units: number, task: (paidUnits: number) => void,
  ): PreemptibleTask {
    const valid = Number.isSafeInteger(unitCostUs) && unitCostUs > 0
      && Number.isSafeInteger(units) && units > 0;
    if (!valid) {
      assert(false, `${this.name}: executePreemptible ${label}: unitCostUs and units must be `
        + `positive integers, got ${unitCostUs} and ${units}`);
    }
    const p = new SimPreemptibleTask(this, unitCostUs, units, task);
    this.execute(label, p.run, unitCostUs * units);
    return p;
  }

  /**
   * Cuts `p` to the parts paid by the end of the part in progress: the head being paid is
   * re-timed (as {@link rateChanged} does); a task still waiting behind others will pay one part.
   */
  preempt(p: SimPreemptibleTask): void {
    if (this.dead) return;
    let i = this.head;
    while (i < this.tasks.length && this.tasks[i] !== p.run) i++;
    if (i === this.tasks.length) return;
    if (i !== this.head || this.heapIndex < 0) {
      // Not paying yet (queued behind other work, or behind the task that is running now); a
      // head whose cost elapsed while the host was paused is paid in full and left alone.
      if (i !== this.head || !this.headCostPaid) {
        this.costs[i] = p.unitCostUs;
        p.parts = 1;
      }
      return;
    }
    const now = this.ctx.clock.nowUs;
    const cost = this.costs[i] as number;
    // Rounded so that, without slowdowns, whole-µs costs give exact part boundaries.
    const paid = Math.round(cost - this.headLeftUs + (now - this.headSinceUs) / this.headFactor);
    const parts = Math.min(p.parts, Math.max(1, Math.ceil(paid / p.unitCostUs)));
    if (parts >= p.parts) return;
    const left = Math.max(0, parts * p.unitCostUs - paid);
    p.parts = parts;
    this.costs[i] = parts * p.unitCostUs;
    this.headSinceUs = now;
    this.headLeftUs = left;
    this.ctx.queue.remove(this);
    const factor = this.headFactor;
    this.ctx.queue.push(this, now + (factor === 1 ? left : Math.round(left * factor)));
  }

  /** Queues the head task, which has `costUs` of its cost (at factor 1) left to pay. */
  private queueHead(costUs: number): void {
    const now = this.ctx.clock.nowUs;
    const slowdowns = this.ctx.slowdowns;
    const factor = costUs > 0 && slowdowns !== undefined && slowdowns.any ? slowdowns.factor(this.name) : 1;
    // Resuming after a pause keeps the start: the task has been on the thread since then.
    if (this.headStartUs < 0) this.headStartUs = now;
    this.headSinceUs = now;
    this.headLeftUs = costUs;
    this.headFactor = factor;
    this.ctx.queue.push(this, now + (factor === 1 ? costUs : Math.round(costUs * factor)));
  }

  /**
   * A slowdown matching this executor started or ended: the queued head task pays what is left
   * of its cost at the new rate from now on (ExecutorSlowdowns).
   */
  rateChanged(): void {
    if (this.dead || this.heapIndex < 0 || this.headLeftUs <= 0) return;
    const now = this.ctx.clock.nowUs;
    const paid = (now - this.headSinceUs) / this.headFactor;
    const left = Math.max(0, this.headLeftUs - paid);
    const factor = this.ctx.slowdowns?.factor(this.name) ?? 1;
    this.headSinceUs = now;
    this.headLeftUs = left;
    this.headFactor = factor;
    this.ctx.queue.remove(this);
    this.ctx.queue.push(this, now + Math.round(left * factor));
  }

  schedule(label: string, delayUs: number, task: () => void): Cancellable {
    return scheduleTimer(this.ctx, this.host, this, this.name, this.dead, label, delayUs, task);
  }

  /**
   * Runs `task` at once if this executor is idle (a timer waking the thread), else queues it.
   * Dropped if dead.
   */
  runOrQueue(label: string, task: () => void): void {
    if (this.dead) return;
    if (this.heapIndex < 0 && this.tasks.length === this.head && !this.host.paused
      && this.blockedIn === undefined && !this.running) {
      this.runTask(label, task, this.ctx.clock.nowUs);
    } else {
      this.execute(label, task, 0);
    }
  }

  fire(): void {
    if (this.host.paused) {
      this.headCostPaid = true;
      return;
    }
    const i = this.head;
    const task = this.tasks[i] as () => void;
    const label = this.labels[i] as string;
    this.ctx.trace.cause = this.causes[i] as number;
    this.tasks[i] = undefined;
    this.head = i + 1;
    if (this.head === this.tasks.length) {
      // Reset a drained FIFO only now and then: truncating arrays on every event is costly.
      if (this.head >= 64) {
        this.head = 0;
        this.tasks.length = 0;
        this.labels.length = 0;
        this.costs.length = 0;
        this.causes.length = 0;
      }
    } else if (this.head >= COMPACT_AT && this.head * 2 >= this.tasks.length) {
      this.tasks = this.tasks.slice(this.head);
      this.labels = this.labels.slice(this.head);
      this.costs = this.costs.slice(this.head);
      this.causes = this.causes.slice(this.head);
      this.head = 0;
    }
    this.headCostPaid = false;
    const startUs = this.headStartUs;
    this.headStartUs = -1;
    this.runTask(label, task, startUs);
  }

  /**
   * Runs one task on this thread (traced, with `startUs`, when it began paying its cost), then
   * goes on with the next or reports idle.
   */
  private runTask(label: string, task: () => void, startUs: number): void {
    const trace = this.ctx.trace;
    trace.task(this.name, this.nameHash, label, startUs);
    this.running = true;
    try {
      task();
    } finally {
      this.running = false;
      trace.taskDone();
    }
    this.afterTask();
  }

  /** After a task: queue the next one, or tell the pool this worker is idle. */
  private afterTask(): void {
    if (this.dead || this.blockedIn !== undefined) return;
    if (this.tasks.length > this.head) {
      if (this.heapIndex < 0 && !this.host.paused) this.queueHead(this.costs[this.head] as number);
    } else if (this.idleListener !== undefined) {
      this.idleListener.workerIdle(this);
    }
  }

  /** Queues the executor again after its host resumed, if it has work. */
  unpark(): void {
    if (this.dead || this.heapIndex >= 0 || this.blockedIn !== undefined || this.tasks.length === this.head) return;
    this.queueHead(this.headCostPaid ? 0 : (this.costs[this.head] as number));
  }

  /** The host crashed: drop every task and leave the queue for good. */
  kill(): void {
    this.dead = true;
    this.ctx.queue.remove(this);
    this.tasks = [];
    this.labels = [];
    this.costs = [];
    this.causes = [];
    this.head = 0;
    this.headStartUs = -1;
  }
}

/** The waker {@link SimExecutor.block} returns: its first task ends the block (see Executor.block). */
class SimExecutorWaker implements Executor {
  private woken = false;

  constructor(private readonly owner: SimExecutor) {}

  get name(): string {
    return this.owner.name;
  }

  get alive(): boolean {
    return this.owner.alive;
  }

  execute(label: string, task: () => void, costUs = 0): void {
    if (this.woken) {
      this.owner.execute(label, task, costUs);
      return;
    }
    this.woken = true;
    this.owner.wake(label, task, costUs);
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
