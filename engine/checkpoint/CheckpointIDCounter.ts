/**
 * Hands out checkpoint ids: 1, 2, 3, ... never reused, not reset on failover.
 *
 * @see org.apache.flink.runtime.checkpoint.StandaloneCheckpointIDCounter (reference 1.1, 8.13)
 * Invariants: the next id is >= 1 and never decreases.
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import { checkpointId, type CheckpointId } from '../api/ids.ts';
import { assert } from '../util/assert.ts';

/** CheckpointIDCounter.INITIAL_CHECKPOINT_ID. */
export const INITIAL_CHECKPOINT_ID = 1;

export class CheckpointIDCounter {
  private next = INITIAL_CHECKPOINT_ID;

  constructor(env: EngineEnv) {
    env.invariants.register('checkpoint-id-counter', () => this.checkInvariants());
  }

  /** Returns the current id and advances the counter. */
  getAndIncrement(): CheckpointId {
    const id = this.next;
    this.next++;
    return checkpointId(id);
  }

  /** The id the next {@link getAndIncrement} returns. */
  get(): number {
    return this.next;
  }

  /**
   * Sets the next id (restoring from a savepoint sets it to savepointId + 1; an extension point).
   * @throws AssertionError if `next` is not an integer >= 1 or would go backwards.
   */
  setCount(next: number): void {
    assert(Number.isInteger(next) && next >= this.next, () => `id counter cannot go to ${next}`);
    this.next = next;
  }

  checkInvariants(): void {
    assert(Number.isInteger(this.next) && this.next >= INITIAL_CHECKPOINT_ID, 'bad id counter');
  }
}
