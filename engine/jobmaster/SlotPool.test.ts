import { describe, expect, test } from 'vitest';
import { hostId, rpcAddress } from '../api/ids.ts';
import { SlotPool } from './SlotPool.ts';

const slot = (allocationId: string, slotIndex = 0, taskExecutor = 'te-1') =>
  ({ taskExecutor: rpcAddress(taskExecutor), host: hostId('taskmanager-1'), slotIndex, allocationId });

describe('SlotPool: slots by AllocationID', () => {
  test('an allocation offered again is accepted once; a new allocation of the same slot replaces the old', () => {
    const pool = new SlotPool();
    const a1 = slot('a1');
    expect(pool.offer(a1).replaced).toBeUndefined();
    expect(pool.offer(slot('a1')).replaced).toBeUndefined();
    expect(pool.size).toBe(1);
    expect(pool.offer(slot('a2')).replaced).toBe(a1);
    expect(pool.all().map((s) => s.allocationId)).toEqual(['a2']);
    pool.checkInvariants();
  });

  test('the allocated-slot report removes exactly the allocations the TaskExecutor no longer holds', () => {
    const pool = new SlotPool();
    pool.offer(slot('a1', 0));
    pool.offer(slot('a2', 1));
    pool.offer(slot('b1', 0, 'te-2'));
    const gone = pool.syncAllocatedSlotReport(rpcAddress('te-1'), ['a2']);
    expect(gone.map((s) => s.allocationId)).toEqual(['a1']);
    expect(pool.all().map((s) => s.allocationId)).toEqual(['a2', 'b1']);
    expect(pool.releaseTaskManager(rpcAddress('te-2')).map((s) => s.allocationId)).toEqual(['b1']);
  });
});
