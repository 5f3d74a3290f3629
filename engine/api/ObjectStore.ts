/**
 * The durable object store that holds checkpoint data (Flink's checkpoint storage: a file
 * system or S3). It survives every crash and is reachable from every live host; partitions cut
 * RPC and data connections only.
 *
 * Every operation is asynchronous with a latency decision, and its future completes as a task on
 * the executor the caller names (the thread that waits for it). Injected faults: a failed
 * operation ({@link StorageError} `failed`, nothing happened), and a write whose outcome the
 * writer never learns (`unknown-outcome`: the data may or may not be there).
 *
 * @see org.apache.flink.core.fs.FileSystem, org.apache.flink.runtime.state.CheckpointStorage
 */
import type { CompletableFuture } from '../util/CompletableFuture.ts';
import type { Executor } from './Executor.ts';
import { ExpectedError } from '../util/ExpectedError.ts';

/** A failed storage operation (an expected outcome: no stack trace). */
export class StorageError extends ExpectedError {
  override readonly name = 'StorageError';
  // `event` (ExpectedError): the store sets it to the operation's `store.end`.
  constructor(
    message: string,
    /** `failed`: nothing happened; `unknown-outcome`: the write may or may not have happened. */
    readonly outcome: 'failed' | 'unknown-outcome' | 'not-found',
  ) {
    super(message);
  }
}

/** An object as stored: the payload is kept by reference and must not be mutated. */
export interface StoredObject {
  readonly data: unknown;
  readonly sizeBytes: number;
}

/** The object store as seen from one host. Paths are `/`-separated, e.g. `chk-3/op-1-0`. */
export interface ObjectStore {
  /** Writes (or overwrites) `path`. */
  put(path: string, data: unknown, sizeBytes: number, on: Executor): CompletableFuture<void>;
  /** Reads `path`; fails with StorageError `not-found` if absent. */
  get(path: string, on: Executor): CompletableFuture<StoredObject>;
  /** Deletes `path`; deleting a missing path succeeds. */
  delete(path: string, on: Executor): CompletableFuture<void>;
  /** Deletes every path under `prefix/` (a directory). */
  deleteDirectory(prefix: string, on: Executor): CompletableFuture<void>;
  /** Lists the paths under `prefix/`, sorted. */
  list(prefix: string, on: Executor): CompletableFuture<string[]>;
}
