/**
 * The JobMaster's slot pool: slots the TaskExecutors offered, which are free and which hold a
 * shared slot (one subtask of each vertex, slot sharing). Slots of a lost TaskExecutor leave
 * the pool.
 *
 * @see org.apache.flink.runtime.jobmaster.slotpool.DefaultDeclarativeSlotPool
 * Invariant: a slot is assigned to at most one shared-slot index.
 */
import type { HostId, RpcAddress } from '../api/ids.ts';
import { assert } from '../util/assert.ts';

/** A slot the JobMaster holds. */
export interface AllocatedSlot {
  readonly taskExecutor: RpcAddress;
  readonly host: HostId;
  readonly slotIndex: number;
}

export class SlotPool {
  private readonly slots: AllocatedSlot[] = [];

  /** Accepts an offered slot; duplicates are ignored. Returns true if it is in the pool now. */
  offer(slot: AllocatedSlot): boolean {
    if (!this.slots.some((s) => s.taskExecutor === slot.taskExecutor && s.slotIndex === slot.slotIndex)) {
      this.slots.push(slot);
    }
    return true;
  }

  /** Removes every slot of `taskExecutor`; returns them. */
  releaseTaskManager(taskExecutor: RpcAddress): AllocatedSlot[] {
    const gone = this.slots.filter((s) => s.taskExecutor === taskExecutor);
    for (const g of gone) this.slots.splice(this.slots.indexOf(g), 1);
    return gone;
  }

  /** Removes one slot. */
  release(slot: AllocatedSlot): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
  }

  /** Slots in offer order. */
  all(): readonly AllocatedSlot[] {
    return this.slots;
  }

  get size(): number {
    return this.slots.length;
  }

  checkInvariants(): void {
    const keys = new Set(this.slots.map((s) => `${s.taskExecutor}/${s.slotIndex}`));
    assert(keys.size === this.slots.length, 'duplicate slot in pool');
  }
}
