import { describe, expect, test } from 'vitest';
import type { ConsumerEnd, NetworkError } from '../api/DataNetwork.ts';
import type { CheckpointBarrier } from '../checkpoint/CheckpointBarrier.ts';
import type { StreamRecord } from '../streaming/api/StreamRecord.ts';
import { TestingIoWorld } from '../testing/TestingIoWorld.ts';
import type { NetworkBuffer } from './NetworkBuffer.ts';
import { subpartitionKey } from './NetworkBuffer.ts';
import { EVENT_SIZE_BYTES } from './PipelinedSubpartition.ts';
import { ResultPartition } from './ResultPartition.ts';
import type { ResultPartitionOptions } from './ResultPartition.ts';

const rec = (offset: number): StreamRecord => ({ value: offset, split: 0, offset, tag: '' });

type Alignment = CheckpointBarrier['options']['alignment'];

function barrier(id: number, alignment: Alignment): CheckpointBarrier {
  return {
    id, timestampUs: 0,
    options: { snapshotType: 'CHECKPOINT', alignment, alignedCheckpointTimeoutUs: 0 },
  };
}

/** A raw consumer of one subpartition that records what arrives and never recycles by itself. */
class RawConsumer {
  readonly received: NetworkBuffer[] = [];
  readonly errors: NetworkError[] = [];
  connected = false;
  readonly end: ConsumerEnd;

  constructor(world: TestingIoWorld, key: string, initialCredit: number) {
    this.end = world.consumerEnv.network.connect({
      key, producerHost: world.producerHost, executor: world.consumerExecutor, initialCredit,
      handlers: {
        onConnected: () => {
          this.connected = true;
        },
        onPayload: (p) => {
          this.received.push(p as NetworkBuffer);
        },
        onError: (e) => {
          this.errors.push(e);
        },
      },
    });
  }

  /** Offsets of the records received, in order; events as `E:<type>`. */
  trace(): (number | string)[] {
    return this.received.flatMap<number | string>((b) => b.kind === 'data'
      ? b.records.map((r) => r.offset)
      : [`E:${b.event.type === 'barrier' ? `barrier${b.event.barrier.id}` : b.event.type}`]);
  }
}

function makePartition(world: TestingIoWorld, overrides: Partial<ResultPartitionOptions> = {}) {
  const errors: Error[] = [];
  const partition = new ResultPartition({
    env: world.producerEnv,
    partitionId: 'e0/0@0',
    numSubpartitions: 2,
    executor: world.producerExecutor,
    recordsPerBuffer: 4,
    bufferTimeoutUs: 100,
    recordSizeBytes: 10,
    onError: (e) => errors.push(e),
    ...overrides,
  });
  partition.setup();
  return { partition, errors };
}

describe('ResultPartition', () => {
  test('batches records into buffers and keeps FIFO order per subpartition', () => {
    const world = new TestingIoWorld();
    const { partition } = makePartition(world);
    const c0 = new RawConsumer(world, subpartitionKey('e0/0@0', 0), 100);
    const c1 = new RawConsumer(world, subpartitionKey('e0/0@0', 1), 100);
    world.runAll();
    for (let i = 0; i < 20; i++) partition.emitRecord(rec(i), i % 2);
    world.runAll();
    expect(c0.trace()).toEqual([0, 2, 4, 6, 8, 10, 12, 14]);
    expect(c1.trace()).toEqual([1, 3, 5, 7, 9, 11, 13, 15]);
    expect(c0.received.every((b) => b.kind === 'data' && b.records.length === 4)).toBe(true);
    expect(c0.received[0]?.sizeBytes).toBe(40);
    expect(partition.buffersInUse).toBe(2); // the two partial buffers
    // The output flusher finishes the partial buffers after the buffer timeout.
    world.scheduler.advanceTimeUs(100);
    expect(c0.trace()).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18]);
    expect(c1.trace()).toEqual([1, 3, 5, 7, 9, 11, 13, 15, 17, 19]);
    expect(partition.buffersInUse).toBe(0);
    // An idle partition leaves no timer behind.
    world.scheduler.advanceTimeUs(1000);
    expect(world.scheduler.numPendingTimers()).toBe(0);
  });

  test('bufferTimeoutUs 0 sends every record in its own buffer', () => {
    const world = new TestingIoWorld();
    const { partition } = makePartition(world, { bufferTimeoutUs: 0, numSubpartitions: 1 });
    const c = new RawConsumer(world, subpartitionKey('e0/0@0', 0), 10);
    world.runAll();
    partition.emitRecord(rec(1), 0);
    partition.emitRecord(rec(2), 0);
    world.runAll();
    expect(c.received.map((b) => b.kind === 'data' ? b.records.length : -1)).toEqual([1, 1]);
    expect(world.scheduler.numPendingTimers()).toBe(0);
  });

  test('a consumer connecting after records were produced receives them all', () => {
    const world = new TestingIoWorld();
    const { partition } = makePartition(world, { numSubpartitions: 1 });
    for (let i = 0; i < 6; i++) partition.emitRecord(rec(i), 0);
    partition.flushAll();
    world.runAll();
    const c = new RawConsumer(world, subpartitionKey('e0/0@0', 0), 10);
    world.runAll();
    expect(c.connected).toBe(true);
    expect(c.trace()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(world.tracer.eventsOf('io.partition.consumer-connected')).toHaveLength(1);
  });

  test('a second live consumer is refused; after a close another may connect', () => {
    const world = new TestingIoWorld();
    makePartition(world, { numSubpartitions: 1 });
    const key = subpartitionKey('e0/0@0', 0);
    const first = new RawConsumer(world, key, 2);
    world.runAll();
    const second = new RawConsumer(world, key, 2);
    world.runAll();
    expect(first.errors).toEqual([]);
    expect(second.errors.map((e) => e.reason)).toEqual(['closed']);
    first.end.close();
    world.runAll();
    const third = new RawConsumer(world, key, 2);
    world.runAll();
    expect(third.connected).toBe(true);
    expect(third.errors).toEqual([]);
  });

  test('data waits for credit while events need none', () => {
    const world = new TestingIoWorld();
    const { partition } = makePartition(world, { numSubpartitions: 1, recordsPerBuffer: 1 });
    const c = new RawConsumer(world, subpartitionKey('e0/0@0', 0), 1);
    world.runAll();
    for (let i = 0; i < 3; i++) partition.emitRecord(rec(i), 0);
    partition.broadcastEvent({ type: 'end-of-data', stopMode: 'DRAIN' });
    world.runAll();
    // One credit: one data buffer; the event stays behind the queued data (FIFO).
    expect(c.trace()).toEqual([0]);
    expect(partition.getNumberOfQueuedBuffers(0)).toBe(3);
    expect(partition.getBuffersInBacklog(0)).toBe(2);
    c.end.grantCredit(5);
    world.runAll();
    expect(c.trace()).toEqual([0, 1, 2, 'E:end-of-data']);
    const conn = world.network.connectionsFor(subpartitionKey('e0/0@0', 0))[0];
    expect(conn?.sent.map((s) => s.priority)).toEqual([false, false, false, true]);
    expect(conn?.sent[3]?.sizeBytes).toBe(EVENT_SIZE_BYTES);
    expect(partition.getBuffersSent(0)).toBe(4);
  });

  test('a full pool makes the partition unavailable until buffers are transmitted', () => {
    const world = new TestingIoWorld();
    const { partition } = makePartition(world,
      { numSubpartitions: 1, recordsPerBuffer: 1, poolSize: 3 });
    const c = new RawConsumer(world, subpartitionKey('e0/0@0', 0), 0);
    world.runAll();
    let available = 0;
    for (let i = 0; partition.isAvailable(); i++) partition.emitRecord(rec(i), 0);
    expect(partition.buffersInUse).toBe(3);
    partition.onAvailable(() => available++);
    world.runAll();
    expect(available).toBe(0);
    expect(world.tracer.hasMark('io.partition.backpressured')).toBe(true);
    c.end.grantCredit(1);
    world.runAll();
    expect(available).toBe(1);
    expect(partition.isAvailable()).toBe(true);
    expect(partition.peakBuffersInUse).toBe(3);
    // Already available: the listener still runs as a task.
    partition.onAvailable(() => available++);
    expect(available).toBe(1);
    world.runAll();
    expect(available).toBe(2);
  });

  test('an availability listener learns when a buffer came back (the time back pressure ends)', () => {
    const world = new TestingIoWorld();
    const { partition } = makePartition(world,
      { numSubpartitions: 1, recordsPerBuffer: 1, poolSize: 2 });
    const c = new RawConsumer(world, subpartitionKey('e0/0@0', 0), 0);
    world.runAll();
    for (let i = 0; partition.isAvailable(); i++) partition.emitRecord(rec(i), 0);
    const told: number[] = [];
    partition.onAvailable((atUs) => told.push(atUs));
    world.scheduler.advanceTimeUs(700);
    expect(told).toEqual([]);
    c.end.grantCredit(1);
    world.runAll();
    expect(told).toEqual([700]);
    world.scheduler.advanceTimeUs(200);
    partition.onAvailable((atUs) => told.push(atUs));
    world.runAll();
    expect(told).toEqual([700, 900]);
  });

  test('an aligned barrier blocks the subpartition until resume-consumption', () => {
    const world = new TestingIoWorld();
    const { partition } = makePartition(world, { numSubpartitions: 1, recordsPerBuffer: 2 });
    const c = new RawConsumer(world, subpartitionKey('e0/0@0', 0), 10);
    world.runAll();
    partition.emitRecord(rec(0), 0);
    const overtaken = partition.broadcastEvent({ type: 'barrier', barrier: barrier(1, 'ALIGNED') });
    expect(overtaken).toEqual([[]]);
    partition.emitRecord(rec(1), 0);
    partition.emitRecord(rec(2), 0);
    world.runAll();
    expect(c.trace()).toEqual([0, 'E:barrier1']);
    expect(partition.isBlocked(0)).toBe(true);
    expect(world.tracer.eventsOf('io.partition.blocked')).toHaveLength(1);
    c.end.sendUpstream({ type: 'resume-consumption' });
    world.runAll();
    expect(partition.isBlocked(0)).toBe(false);
    expect(c.trace()).toEqual([0, 'E:barrier1', 1, 2]);
  });

  test('an unaligned barrier overtakes queued data and reports the overtaken buffers', () => {
    const world = new TestingIoWorld();
    const { partition } = makePartition(world, { recordsPerBuffer: 2 });
    const c0 = new RawConsumer(world, subpartitionKey('e0/0@0', 0), 0);
    const c1 = new RawConsumer(world, subpartitionKey('e0/0@0', 1), 0);
    world.runAll();
    for (let i = 0; i < 5; i++) partition.emitRecord(rec(i), 0);
    partition.emitRecord(rec(5), 1);
    const first = partition.broadcastEvent(
      { type: 'barrier', barrier: barrier(7, 'UNALIGNED') }, { priority: true });
    // The partial buffers were flushed first, so they are overtaken too.
    expect(first[0]?.map((b) => (b.kind === 'data' ? b.records.map((r) => r.offset) : [])))
      .toEqual([[0, 1], [2, 3], [4]]);
    expect(first[1]?.map((b) => (b.kind === 'data' ? b.records.map((r) => r.offset) : [])))
      .toEqual([[5]]);
    world.runAll();
    expect(c0.trace()).toEqual(['E:barrier7']);
    expect(c1.trace()).toEqual(['E:barrier7']);
    expect(world.tracer.hasMark('io.priority-event-overtook-data')).toBe(true);
    c0.end.grantCredit(10);
    world.runAll();
    expect(c0.trace()).toEqual(['E:barrier7', 0, 1, 2, 3, 4]);
  });

  test('a priority event queues behind earlier priority events', () => {
    const world = new TestingIoWorld();
    const { partition } = makePartition(world, { numSubpartitions: 1, recordsPerBuffer: 1 });
    partition.emitRecord(rec(0), 0);
    const unaligned = { type: 'barrier', barrier: barrier(1, 'UNALIGNED') } as const;
    partition.broadcastEvent(unaligned, { priority: true });
    partition.emitRecord(rec(1), 0);
    const second = partition.broadcastEvent(
      { type: 'barrier', barrier: barrier(2, 'UNALIGNED') }, { priority: true });
    expect(second[0]?.length).toBe(2);
    const c = new RawConsumer(world, subpartitionKey('e0/0@0', 0), 10);
    world.runAll();
    expect(c.trace()).toEqual(['E:barrier1', 'E:barrier2', 0, 1]);
  });

  test('finish sends EndOfPartition after the data; nothing may be emitted after', () => {
    const world = new TestingIoWorld();
    const { partition, errors } = makePartition(world);
    const c0 = new RawConsumer(world, subpartitionKey('e0/0@0', 0), 10);
    world.runAll();
    partition.emitRecord(rec(0), 0);
    partition.finish();
    expect(partition.isFinished()).toBe(true);
    expect(() => partition.emitRecord(rec(1), 0)).toThrow(/not producing/);
    world.runAll();
    expect(c0.trace()).toEqual([0, 'E:end-of-partition']);
    c0.end.close();
    world.runAll();
    expect(errors).toEqual([]);
    expect(world.scheduler.numPendingTimers()).toBe(0);
  });

  test('a broken connection fails the producer once; errors after release are ignored', () => {
    const world = new TestingIoWorld();
    const { errors } = makePartition(world);
    new RawConsumer(world, subpartitionKey('e0/0@0', 0), 10);
    new RawConsumer(world, subpartitionKey('e0/0@0', 1), 10);
    world.runAll();
    for (const conn of world.network.connections) world.network.break(conn);
    world.runAll();
    expect(errors.map((e) => (e as NetworkError).reason)).toEqual(['broken']);
    expect(world.tracer.eventsOf('io.partition.error')).toHaveLength(1);

    const world2 = new TestingIoWorld();
    const second = makePartition(world2);
    new RawConsumer(world2, subpartitionKey('e0/0@0', 0), 10);
    world2.runAll();
    second.partition.release();
    for (const conn of world2.network.connections) world2.network.break(conn);
    world2.runAll();
    expect(second.errors).toEqual([]);
  });

  test('release stops serving, closes connections and discards buffers', () => {
    const world = new TestingIoWorld();
    const { partition, errors } = makePartition(world, { numSubpartitions: 1 });
    const c = new RawConsumer(world, subpartitionKey('e0/0@0', 0), 0);
    world.runAll();
    for (let i = 0; i < 9; i++) partition.emitRecord(rec(i), 0);
    partition.release();
    partition.release();
    expect(partition.isReleased()).toBe(true);
    expect(partition.buffersInUse).toBe(0);
    expect(world.network.isServed(world.producerHost, subpartitionKey('e0/0@0', 0))).toBe(false);
    world.runAll();
    expect(c.errors.map((e) => e.reason)).toEqual(['closed']);
    expect(errors).toEqual([]);
    // Emitting after release is ignored (the task is being cancelled).
    partition.emitRecord(rec(10), 0);
    partition.broadcastRecord(rec(11));
    expect(partition.broadcastEvent({ type: 'end-of-data', stopMode: 'DRAIN' })).toEqual([[]]);
    partition.flushAll();
    partition.finish();
    expect(world.invariants.names()).toEqual([]);
  });

  test('broadcastRecord reaches every subpartition', () => {
    const world = new TestingIoWorld();
    const { partition } = makePartition(world, { numSubpartitions: 3, bufferTimeoutUs: 0 });
    const cs = [0, 1, 2].map((i) => new RawConsumer(world, subpartitionKey('e0/0@0', i), 5));
    world.runAll();
    partition.broadcastRecord(rec(42));
    world.runAll();
    expect(cs.map((c) => c.trace())).toEqual([[42], [42], [42]]);
  });

  test('programmer errors are assertions', () => {
    const world = new TestingIoWorld();
    const { partition } = makePartition(world, { numSubpartitions: 1 });
    expect(() => partition.emitRecord(rec(0), 3)).toThrow(/no subpartition 3/);
    expect(() => partition.broadcastEvent({ type: 'end-of-partition' })).toThrow(/finish/);
    expect(() => partition.broadcastEvent({ type: 'barrier', barrier: barrier(1, 'ALIGNED') },
      { priority: true })).toThrow(/unaligned/);
    expect(() => partition.setup()).toThrow(/twice/);
    expect(() => new ResultPartition({
      env: world.producerEnv, partitionId: 'x', numSubpartitions: 0,
      executor: world.producerExecutor, recordsPerBuffer: 1, bufferTimeoutUs: 0,
      recordSizeBytes: 1, onError: () => {},
    })).toThrow(/numSubpartitions/);
    const c = new RawConsumer(world, subpartitionKey('e0/0@0', 0), 1);
    world.runAll();
    c.end.sendUpstream({ type: 'resume-consumption' });
    expect(() => world.runAll()).toThrow(/unblocked subpartition/);
  });
});

describe('ResultPartition and lazy batches (MailboxProcessor)', () => {
  test('quietRecordCapacity: records that can go in with no buffer finished and the pool '
    + 'still available before each', () => {
    const world = new TestingIoWorld();
    // 2 subpartitions, 4 records per buffer, a pool of 4 buffers.
    const { partition } = makePartition(world, { poolSize: 4 });
    expect(partition.quietRecordCapacity(false)).toBe(3);
    partition.emitRecord(rec(0), 0);
    partition.emitRecord(rec(1), 0);
    // The fullest partial buffer has room for one more record before it is full.
    expect(partition.quietRecordCapacity(false)).toBe(1);
    expect(partition.quietRecordCapacity(true)).toBe(1);
    expect(makePartition(new TestingIoWorld(), { bufferTimeoutUs: 0 }).partition.quietRecordCapacity(false)).toBe(0);
  });

  test('quietRecordCapacity: as many records as free buffers when empty subpartitions could '
    + 'take them all; one when broadcast', () => {
    const world = new TestingIoWorld();
    const { partition } = makePartition(world, { numSubpartitions: 3, poolSize: 2, recordsPerBuffer: 32 });
    expect(partition.quietRecordCapacity(false)).toBe(2);
    expect(partition.quietRecordCapacity(true)).toBe(1);
    partition.emitRecord(rec(0), 0);
    // One free buffer, two empty subpartitions: the next record may take it, then no more.
    expect(partition.quietRecordCapacity(false)).toBe(1);
    partition.emitRecord(rec(1), 1);
    expect(partition.quietRecordCapacity(false)).toBe(0);
  });

  test('runOverdueFlusher flushes when the flusher fired but still waits for the thread, and '
    + 'the flush found queued later does nothing', () => {
    const world = new TestingIoWorld();
    // An executor whose timers fire by hand and leave their task waiting, as behind a busy step.
    const timers: { task: () => void; pending: boolean }[] = [];
    const executor = {
      name: world.producerExecutor.name,
      alive: true,
      execute: world.producerExecutor.execute.bind(world.producerExecutor),
      executePreemptible: world.producerExecutor.executePreemptible.bind(world.producerExecutor),
      block: world.producerExecutor.block.bind(world.producerExecutor),
      schedule: (_label: string, _delayUs: number, task: () => void) => {
        const t = { task, pending: true, cancel: () => { t.pending = false; } };
        timers.push(t);
        return t;
      },
    };
    const { partition } = makePartition(world, { numSubpartitions: 1, executor });
    const c = new RawConsumer(world, subpartitionKey('e0/0@0', 0), 10);
    world.runAll();
    partition.emitRecord(rec(0), 0);
    partition.runOverdueFlusher();
    world.runAll();
    expect(c.trace()).toEqual([]);
    const fired = timers[0];
    if (fired === undefined) throw new Error('no flusher timer');
    fired.pending = false;
    partition.runOverdueFlusher();
    world.runAll();
    expect(c.trace()).toEqual([0]);
    partition.emitRecord(rec(1), 0);
    fired.task();
    world.runAll();
    expect(c.trace()).toEqual([0]);
    // The early flush rescheduled the flusher, which sends the next record.
    expect(timers).toHaveLength(2);
    if (timers[1] !== undefined) timers[1].pending = false;
    timers[1]?.task();
    world.runAll();
    expect(c.trace()).toEqual([0, 1]);
  });
});
