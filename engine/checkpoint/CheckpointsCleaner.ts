/**
 * Discards the files of aborted and subsumed checkpoints, and the state of late or unknown acks,
 * asynchronously on the JobMaster ioExecutor through the object store. It counts the checkpoints
 * still being cleaned, which CheckpointRequestDecider uses to hold back new triggers.
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointsCleaner (reference 1.10, 1.12)
 * Invariants: the count of checkpoints being cleaned is >= 0 and equals the cleanings started
 * and not yet finished.
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { Executor } from '../api/Executor.ts';
import { assert } from '../util/assert.ts';
import { CompletableFuture } from '../util/CompletableFuture.ts';

export class CheckpointsCleaner {
  private cleaning = 0;

  constructor(private readonly env: EngineEnv, private readonly io: Executor) {
    env.invariants.register('checkpoints-cleaner', () => this.checkInvariants());
  }

  /** Checkpoints whose cleanup started and has not finished. */
  numberOfCheckpointsToClean(): number {
    return this.cleaning;
  }

  /**
   * Deletes `files` and then the whole `directory` (if given) of checkpoint `checkpointId`,
   * counted as a checkpoint being cleaned; `postCleanAction` runs on the ioExecutor once every
   * delete finished (failed deletes are traced and otherwise ignored, as Flink logs them).
   */
  cleanCheckpoint(checkpointId: number, files: readonly string[], directory: string | undefined,
    postCleanAction: () => void): void {
    this.cleaning++;
    this.io.execute('checkpoint-discard', () => {
      const deletes = files.map((p) => this.env.objectStore.delete(p, this.io));
      if (directory !== undefined) deletes.push(this.env.objectStore.deleteDirectory(directory, this.io));
      this.whenAllSettled(deletes, () => {
        this.cleaning--;
        this.env.tracer.event('checkpoint.discarded', { checkpointId, files: files.length });
        postCleanAction();
      });
    });
  }

  /**
   * Deletes the files of one subtask's state (a late, unknown or aborted ack); not counted. A
   * state without files (a stateless or finished task's) is discarded too, as Flink discards
   * every rejected TaskStateSnapshot, so each discard shows in the trace.
   */
  discardSubtaskState(checkpointId: number, files: readonly string[]): void {
    this.io.execute('subtask-state-discard', () => {
      const deletes = files.map((p) => this.env.objectStore.delete(p, this.io));
      this.whenAllSettled(deletes, () => {
        this.env.tracer.event('checkpoint.subtaskStateDiscarded', { checkpointId, files: files.length });
      });
    });
  }

  private whenAllSettled(futures: readonly CompletableFuture<void>[], then: () => void): void {
    const settled = futures.map((f) => f.exceptionally((e) => {
      this.env.tracer.event('checkpoint.discardFailed', { error: e instanceof Error ? e.message : String(e) });
      return undefined;
    }));
    CompletableFuture.allOf(settled).whenComplete(() => then());
  }

  checkInvariants(): void {
    assert(Number.isInteger(this.cleaning) && this.cleaning >= 0, 'negative cleaning count');
  }
}
