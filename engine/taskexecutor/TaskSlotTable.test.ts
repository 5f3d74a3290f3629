import { describe, expect, test } from 'vitest';
import { executionAttemptId, rpcAddress } from '../api/ids.ts';
import { TaskSlotTable } from './TaskSlotTable.ts';

const JM = rpcAddress('jm');
const OTHER = rpcAddress('other');

describe('TaskSlotTable: allocations by AllocationID', () => {
  test('a repeated request of the same allocation is a duplicate; another allocation conflicts', () => {
    const t = new TaskSlotTable(2);
    expect(t.allocateSlot(0, 'a1', JM)).toBe('allocated');
    expect(t.allocateSlot(0, 'a1', JM)).toBe('duplicate');
    expect(t.allocateSlot(0, 'a2', JM)).toBe('conflict');
    expect(t.allocateSlot(5, 'a3', JM)).toBe('conflict');
    expect(t.allocations()).toEqual([{ allocationId: 'a1', jobMaster: JM }, undefined]);
  });

  test('freeing names the allocation: a stale free of an earlier allocation leaves the new one', () => {
    const t = new TaskSlotTable(1);
    t.allocateSlot(0, 'a1', JM);
    expect(t.freeSlot(0, 'a1')).toEqual([]);
    t.allocateSlot(0, 'a2', JM);
    expect(t.freeSlot(0, 'a1')).toBeUndefined();
    expect(t.allocationOf(0)?.allocationId).toBe('a2');
  });

  test('tasks need the allocation they were deployed for; freeing returns them to fail', () => {
    const t = new TaskSlotTable(1);
    t.allocateSlot(0, 'a1', JM);
    expect(t.addTask(0, 'a0', executionAttemptId('task-x'))).toBe(false);
    expect(t.addTask(0, 'a1', executionAttemptId('task-y'))).toBe(true);
    expect(t.freeSlot(0)).toEqual(['task-y']);
    expect(t.isAllocated(0)).toBe(false);
  });

  test('reserved slots are those allocated to the JobMaster and not accepted yet', () => {
    const t = new TaskSlotTable(3);
    t.allocateSlot(0, 'a1', JM);
    t.allocateSlot(1, 'a2', JM);
    t.allocateSlot(2, 'a3', OTHER);
    expect(t.markActive(0, 'a1')).toBe(true);
    expect(t.markActive(1, 'wrong')).toBe(false);
    expect(t.reservedSlotsOf(JM)).toEqual([1]);
    expect(t.slotsOf(JM)).toEqual([0, 1]);
    expect(t.allocationIdsOf(JM)).toEqual(['a1', 'a2']);
    t.checkInvariants();
  });
});
