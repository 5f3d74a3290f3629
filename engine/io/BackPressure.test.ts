/**
 * End to end on the data plane: a fast source task feeding a slow sink task through a
 * ResultPartition and an InputGate. The sink's pace sets the source's pace while every buffer
 * count stays bounded (issue 3: "a slow sink slows the sources while buffers stay bounded").
 */
import { expect, test } from 'vitest';
import { createChannelSelector } from './ChannelSelector.ts';
import { InputGate } from './InputGate.ts';
import { RecordWriter } from './RecordWriter.ts';
import { ResultPartition } from './ResultPartition.ts';
import { TestingIoWorld } from '../testing/TestingIoWorld.ts';

interface Run {
  emitted: number;
  consumed: number;
  peakBuffersInUse: number;
  poolSize: number;
  offsets: number[];
}

/** A source emitting one record per `sourceCostUs` while available; a sink taking `sinkCostUs`. */
function run(sourceCostUs: number, sinkCostUs: number, durationUs: number): Run {
  const world = new TestingIoWorld();
  const partition = new ResultPartition({
    env: world.producerEnv, partitionId: 'src/0@0', numSubpartitions: 1,
    executor: world.producerExecutor, recordsPerBuffer: 4, bufferTimeoutUs: 1000,
    recordSizeBytes: 32, onError: (e) => {
      throw e;
    },
  });
  partition.setup();
  const writer = new RecordWriter(partition,
    createChannelSelector({ partitioner: 'forward', numberOfChannels: 1, subtaskIndex: 0 }));
  const gate = new InputGate({
    env: world.consumerEnv, executor: world.consumerExecutor, gateIndex: 0,
    channels: [{ partitionId: 'src/0@0', subpartition: 0, producerHost: world.producerHost }],
    onError: (e) => {
      throw e;
    },
  });
  gate.setup();

  let emitted = 0;
  const sourceStep = (): void => {
    if (!writer.isAvailable()) {
      // The mailbox suspends the default action until the partition is available again.
      writer.onAvailable(() => world.producerExecutor.schedule('source', sourceCostUs, sourceStep));
      return;
    }
    writer.emit({ value: emitted, split: 0, offset: emitted, tag: '' });
    emitted++;
    world.producerExecutor.schedule('source', sourceCostUs, sourceStep);
  };
  world.producerExecutor.execute('source', sourceStep);

  const offsets: number[] = [];
  const sinkStep = (): void => {
    const next = gate.pollNext();
    if (next === undefined) {
      gate.onAvailable(sinkStep);
      return;
    }
    // The sink needs sinkCostUs per record; it recycles the buffer once done with it.
    const records = next.buffer.kind === 'data' ? next.buffer.records : [];
    world.consumerExecutor.schedule('sink', sinkCostUs * records.length, () => {
      for (const r of records) offsets.push(r.offset);
      if (next.buffer.kind === 'data') gate.recycle(next.channel);
      sinkStep();
    });
  };
  world.consumerExecutor.execute('sink', sinkStep);

  world.scheduler.advanceTimeUs(durationUs);
  const result = {
    emitted, consumed: offsets.length, peakBuffersInUse: partition.peakBuffersInUse,
    poolSize: partition.poolSize, offsets,
  };
  partition.release();
  gate.close();
  return result;
}

test('a slow sink slows the source while buffers stay bounded', () => {
  const fast = run(10, 10, 100_000);
  const slow = run(10, 1000, 100_000);
  // With a fast sink the source runs at its own pace (one record per 10 µs).
  expect(fast.emitted).toBeGreaterThan(9_000);
  // With a sink 100 times slower the source is held back to the sink's pace: what it emitted
  // is what the sink consumed plus at most the bounded in-flight buffers.
  expect(slow.consumed).toBeGreaterThan(90);
  expect(slow.consumed).toBeLessThanOrEqual(100);
  const inFlightBound = (slow.poolSize + 2 /* credit */ + 1 /* in the sink */) * 4;
  expect(slow.emitted - slow.consumed).toBeLessThanOrEqual(inFlightBound);
  expect(slow.peakBuffersInUse).toBeLessThanOrEqual(slow.poolSize);
  expect(fast.peakBuffersInUse).toBeLessThanOrEqual(fast.poolSize);
  // Nothing lost, nothing reordered.
  expect(slow.offsets).toEqual(slow.offsets.map((_, i) => i));
  expect(fast.offsets).toEqual(fast.offsets.map((_, i) => i));
});
