/**
 * The slots of one TaskExecutor: which are allocated to which JobMaster, and which task attempts
 * run in each. With slot sharing a slot holds one subtask of each vertex.
 *
 * @see org.apache.flink.runtime.taskexecutor.slot.TaskSlotTableImpl
 * Invariants: a task runs only in an allocated slot; an attempt id is in at most one slot.
 */
import type { ExecutionAttemptId, RpcAddress } from '../api/ids.ts';
import { assert } from '../util/assert.ts';

interface Slot {
  jobMaster: RpcAddress | undefined;
  readonly tasks: Set<ExecutionAttemptId>;
}

export class TaskSlotTable {
  private readonly slots: Slot[];

  constructor(readonly numSlots: number) {
    assert(Number.isInteger(numSlots) && numSlots > 0, `slot count must be positive, got ${numSlots}`);
    this.slots = Array.from({ length: numSlots }, () => ({ jobMaster: undefined, tasks: new Set() }));
  }

  /** Allocates slot `index` to `jobMaster`; false if it is allocated to another one or out of range. */
  allocateSlot(index: number, jobMaster: RpcAddress): boolean {
    const s = this.slots[index];
    if (s === undefined) return false;
    if (s.jobMaster !== undefined && s.jobMaster !== jobMaster) return false;
    s.jobMaster = jobMaster;
    return true;
  }

  /** Frees slot `index`; returns the attempts still running in it (the caller fails them). */
  freeSlot(index: number): ExecutionAttemptId[] {
    const s = this.slots[index];
    if (s === undefined) return [];
    const tasks = [...s.tasks];
    s.jobMaster = undefined;
    s.tasks.clear();
    return tasks;
  }

  /** Per slot, the JobMaster it is allocated to (a slot report). */
  allocations(): (RpcAddress | undefined)[] {
    return this.slots.map((s) => s.jobMaster);
  }

  /** Indexes of the slots allocated to `jobMaster`. */
  slotsOf(jobMaster: RpcAddress): number[] {
    return this.slots.flatMap((s, i) => (s.jobMaster === jobMaster ? [i] : []));
  }

  isAllocated(index: number): boolean {
    return this.slots[index]?.jobMaster !== undefined;
  }

  /** Adds a task attempt to an allocated slot; false if the slot is not allocated. */
  addTask(index: number, attempt: ExecutionAttemptId): boolean {
    const s = this.slots[index];
    if (s === undefined || s.jobMaster === undefined) return false;
    s.tasks.add(attempt);
    return true;
  }

  removeTask(attempt: ExecutionAttemptId): void {
    for (const s of this.slots) s.tasks.delete(attempt);
  }

  checkInvariants(): void {
    const seen = new Set<ExecutionAttemptId>();
    for (const s of this.slots) {
      for (const t of s.tasks) {
        assert(s.jobMaster !== undefined, `task ${t} in an unallocated slot`);
        assert(!seen.has(t), `task ${t} in two slots`);
        seen.add(t);
      }
    }
  }
}
