/**
 * Executors: the simulated threads of a host. Models Flink's single-threaded executors (an RPC
 * endpoint's main thread, a task's mailbox thread, the ioExecutor, the async snapshot pool, the
 * checkpoint coordinator timer) and its fixed thread pools (the JobMaster's ioExecutor). Work
 * submitted to one executor runs in submission order, one task at a time; work on different
 * executors (or different workers of a pool) interleaves only through the sim's event queue,
 * where the order of tasks due at the same instant is a recorded decision. A thread can block
 * (on a lock, in blocking IO) and be woken ({@link Executor.block}).
 *
 * A task's cost may be paid in parts that the submitter can cut short ({@link
 * Executor.executePreemptible}): that is how a thread that works through a batch of equal parts
 * and checks between parts whether to stop (Flink's mailbox loop, which looks for mail between
 * records) is modelled with one event per batch instead of one per part.
 *
 * Invariants the sim keeps: a task never runs after its host crashed (the executor vanishes with
 * its queued tasks and timers); a paused host runs nothing until it resumes.
 */

/** A handle to cancel a scheduled timer; cancelling twice or after it fired is a no-op. */
export interface Cancellable {
  cancel(): void;
  /** True until the timer fired or was cancelled. */
  readonly pending: boolean;
}

/** A task queued with {@link Executor.executePreemptible}. */
export interface PreemptibleTask {
  /**
   * Stop paying at the end of the part in progress (now, if a part has just ended; after the
   * first part, if payment has not started yet); the task then runs with the number of parts
   * paid. Idempotent; a no-op once the task has run or its executor died.
   */
  preempt(): void;
}

/** One simulated thread. */
export interface Executor {
  /** Unique within the world, e.g. `taskmanager-1/mailbox/map#0@1`. */
  readonly name: string;
  /**
   * Queues `task` behind everything already submitted to this executor. The executor is busy
   * for `costUs` virtual microseconds before `task` runs (its effects appear at the end of that
   * time), so a costly task delays the ones behind it.
   * @param label short, stable text for the trace (no ids that vary between runs).
   * @param costUs non-negative integer; default 0. @throws AssertionError if negative.
   */
  execute(label: string, task: () => void, costUs?: number): void;
  /**
   * Queues `task` behind everything already submitted, like {@link execute} with a cost of
   * `units × unitCostUs`, but paid part by part: after {@link PreemptibleTask.preempt} the thread
   * stops at the end of the part it is paying (the first part is always paid) and `task` runs
   * then, with the number of parts paid (1..units; `units` when never preempted). Other work
   * submitted meanwhile queues behind it as behind any task; only `preempt` cuts it short.
   * @param unitCostUs positive integer. @param units positive integer.
   * @throws AssertionError if either is not a positive integer.
   */
  executePreemptible(
    label: string, unitCostUs: number, units: number, task: (paidUnits: number) => void,
  ): PreemptibleTask;
  /**
   * Runs `task` on this executor once `delayUs` virtual microseconds have passed (a
   * ScheduledExecutorService timer). The timer dies with the host.
   * @throws AssertionError if `delayUs` is negative or not an integer.
   */
  schedule(label: string, delayUs: number, task: () => void): Cancellable;
  /** False once the host crashed; work given to a dead executor is silently dropped. */
  readonly alive: boolean;
  /**
   * Blocks the thread that runs the current task, as a Java thread blocks on a monitor or in a
   * blocking call: from the end of the current task it starts nothing, neither queued tasks nor
   * timer tasks, until it is woken. The returned executor wakes it: the first task given to it
   * (`execute`) runs on this thread before anything queued here, and the thread then goes on as
   * usual (later tasks given to it are ordinary tasks of this thread). Hand it to whatever ends
   * the wait: an object store call as its `on` executor (blocking IO), a lock's release.
   * For a pool, blocks the worker that runs the current task; the other workers go on. Called
   * again by the task that blocked the thread, it returns the same waker (a thread blocks once).
   * @param label short, stable text for the trace.
   * @throws AssertionError when no task of this executor is running.
   */
  block(label: string): Executor;
}

/** Creates the executors of one host incarnation. */
export interface ExecutorFactory {
  /**
   * Returns the executor called `name` on this host, creating it on first use. The same name
   * gives the same executor until the host crashes.
   */
  get(name: string): Executor;
  /**
   * Returns the pool called `name` on this host, creating it on first use: `size` threads
   * (`<name>-1` to `<name>-<size>`) that share one FIFO, as a fixed ThreadPoolExecutor. A task
   * goes to the lowest-numbered idle worker at once, else it waits in submission order for the
   * next worker that becomes idle; so two tasks submitted back to back may run in either order
   * (which is an order decision when both are due at the same instant). The pool dies with the host.
   * @throws AssertionError if `size` is not a positive integer, or differs from an existing pool's.
   */
  pool(name: string, size: number): Executor;
}
