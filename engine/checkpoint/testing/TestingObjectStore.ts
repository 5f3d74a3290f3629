/**
 * An in-memory ObjectStore for checkpoint unit tests: every operation completes as a task on the
 * executor the caller names (so completions are visible hops), `failNextPuts` makes writes
 * fail with a StorageError, and `slowPuts` makes them take virtual time.
 */
import type { Executor } from '../../api/Executor.ts';
import { StorageError, type ObjectStore, type StoredObject } from '../../api/ObjectStore.ts';
import { CompletableFuture } from '../../util/CompletableFuture.ts';

export class TestingObjectStore implements ObjectStore {
  readonly files = new Map<string, StoredObject>();
  readonly deleted: string[] = [];
  private putFailures = 0;
  private slow: { timer: Executor; delayUs: number; applies: (path: string) => boolean } | undefined;

  /** The next `n` puts fail. */
  failNextPuts(n: number): void {
    this.putFailures = n;
  }

  /**
   * From now on a put whose path `applies` takes effect `delayUs` later, timed on `timer` (an
   * executor of the store's own: the caller's thread may be blocked in the write), and then
   * completes on the caller's `on` executor.
   */
  slowPuts(timer: Executor, delayUs: number, applies: (path: string) => boolean = () => true): void {
    this.slow = { timer, delayUs, applies };
  }

  put(path: string, data: unknown, sizeBytes: number, on: Executor): CompletableFuture<void> {
    const f = new CompletableFuture<void>();
    const slow = this.slow;
    if (slow !== undefined && slow.applies(path)) {
      slow.timer.schedule('store-put-latency', slow.delayUs, () => this.completePut(path, data, sizeBytes, on, f));
      return f;
    }
    this.completePut(path, data, sizeBytes, on, f);
    return f;
  }

  private completePut(path: string, data: unknown, sizeBytes: number, on: Executor, f: CompletableFuture<void>): void {
    on.execute('store-put', () => {
      if (this.putFailures > 0) {
        this.putFailures--;
        f.completeExceptionally(new StorageError(`put ${path} failed`, 'failed'));
        return;
      }
      this.files.set(path, { data, sizeBytes });
      f.complete(undefined);
    });
  }

  get(path: string, on: Executor): CompletableFuture<StoredObject> {
    const f = new CompletableFuture<StoredObject>();
    on.execute('store-get', () => {
      const o = this.files.get(path);
      if (o === undefined) f.completeExceptionally(new StorageError(`${path} not found`, 'not-found'));
      else f.complete(o);
    });
    return f;
  }

  delete(path: string, on: Executor): CompletableFuture<void> {
    const f = new CompletableFuture<void>();
    on.execute('store-delete', () => {
      this.files.delete(path);
      this.deleted.push(path);
      f.complete(undefined);
    });
    return f;
  }

  deleteDirectory(prefix: string, on: Executor): CompletableFuture<void> {
    const f = new CompletableFuture<void>();
    on.execute('store-delete-dir', () => {
      for (const p of [...this.files.keys()]) if (p.startsWith(`${prefix}/`)) this.files.delete(p);
      this.deleted.push(`${prefix}/`);
      f.complete(undefined);
    });
    return f;
  }

  list(prefix: string, on: Executor): CompletableFuture<string[]> {
    const f = new CompletableFuture<string[]>();
    on.execute('store-list', () => f.complete([...this.files.keys()].filter((p) => p.startsWith(`${prefix}/`)).sort()));
    return f;
  }
}
