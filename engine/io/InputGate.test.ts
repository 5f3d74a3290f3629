import { describe, expect, test } from 'vitest';
import type { NetworkError, ProducerEnd } from '../api/DataNetwork.ts';
import type { CheckpointBarrier } from '../checkpoint/CheckpointBarrier.ts';
import type { StreamRecord } from '../streaming/api/StreamRecord.ts';
import { TestingIoWorld } from '../testing/TestingIoWorld.ts';
import type { BufferOrEvent, InputGateOptions } from './InputGate.ts';
import { InputGate } from './InputGate.ts';
import type { NetworkBuffer } from './NetworkBuffer.ts';
import { PartitionNotFoundException } from './PartitionNotFoundException.ts';
import { ResultPartition } from './ResultPartition.ts';

const rec = (split: number, offset: number): StreamRecord =>
  ({ value: offset, split, offset, tag: '' });

type Alignment = CheckpointBarrier['options']['alignment'];

function barrier(id: number, alignment: Alignment): CheckpointBarrier {
  return {
    id, timestampUs: 0,
    options: { snapshotType: 'CHECKPOINT', alignment, alignedCheckpointTimeoutUs: 0 },
  };
}

/** Producer partitions `p<i>` with one subpartition each, and a gate reading all of them. */
function setup(
  world: TestingIoWorld, producers: number, gateOptions: Partial<InputGateOptions> = {},
) {
  const producerErrors: Error[] = [];
  const partitions = Array.from({ length: producers }, (_, i) => {
    const p = new ResultPartition({
      env: world.producerEnv, partitionId: `p${i}`, numSubpartitions: 1,
      executor: world.producerExecutor, recordsPerBuffer: 1, bufferTimeoutUs: 0,
      recordSizeBytes: 8, poolSize: 16, onError: (e) => producerErrors.push(e),
    });
    p.setup();
    return p;
  });
  const gateErrors: Error[] = [];
  const gate = new InputGate({
    env: world.consumerEnv, executor: world.consumerExecutor, gateIndex: 0,
    channels: partitions.map((_, i) => ({
      partitionId: `p${i}`, subpartition: 0, producerHost: world.producerHost,
    })),
    onError: (e) => gateErrors.push(e),
    ...gateOptions,
  });
  return { partitions, gate, gateErrors, producerErrors };
}

/** `c<channel>:<offset>` for data, `c<channel>:E:<event>` for events. */
function describeBuffer(b: BufferOrEvent): string[] {
  return describeNetworkBuffer(b.buffer).map((s) => `c${b.channel}:${s}`);
}

function describeNetworkBuffer(buffer: NetworkBuffer): string[] {
  if (buffer.kind === 'data') return buffer.records.map((r) => `${r.offset}`);
  const e = buffer.event;
  return [`E:${e.type === 'barrier' ? `barrier${e.barrier.id}` : e.type}`];
}

/** Polls everything available, recycling data buffers as a task would. */
function drain(gate: InputGate, recycle = true): string[] {
  const out: string[] = [];
  for (let b = gate.pollNext(); b !== undefined; b = gate.pollNext()) {
    out.push(...describeBuffer(b));
    if (recycle && b.buffer.kind === 'data') gate.recycle(b.channel);
  }
  return out;
}

describe('InputGate', () => {
  test('delivers each channel in order, channels in the order their data arrived', () => {
    const world = new TestingIoWorld();
    const { partitions, gate } = setup(world, 2, { exclusiveCredit: 4 });
    gate.setup();
    world.runAll();
    partitions[1]?.emitRecord(rec(1, 0), 0);
    world.runAll();
    partitions[0]?.emitRecord(rec(0, 0), 0);
    partitions[0]?.emitRecord(rec(0, 1), 0);
    partitions[1]?.emitRecord(rec(1, 1), 0);
    world.runAll();
    expect(gate.isAvailable()).toBe(true);
    // Channel 1 became available first; each poll re-queues a channel at the tail.
    expect(drain(gate)).toEqual(['c1:0', 'c0:0', 'c1:1', 'c0:1']);
    expect(gate.isAvailable()).toBe(false);
    expect(gate.pollNext()).toBeUndefined();
  });

  test('holds at most exclusiveCredit data buffers per channel; recycling returns credit', () => {
    const world = new TestingIoWorld();
    const { partitions, gate } = setup(world, 1);
    gate.setup();
    world.runAll();
    for (let i = 0; i < 6; i++) partitions[0]?.emitRecord(rec(0, i), 0);
    world.runAll();
    // Two credits: two buffers arrived, four wait upstream.
    expect(drain(gate, false)).toEqual(['c0:0', 'c0:1']);
    expect(partitions[0]?.getNumberOfQueuedBuffers(0)).toBe(4);
    expect(() => gate.recycle(5)).toThrow(/no channel 5/);
    gate.recycle(0);
    world.runAll();
    expect(drain(gate, false)).toEqual(['c0:2']);
    gate.recycle(0);
    gate.recycle(0);
    expect(() => gate.recycle(0)).toThrow(/does not hold/);
    world.runAll();
    expect(drain(gate)).toEqual(['c0:3', 'c0:4']);
  });

  test('onAvailable runs once when data arrives on an empty gate', () => {
    const world = new TestingIoWorld();
    const { partitions, gate } = setup(world, 1);
    gate.setup();
    world.runAll();
    let calls = 0;
    gate.onAvailable(() => calls++);
    world.runAll();
    expect(calls).toBe(0);
    partitions[0]?.emitRecord(rec(0, 0), 0);
    partitions[0]?.emitRecord(rec(0, 1), 0);
    world.runAll();
    expect(calls).toBe(1);
    gate.onAvailable(() => calls++);
    world.runAll();
    expect(calls).toBe(2);
  });

  test('an aligned barrier is delivered and the channel stays blocked until resumed', () => {
    const world = new TestingIoWorld();
    const { partitions, gate } = setup(world, 2, { exclusiveCredit: 4 });
    gate.setup();
    world.runAll();
    const p0 = partitions[0] as ResultPartition;
    const p1 = partitions[1] as ResultPartition;
    p0.emitRecord(rec(0, 0), 0);
    p0.broadcastEvent({ type: 'barrier', barrier: barrier(1, 'ALIGNED') });
    p0.emitRecord(rec(0, 1), 0);
    p1.emitRecord(rec(1, 0), 0);
    world.runAll();
    expect(drain(gate)).toEqual(['c0:0', 'c1:0', 'c0:E:barrier1']);
    expect(gate.isBlocked(0)).toBe(true);
    p1.broadcastEvent({ type: 'barrier', barrier: barrier(1, 'ALIGNED') });
    p1.emitRecord(rec(1, 1), 0);
    world.runAll();
    // Nothing behind either barrier arrives while the channels are blocked.
    expect(drain(gate)).toEqual(['c1:E:barrier1']);
    expect(() => gate.resumeConsumption(0)).not.toThrow();
    gate.resumeConsumption(1);
    expect(() => gate.resumeConsumption(1)).toThrow(/unblocked channel/);
    world.runAll();
    expect(drain(gate).sort()).toEqual(['c0:1', 'c1:1']);
  });

  test('an unaligned barrier goes to the front of its channel and its channel to the front', () => {
    const world = new TestingIoWorld();
    const { partitions, gate } = setup(world, 2);
    gate.setup();
    world.runAll();
    const p0 = partitions[0] as ResultPartition;
    const p1 = partitions[1] as ResultPartition;
    p0.emitRecord(rec(0, 0), 0);
    p1.emitRecord(rec(1, 0), 0);
    p1.emitRecord(rec(1, 1), 0);
    world.runAll();
    p1.emitRecord(rec(1, 2), 0); // waits upstream: no credit left on channel 1
    const overtakenUpstream = p1.broadcastEvent(
      { type: 'barrier', barrier: barrier(3, 'UNALIGNED') }, { priority: true });
    expect(overtakenUpstream[0]?.flatMap(describeNetworkBuffer)).toEqual(['2']);
    world.runAll();
    const first = gate.pollNext() as BufferOrEvent;
    expect(describeBuffer(first)).toEqual(['c1:E:barrier3']);
    // The barrier overtook the two buffers already queued in channel 1 (consumer side).
    expect(first.overtakenBuffers.flatMap(describeNetworkBuffer)).toEqual(['0', '1']);
    expect(gate.getQueuedDataBuffers(1).flatMap(describeNetworkBuffer)).toEqual(['0', '1']);
    expect(first.moreAvailable).toBe(true);
    expect(drain(gate)).toEqual(['c0:0', 'c1:0', 'c1:1']);
    world.runAll();
    expect(drain(gate)).toEqual(['c1:2']);
  });

  test('priority channels keep their order among themselves', () => {
    const world = new TestingIoWorld();
    const { partitions, gate } = setup(world, 3, { exclusiveCredit: 3 });
    gate.setup();
    world.runAll();
    const [p0, p1, p2] = partitions as [ResultPartition, ResultPartition, ResultPartition];
    p0.emitRecord(rec(0, 0), 0);
    p1.emitRecord(rec(1, 0), 0);
    p2.emitRecord(rec(2, 0), 0);
    world.runAll();
    p2.broadcastEvent({ type: 'barrier', barrier: barrier(1, 'UNALIGNED') }, { priority: true });
    world.runAll();
    p1.broadcastEvent({ type: 'barrier', barrier: barrier(1, 'UNALIGNED') }, { priority: true });
    p2.broadcastEvent({ type: 'barrier', barrier: barrier(2, 'UNALIGNED') }, { priority: true });
    world.runAll();
    expect(drain(gate)).toEqual([
      'c2:E:barrier1', 'c1:E:barrier1', 'c2:E:barrier2', 'c0:0', 'c1:0', 'c2:0',
    ]);
  });

  test('EndOfPartition finishes each channel and then the gate, without errors', () => {
    const world = new TestingIoWorld();
    const { partitions, gate, gateErrors, producerErrors } = setup(world, 2);
    gate.setup();
    world.runAll();
    partitions[0]?.emitRecord(rec(0, 0), 0);
    partitions[0]?.finish();
    world.runAll();
    expect(drain(gate)).toEqual(['c0:0', 'c0:E:end-of-partition']);
    expect(gate.isFinished()).toBe(false);
    partitions[1]?.finish();
    world.runAll();
    expect(drain(gate)).toEqual(['c1:E:end-of-partition']);
    expect(gate.isFinished()).toBe(true);
    // The producers may now release their partitions; nobody fails.
    for (const p of partitions) p.release();
    world.runAll();
    expect(gateErrors).toEqual([]);
    expect(producerErrors).toEqual([]);
    expect(world.tracer.eventsOf('io.gate.channel-finished')).toHaveLength(2);
    expect(world.network.connections.every((c) => c.state === 'ended')).toBe(true);
  });

  test('a partition released before EndOfPartition fails the consumer', () => {
    const world = new TestingIoWorld();
    const { partitions, gate, gateErrors } = setup(world, 1);
    gate.setup();
    world.runAll();
    partitions[0]?.release();
    world.runAll();
    expect(gateErrors.map((e) => (e as NetworkError).reason)).toEqual(['closed']);
    expect(gate.pollNext()).toBeUndefined();
  });

  test('retries a partition request with backoff while nothing is served', () => {
    const world = new TestingIoWorld();
    const gateErrors: Error[] = [];
    const gate = new InputGate({
      env: world.consumerEnv, executor: world.consumerExecutor, gateIndex: 0,
      channels: [{ partitionId: 'late', subpartition: 0, producerHost: world.producerHost }],
      onError: (e) => gateErrors.push(e),
    });
    gate.setup();
    world.runAll();
    world.scheduler.advanceTimeUs(1000 + 2000);
    const retries = world.tracer.eventsOf('io.gate.partition-request-retry');
    expect(retries.map((e) => e.attrs['backoffUs']))
      .toEqual([1000, 2000, 4000]);
    const late = new ResultPartition({
      env: world.producerEnv, partitionId: 'late', numSubpartitions: 1,
      executor: world.producerExecutor, recordsPerBuffer: 1, bufferTimeoutUs: 0,
      recordSizeBytes: 8, onError: () => {},
    });
    late.setup();
    late.emitRecord(rec(0, 7), 0);
    world.scheduler.advanceTimeUs(4000);
    expect(gateErrors).toEqual([]);
    expect(drain(gate)).toEqual(['c0:7']);
  });

  test('fails with PartitionNotFoundException when the backoff is exhausted', () => {
    const world = new TestingIoWorld();
    const { gate, gateErrors } = setup(world, 0 + 1);
    // Nothing is served under `missing`: build a gate of its own.
    const errors: Error[] = [];
    const missing = new InputGate({
      env: world.consumerEnv, executor: world.consumerExecutor, gateIndex: 1,
      channels: [{ partitionId: 'missing', subpartition: 3, producerHost: world.producerHost }],
      onError: (e) => errors.push(e),
    });
    missing.setup();
    gate.setup();
    world.scheduler.advanceTimeUs(1000 + 2000 + 4000 + 8000 + 10000 - 1);
    expect(errors).toEqual([]);
    world.scheduler.advanceTimeUs(1);
    expect(errors).toHaveLength(1);
    const error = errors[0] as PartitionNotFoundException;
    expect(error).toBeInstanceOf(PartitionNotFoundException);
    expect([error.partitionId, error.subpartition, error.attempts]).toEqual(['missing', 3, 6]);
    expect(gateErrors).toEqual([]);
    expect(world.scheduler.numPendingTimers()).toBe(0);
  });

  test('a broken connection fails the gate once and the producer once', () => {
    const world = new TestingIoWorld();
    const { partitions, gate, gateErrors, producerErrors } = setup(world, 2);
    gate.setup();
    world.runAll();
    partitions[0]?.emitRecord(rec(0, 0), 0);
    world.runAll();
    for (const c of world.network.connections) world.network.break(c);
    world.runAll();
    expect(gateErrors.map((e) => (e as NetworkError).reason)).toEqual(['broken']);
    expect(producerErrors.map((e) => (e as NetworkError).reason)).toEqual(['broken', 'broken']);
    expect(gate.pollNext()).toBeUndefined();
    expect(gate.isAvailable()).toBe(false);
    let calls = 0;
    gate.onAvailable(() => calls++);
    world.runAll();
    expect(calls).toBe(0);
    expect(world.tracer.eventsOf('io.gate.error')).toHaveLength(1);
  });

  test('close stops everything; later callbacks and errors are ignored', () => {
    const world = new TestingIoWorld();
    const { partitions, gate, gateErrors, producerErrors } = setup(world, 2);
    gate.setup();
    world.runAll();
    partitions[0]?.emitRecord(rec(0, 0), 0);
    gate.close();
    gate.close();
    world.runAll();
    expect(gate.pollNext()).toBeUndefined();
    expect(gateErrors).toEqual([]);
    expect(producerErrors).toEqual([]);
    expect(world.invariants.names().filter((n) => n.startsWith('InputGate'))).toEqual([]);
    // A producer accepting a connection closed meanwhile is also fine.
    const world2 = new TestingIoWorld();
    const second = setup(world2, 1);
    second.gate.setup();
    second.gate.close();
    world2.runAll();
    expect(second.gateErrors).toEqual([]);
    expect(second.producerErrors).toEqual([]);
  });

  test('rejects bad options and double setup', () => {
    const world = new TestingIoWorld();
    const base = {
      env: world.consumerEnv, executor: world.consumerExecutor, gateIndex: 0,
      onError: () => {},
    };
    expect(() => new InputGate({ ...base, channels: [] })).toThrow(/at least one channel/);
    const channels = [{ partitionId: 'p', subpartition: 0, producerHost: world.producerHost }];
    expect(() => new InputGate({ ...base, channels, exclusiveCredit: 0 }))
      .toThrow(/exclusiveCredit/);
    const gate = new InputGate({ ...base, channels });
    gate.setup();
    expect(() => gate.setup()).toThrow(/twice/);
    expect(gate.numberOfChannels).toBe(1);
  });

  test('the consumer side notices a producer that sends without credit', () => {
    const world = new TestingIoWorld();
    let producerEnd: ProducerEnd | undefined;
    world.producerEnv.network.serve('rogue/0', world.producerExecutor, (end) => {
      end.setHandlers({ onCredit: () => {}, onUpstream: () => {}, onError: () => {} });
      producerEnd = end;
    });
    const gate = new InputGate({
      env: world.consumerEnv, executor: world.consumerExecutor, gateIndex: 0,
      channels: [{ partitionId: 'rogue', subpartition: 0, producerHost: world.producerHost }],
      exclusiveCredit: 1, onError: () => {},
    });
    gate.setup();
    world.runAll();
    const data: NetworkBuffer = { kind: 'data', records: [rec(0, 0)], sizeBytes: 8 };
    // Priority payloads skip the network's credit check; the channel's own check catches it.
    producerEnd?.send(data, { sizeBytes: 8 });
    producerEnd?.send(data, { priority: true, sizeBytes: 8 });
    expect(() => world.runAll()).toThrow(/without credit/);
  });
});
