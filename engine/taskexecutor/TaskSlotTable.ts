/**
 * The slots of one TaskExecutor: which are allocated, under which allocation id, to which
 * JobMaster; which of them the JobMaster accepted (active); and which task attempts run in each.
 * With slot sharing a slot holds one subtask of each vertex.
 *
 * The allocation id is what makes the slot protocol safe against late and duplicated messages:
 * a request, a free notification or a slot report only ever acts on the allocation it names,
 * never on whatever allocation the slot happens to hold when the message arrives.
 *
 * @see org.apache.flink.runtime.taskexecutor.slot.TaskSlotTableImpl
 * Invariants: a task runs only in an allocated slot; an attempt id is in at most one slot; an
 * active slot is allocated.
 */
import type { ExecutionAttemptId, RpcAddress } from '../api/ids.ts';
import { assert } from '../util/assert.ts';

/** One allocated slot of a slot report (SlotStatus with its AllocationID and job). */
export interface SlotAllocation {
  readonly allocationId: string;
  readonly jobMaster: RpcAddress;
}

interface Slot {
  allocation: SlotAllocation | undefined;
  /** The JobMaster accepted the slot's offer (TaskSlotState.ACTIVE). */
  active: boolean;
  readonly tasks: Set<ExecutionAttemptId>;
}

/**
 * A slot request for a slot that holds another allocation; carries that allocation so the
 * ResourceManager can adopt it.
 * @see org.apache.flink.runtime.taskexecutor.exceptions.SlotOccupiedException
 */
export class SlotOccupiedException extends Error {
  override readonly name = 'SlotOccupiedException';
  constructor(message: string, readonly slotIndex: number, readonly occupiedBy: SlotAllocation | undefined) {
    super(message);
  }
}

/** What {@link TaskSlotTable.allocateSlot} did. */
export type AllocateResult = 'allocated' | 'duplicate' | 'conflict';

export class TaskSlotTable {
  private readonly slots: Slot[];

  constructor(readonly numSlots: number) {
    assert(Number.isInteger(numSlots) && numSlots > 0, `slot count must be positive, got ${numSlots}`);
    this.slots = Array.from({ length: numSlots }, () => ({ allocation: undefined, active: false, tasks: new Set() }));
  }

  /**
   * Allocates slot `index` under `allocationId` to `jobMaster`. 'duplicate' when it already holds
   * that allocation (a retried request); 'conflict' when it holds another one or is out of range.
   */
  allocateSlot(index: number, allocationId: string, jobMaster: RpcAddress): AllocateResult {
    const s = this.slots[index];
    if (s === undefined) return 'conflict';
    if (s.allocation !== undefined) return s.allocation.allocationId === allocationId ? 'duplicate' : 'conflict';
    s.allocation = { allocationId, jobMaster };
    s.active = false;
    return 'allocated';
  }

  /**
   * Frees slot `index` if it holds `allocationId` (any allocation when undefined). Returns the
   * attempts still running in it (the caller fails them), or undefined if nothing was freed.
   */
  freeSlot(index: number, allocationId?: string): ExecutionAttemptId[] | undefined {
    const s = this.slots[index];
    if (s?.allocation === undefined) return undefined;
    if (allocationId !== undefined && s.allocation.allocationId !== allocationId) return undefined;
    const tasks = [...s.tasks];
    s.allocation = undefined;
    s.active = false;
    s.tasks.clear();
    return tasks;
  }

  /** Marks slot `index` active if it holds `allocationId` (the JobMaster accepted it). */
  markActive(index: number, allocationId: string): boolean {
    const s = this.slots[index];
    if (s?.allocation?.allocationId !== allocationId) return false;
    s.active = true;
    return true;
  }

  /** The slot report: per slot, its allocation or undefined when free. */
  allocations(): (SlotAllocation | undefined)[] {
    return this.slots.map((s) => s.allocation);
  }

  /** The allocation of slot `index`, if any. */
  allocationOf(index: number): SlotAllocation | undefined {
    return this.slots[index]?.allocation;
  }

  /** Indexes of the slots allocated to `jobMaster`. */
  slotsOf(jobMaster: RpcAddress): number[] {
    return this.slots.flatMap((s, i) => (s.allocation?.jobMaster === jobMaster ? [i] : []));
  }

  /** The allocation ids of the slots allocated to `jobMaster` (an AllocatedSlotReport). */
  allocationIdsOf(jobMaster: RpcAddress): string[] {
    const out: string[] = [];
    for (const s of this.slots) if (s.allocation?.jobMaster === jobMaster) out.push(s.allocation.allocationId);
    return out;
  }

  /** Indexes of the slots allocated to `jobMaster` that it has not accepted yet (to offer). */
  reservedSlotsOf(jobMaster: RpcAddress): number[] {
    return this.slots.flatMap((s, i) => (s.allocation?.jobMaster === jobMaster && !s.active ? [i] : []));
  }

  isAllocated(index: number): boolean {
    return this.slots[index]?.allocation !== undefined;
  }

  /** Adds a task attempt to slot `index` if it holds `allocationId`; false otherwise. */
  addTask(index: number, allocationId: string, attempt: ExecutionAttemptId): boolean {
    const s = this.slots[index];
    if (s?.allocation?.allocationId !== allocationId) return false;
    s.active = true;
    s.tasks.add(attempt);
    return true;
  }

  removeTask(attempt: ExecutionAttemptId): void {
    for (const s of this.slots) s.tasks.delete(attempt);
  }

  checkInvariants(): void {
    const seen = new Set<ExecutionAttemptId>();
    for (const s of this.slots) {
      assert(!s.active || s.allocation !== undefined, 'an active slot without an allocation');
      for (const t of s.tasks) {
        assert(s.allocation !== undefined, `task ${t} in an unallocated slot`);
        assert(!seen.has(t), `task ${t} in two slots`);
        seen.add(t);
      }
    }
  }
}
