/**
 * The CheckpointCoordinator's `lock`, as far as it matters in virtual time. In Flink every entry
 * point of the coordinator runs `synchronized (lock)`, and completing a checkpoint runs inside
 * it: PendingCheckpoint.finalizeCheckpoint writes `_metadata` (blocking IO on the thread that
 * took the last ack) and the checkpoint is added to the CompletedCheckpointStore, all before the
 * lock is released. So once a checkpoint is fully acknowledged nothing can expire, decline, abort
 * or subsume it, and while a slow metadata write holds the lock, every thread that wants it waits:
 * the timer thread's canceller and trigger steps, acks and declines on the io pool, and on the
 * JobMaster main thread `stopCheckpointScheduler` (the activator calls it when a failover moves
 * the job to RESTARTING), so a slow write also delays the failover.
 *
 * Here only a completion holds the lock across time ({@link hold}); every other critical section
 * runs to completion in one task, so it needs the lock only to wait for a holder ({@link run}):
 * the calling thread blocks (Executor.block) and runs the section first when it is woken. Woken
 * waiters try again in the order they came, so one that finds a new holder waits again. Flink's
 * monitor is not fair either.
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointCoordinator (`lock`, completePendingCheckpoint)
 * Invariants: waiters exist only while the lock is held; at most one holder.
 */
import type { Executor } from '../api/Executor.ts';
import type { EventRef, Tracer } from '../api/Tracer.ts';
import { assert } from '../util/assert.ts';

/** A thread that waits for the lock, with the sections it wants to run, in order. */
interface Waiter {
  readonly wake: Executor;
  readonly sections: { readonly what: string; readonly section: () => void; readonly waited: EventRef }[];
}

/** A hold of the lock (see {@link CheckpointCoordinatorLock.hold}). */
export interface CheckpointLockHold {
  /** Runs the holder's own code, which may enter sections of the lock again. */
  reenter(body: () => void): void;
  /** Ends the hold; exactly once. */
  release(): void;
}

export class CheckpointCoordinatorLock {
  private holder: string | undefined;
  /** Waiting threads by waker (one per blocked thread), in the order they came. */
  private waiters = new Map<Executor, Waiter>();
  /** Above 0 while the holder's own code runs (it may take the lock again). */
  private reentered = 0;

  constructor(private readonly tracer: Tracer) {}

  /** What holds the lock now (a completion), or undefined. */
  get heldBy(): string | undefined {
    return this.holder;
  }

  /** Threads waiting for the lock. */
  get numberOfWaiters(): number {
    return this.waiters.size;
  }

  /**
   * Runs `section` under the lock, on `thread` (the executor that runs the caller): at once when
   * nothing holds the lock, else `thread` blocks until the holder releases it and then runs
   * `section` before anything else. A task that asks for several sections while its thread waits
   * gets them run in that order (the code between them does not wait: a limit of modelling a
   * blocked Java thread in run-to-completion tasks). `what` names the section in the trace.
   * @throws AssertionError (from Executor.block) when the lock is held and the caller does not
   *   run on `thread`.
   */
  run(thread: Executor, what: string, section: () => void): void {
    if (this.holder === undefined || this.reentered > 0) {
      section();
      return;
    }
    // The wait is the section's cause when it runs at last: the work that asked for the lock (an
    // ack's or a decline's delivery), not the completion that released it.
    const waited = this.tracer.event('checkpoint.lockWait', { waiter: what, holder: this.holder, thread: thread.name });
    this.tracer.mark('checkpoint-lock-contended', { waiter: what });
    const wake = thread.block(`checkpoint lock: ${what}`);
    let waiter = this.waiters.get(wake);
    if (waiter === undefined) {
      waiter = { wake, sections: [] };
      this.waiters.set(wake, waiter);
    }
    waiter.sections.push({ what, section, waited });
  }

  /**
   * Takes the lock for work that holds it across virtual time (a completion's metadata write and
   * store update). The holder's own code that runs later, on its thread, goes inside
   * {@link CheckpointLockHold.reenter} (Java monitors are reentrant: the holder may take the lock
   * again); {@link CheckpointLockHold.release} ends the hold and wakes the waiters.
   * @throws AssertionError when the lock is held already.
   */
  hold(what: string): CheckpointLockHold {
    assert(this.holder === undefined, () => `checkpoint lock taken by ${what} while held by ${this.holder}`);
    this.holder = what;
    let released = false;
    return {
      reenter: (body) => {
        assert(!released, () => `checkpoint lock re-entered by ${what} after its release`);
        this.reentered++;
        try {
          body();
        } finally {
          this.reentered--;
        }
      },
      release: () => {
        assert(!released, () => `checkpoint lock released twice by ${what}`);
        released = true;
        this.holder = undefined;
        const waiters = [...this.waiters.values()];
        this.waiters = new Map();
        for (const w of waiters) {
          // Each waiting thread resumes with its sections, which take the lock again (and wait
          // again, in order, if another holder came first).
          const first = w.sections[0]?.what ?? '';
          w.wake.execute(`checkpoint lock acquired: ${first}`, () => {
            for (const s of w.sections) {
              this.tracer.causedBy(s.waited);
              this.run(w.wake, s.what, s.section);
            }
          });
        }
      },
    };
  }

  checkInvariants(): void {
    assert(this.waiters.size === 0 || this.holder !== undefined, 'threads wait for a free checkpoint lock');
  }
}
