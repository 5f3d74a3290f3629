/**
 * The JobMaster's slot pool: slots the TaskExecutors offered, by AllocationID. Slots of a lost
 * TaskExecutor leave the pool, and so do slots whose allocation the TaskExecutor no longer
 * reports (its heartbeat's allocated-slot report) or that a new allocation of the same physical
 * slot replaced.
 *
 * @see org.apache.flink.runtime.jobmaster.slotpool.DefaultDeclarativeSlotPool
 * Invariant: an allocation id and a physical slot (TaskExecutor, index) are each in the pool at
 * most once.
 */
import type { HostId, RpcAddress } from '../api/ids.ts';
import { assert } from '../util/assert.ts';

/** A slot the JobMaster holds. */
export interface AllocatedSlot {
  readonly taskExecutor: RpcAddress;
  readonly host: HostId;
  readonly slotIndex: number;
  readonly allocationId: string;
}

export class SlotPool {
  private readonly slots: AllocatedSlot[] = [];

  /**
   * Accepts an offered slot. An allocation already in the pool is accepted again unchanged; an
   * offer of a new allocation for a physical slot the pool holds under an older allocation
   * replaces it (the old one is returned, so its tasks can be failed).
   */
  offer(slot: AllocatedSlot): { readonly replaced: AllocatedSlot | undefined } {
    if (this.slots.some((s) => s.allocationId === slot.allocationId)) return { replaced: undefined };
    const i = this.slots.findIndex((s) => s.taskExecutor === slot.taskExecutor && s.slotIndex === slot.slotIndex);
    const replaced = i >= 0 ? this.slots.splice(i, 1)[0] : undefined;
    this.slots.push(slot);
    return { replaced };
  }

  /** Removes every slot of `taskExecutor`; returns them. */
  releaseTaskManager(taskExecutor: RpcAddress): AllocatedSlot[] {
    return this.removeWhere((s) => s.taskExecutor === taskExecutor);
  }

  /**
   * Removes the slots of `taskExecutor` whose allocation is not in `allocationIds` (its
   * allocated-slot report); returns them.
   */
  syncAllocatedSlotReport(taskExecutor: RpcAddress, allocationIds: readonly string[]): AllocatedSlot[] {
    return this.removeWhere((s) => s.taskExecutor === taskExecutor && !allocationIds.includes(s.allocationId));
  }

  /** Removes the slots matching `gone`, keeping the others in offer order; returns the removed. */
  private removeWhere(gone: (s: AllocatedSlot) => boolean): AllocatedSlot[] {
    const removed: AllocatedSlot[] = [];
    let kept = 0;
    for (const s of this.slots) {
      if (gone(s)) removed.push(s);
      else this.slots[kept++] = s;
    }
    this.slots.length = kept;
    return removed;
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
    assert(new Set(this.slots.map((s) => s.allocationId)).size === this.slots.length, 'duplicate allocation in pool');
  }
}
