/**
 * A single-assignment future, modelled on Java's CompletableFuture as Flink uses it. It never
 * touches JavaScript promises: callbacks either run synchronously on whoever completes the future
 * (Java's non-async `thenApply`, `whenComplete`, ...) or are handed to a named {@link Executor}
 * (Java's `...Async(fn, executor)`), which makes them an event on the sim's queue. That keeps
 * every hop between threads visible to the scheduler and therefore reorderable and replayable.
 *
 * @see java.util.concurrent.CompletableFuture, org.apache.flink.util.concurrent.FutureUtils
 * Invariants: completes at most once; callbacks run exactly once each, in registration order.
 */
import type { Executor } from '../api/Executor.ts';
import { ExpectedError } from './ExpectedError.ts';

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };
type Listener<T> = (outcome: Outcome<T>) => void;

/** An expected failure carried by a future (a timeout, a lost connection, a declined call). */
export function toError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

export class CompletableFuture<T> {
  private outcome: Outcome<T> | undefined;
  // Most futures get one listener at most, so the first needs no array (an array that is pushed
  // to gets a backing store of 16 slots; futures are made per RPC and per checkpoint step).
  /** The first listener, until completion. */
  private listener: Listener<T> | undefined = undefined;
  /** The listeners after the first, in registration order, until completion. */
  private moreListeners: Listener<T>[] | undefined = undefined;

  /** A future already completed with `value`. */
  static completed<T>(value: T): CompletableFuture<T> {
    const f = new CompletableFuture<T>();
    f.complete(value);
    return f;
  }

  /** A future already failed with `error`. */
  static failed<T>(error: unknown): CompletableFuture<T> {
    const f = new CompletableFuture<T>();
    f.completeExceptionally(error);
    return f;
  }

  /**
   * Completes when every input has completed; fails with the first failure (in input order)
   * once all are done, like FutureUtils.waitForAll followed by a check. Empty input: completed.
   */
  static allOf<T>(futures: readonly CompletableFuture<T>[]): CompletableFuture<T[]> {
    const result = new CompletableFuture<T[]>();
    const values: T[] = new Array<T>(futures.length);
    let remaining = futures.length;
    let firstError: { error: unknown; index: number } | undefined;
    if (remaining === 0) {
      result.complete(values);
      return result;
    }
    futures.forEach((f, index) => {
      f.addListener((o) => {
        if (o.ok) values[index] = o.value;
        else if (firstError === undefined || index < firstError.index) firstError = { error: o.error, index };
        remaining--;
        if (remaining === 0) {
          if (firstError !== undefined) result.completeExceptionally(firstError.error);
          else result.complete(values);
        }
      });
    });
    return result;
  }

  /** True once completed, normally or exceptionally. */
  isDone(): boolean {
    return this.outcome !== undefined;
  }

  /** True once completed exceptionally. */
  isCompletedExceptionally(): boolean {
    return this.outcome !== undefined && !this.outcome.ok;
  }

  /** The value of a normally completed future; @throws the failure, or if not yet done. */
  getNow(): T {
    if (this.outcome === undefined) throw new Error('future is not done');
    if (!this.outcome.ok) throw this.outcome.error;
    return this.outcome.value;
  }

  /** Completes normally; returns false (and changes nothing) if already completed. */
  complete(value: T): boolean {
    return this.settle({ ok: true, value });
  }

  /** Completes exceptionally; returns false (and changes nothing) if already completed. */
  completeExceptionally(error: unknown): boolean {
    return this.settle({ ok: false, error });
  }

  /** Like Java's `cancel`: completes exceptionally with a CancellationError. */
  cancel(): boolean {
    return this.completeExceptionally(new CancellationError());
  }

  /** Runs `fn(value, error)` synchronously on the completing thread (or now, if done). */
  whenComplete(fn: (value: T | undefined, error: unknown) => void): CompletableFuture<T> {
    const next = new CompletableFuture<T>();
    this.addListener((o) => {
      try {
        if (o.ok) fn(o.value, undefined);
        else fn(undefined, o.error);
      } catch (e) {
        next.completeExceptionally(e);
        return;
      }
      next.settle(o);
    });
    return next;
  }

  /** Like {@link whenComplete}, but `fn` runs as a task on `executor`. */
  whenCompleteAsync(
    executor: Executor,
    label: string,
    fn: (value: T | undefined, error: unknown) => void,
  ): CompletableFuture<T> {
    const next = new CompletableFuture<T>();
    this.addListener((o) => {
      executor.execute(label, () => {
        try {
          if (o.ok) fn(o.value, undefined);
          else fn(undefined, o.error);
        } catch (e) {
          next.completeExceptionally(e);
          return;
        }
        next.settle(o);
      });
    });
    return next;
  }

  /** Maps the value synchronously on the completing thread; failures pass through. */
  thenApply<U>(fn: (value: T) => U): CompletableFuture<U> {
    const next = new CompletableFuture<U>();
    this.addListener((o) => {
      if (!o.ok) {
        next.completeExceptionally(o.error);
        return;
      }
      try {
        next.complete(fn(o.value));
      } catch (e) {
        next.completeExceptionally(e);
      }
    });
    return next;
  }

  /** Maps the value in a task on `executor`; failures pass through (also via the executor). */
  thenApplyAsync<U>(executor: Executor, label: string, fn: (value: T) => U): CompletableFuture<U> {
    const next = new CompletableFuture<U>();
    this.addListener((o) => {
      executor.execute(label, () => {
        if (!o.ok) {
          next.completeExceptionally(o.error);
          return;
        }
        try {
          next.complete(fn(o.value));
        } catch (e) {
          next.completeExceptionally(e);
        }
      });
    });
    return next;
  }

  /** Chains a future-returning step synchronously on the completing thread. */
  thenCompose<U>(fn: (value: T) => CompletableFuture<U>): CompletableFuture<U> {
    const next = new CompletableFuture<U>();
    this.addListener((o) => {
      if (!o.ok) {
        next.completeExceptionally(o.error);
        return;
      }
      let inner: CompletableFuture<U>;
      try {
        inner = fn(o.value);
      } catch (e) {
        next.completeExceptionally(e);
        return;
      }
      inner.addListener((io) => next.settle(io));
    });
    return next;
  }

  /** Like {@link thenCompose}, but `fn` runs as a task on `executor`. */
  thenComposeAsync<U>(
    executor: Executor,
    label: string,
    fn: (value: T) => CompletableFuture<U>,
  ): CompletableFuture<U> {
    const next = new CompletableFuture<U>();
    this.addListener((o) => {
      executor.execute(label, () => {
        if (!o.ok) {
          next.completeExceptionally(o.error);
          return;
        }
        let inner: CompletableFuture<U>;
        try {
          inner = fn(o.value);
        } catch (e) {
          next.completeExceptionally(e);
          return;
        }
        inner.addListener((io) => next.settle(io));
      });
    });
    return next;
  }

  /** Recovers from a failure synchronously; values pass through. */
  exceptionally(fn: (error: unknown) => T): CompletableFuture<T> {
    const next = new CompletableFuture<T>();
    this.addListener((o) => {
      if (o.ok) {
        next.complete(o.value);
        return;
      }
      try {
        next.complete(fn(o.error));
      } catch (e) {
        next.completeExceptionally(e);
      }
    });
    return next;
  }

  private addListener(l: Listener<T>): void {
    if (this.outcome !== undefined) l(this.outcome);
    else if (this.listener === undefined) this.listener = l;
    else (this.moreListeners ??= []).push(l);
  }

  private settle(o: Outcome<T>): boolean {
    if (this.outcome !== undefined) return false;
    this.outcome = o;
    const first = this.listener;
    const more = this.moreListeners;
    this.listener = undefined;
    this.moreListeners = undefined;
    if (first !== undefined) first(o);
    if (more !== undefined) for (const l of more) l(o);
    return true;
  }
}

/** The failure of a cancelled future (an expected outcome: no stack trace). */
export class CancellationError extends ExpectedError {
  override readonly name = 'CancellationError';
  constructor(message = 'cancelled') {
    super(message);
  }
}
