import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { computeKeyGroupRangeForOperatorIndex } from '../state/KeyGroupRangeAssignment.ts';
import { assignToKeyGroup } from '../state/KeyGroupRangeAssignment.ts';
import type { Key } from '../streaming/api/functions.ts';
import type { PartitionerKind } from '../streaming/api/StreamGraph.ts';
import type { StreamRecord } from '../streaming/api/StreamRecord.ts';
import { TestingIoWorld } from '../testing/TestingIoWorld.ts';
import { createChannelSelector } from './ChannelSelector.ts';
import type { NetworkBuffer } from './NetworkBuffer.ts';
import { subpartitionKey } from './NetworkBuffer.ts';
import { RecordWriter } from './RecordWriter.ts';
import { ResultPartition } from './ResultPartition.ts';

interface KeyVector {
  type: 'java.lang.String' | 'java.lang.Integer' | 'java.lang.Long';
  value: string | number;
  byMaxParallelism: Record<string, {
    keyGroup: number;
    operatorIndexByParallelism: Record<string, number>;
  }>;
}

const vectors = JSON.parse(readFileSync(
  new URL('../testing/data/flink-vectors.json', import.meta.url), 'utf8',
)) as { keys: KeyVector[] };

const toKey = (v: KeyVector): Key =>
  v.type === 'java.lang.Long' ? BigInt(v.value) : v.type === 'java.lang.Integer'
    ? Number(v.value) : String(v.value);

const rec = <T>(value: T, offset = 0): StreamRecord<T> => ({ value, split: 0, offset, tag: '' });

/** A selector for a non-hash partitioner. */
const selector = (partitioner: PartitionerKind, numberOfChannels: number, subtaskIndex = 0) =>
  createChannelSelector({ partitioner, numberOfChannels, subtaskIndex });

describe('ChannelSelector', () => {
  test('hash routes by key group exactly as Flink (flink-vectors.json)', () => {
    let checked = 0;
    for (const v of vectors.keys) {
      for (const [maxP, byMax] of Object.entries(v.byMaxParallelism)) {
        for (const [p, index] of Object.entries(byMax.operatorIndexByParallelism)) {
          const selector = createChannelSelector({
            partitioner: 'hash', numberOfChannels: Number(p), subtaskIndex: 0,
            keySelector: (x) => x as Key, downstreamMaxParallelism: Number(maxP),
          });
          expect(selector.selectChannel(rec(toKey(v)))).toBe(index);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  test('hash sends a key to the subtask whose key-group range holds it', () => {
    const hash = createChannelSelector({
      partitioner: 'hash', numberOfChannels: 3, subtaskIndex: 1,
      keySelector: (x) => (x as { airport: string }).airport, downstreamMaxParallelism: 128,
    });
    for (const airport of ['SFO', 'LAX', 'JFK', 'ORD', 'SEA', 'BOS']) {
      const channel = hash.selectChannel(rec({ airport }));
      const range = computeKeyGroupRangeForOperatorIndex(128, 3, channel);
      const keyGroup = assignToKeyGroup(airport, 128);
      expect(keyGroup).toBeGreaterThanOrEqual(range.startKeyGroup);
      expect(keyGroup).toBeLessThanOrEqual(range.endKeyGroup);
    }
    expect(hash.isBroadcast()).toBe(false);
  });

  test('rebalance is round robin starting at subtaskIndex % n', () => {
    const rebalance = selector('rebalance', 3, 4);
    expect([0, 1, 2, 3, 4].map(() => rebalance.selectChannel(rec(0)))).toEqual([1, 2, 0, 1, 2]);
  });

  test('forward has one channel; broadcast never selects', () => {
    const forward = selector('forward', 1, 3);
    expect(forward.selectChannel(rec(0))).toBe(0);
    expect(forward.isBroadcast()).toBe(false);
    expect(() => selector('forward', 2, 0))
      .toThrow(/one subpartition/);
    const broadcast = selector('broadcast', 2, 0);
    expect(broadcast.isBroadcast()).toBe(true);
    expect(() => broadcast.selectChannel(rec(0))).toThrow(/broadcast/);
  });

  test('bad options are assertions', () => {
    expect(() => selector('hash', 2, 0))
      .toThrow(/key selector/);
    expect(() => createChannelSelector({
      partitioner: 'hash', numberOfChannels: 2, subtaskIndex: 0, keySelector: () => 1,
    })).toThrow(/max parallelism/);
    expect(() => createChannelSelector({
      partitioner: 'hash', numberOfChannels: 8, subtaskIndex: 0, keySelector: () => 1,
      downstreamMaxParallelism: 4,
    })).toThrow(/exceeds/);
    expect(() => selector('rebalance', 0, 0))
      .toThrow(/positive/);
    expect(() => selector('rebalance', 2, -1))
      .toThrow(/subtaskIndex/);
  });
});

describe('RecordWriter', () => {
  function world(numSubpartitions: number) {
    const w = new TestingIoWorld();
    const partition = new ResultPartition({
      env: w.producerEnv, partitionId: 'e1/0@0', numSubpartitions,
      executor: w.producerExecutor, recordsPerBuffer: 100, bufferTimeoutUs: 50,
      recordSizeBytes: 16, onError: () => {},
    });
    partition.setup();
    const received: NetworkBuffer[][] = [];
    for (let i = 0; i < numSubpartitions; i++) {
      const into: NetworkBuffer[] = [];
      received.push(into);
      w.consumerEnv.network.connect({
        key: subpartitionKey('e1/0@0', i), producerHost: w.producerHost,
        executor: w.consumerExecutor, initialCredit: 10,
        handlers: {
          onConnected: () => {},
          onPayload: (p) => into.push(p as NetworkBuffer),
          onError: () => {},
        },
      });
    }
    w.runAll();
    const values = (i: number): unknown[] => (received[i] ?? [])
      .flatMap((b) => (b.kind === 'data' ? b.records.map((r) => r.value) : [b.event.type]));
    return { w, partition, values };
  }

  test('emit routes through the selector; broadcast goes everywhere', () => {
    const { w, partition, values } = world(2);
    const writer = new RecordWriter(partition,
      selector('rebalance', 2, 0));
    for (let i = 0; i < 5; i++) writer.emit(rec(i, i));
    writer.broadcastEmit(rec('all'));
    writer.broadcastEvent({ type: 'end-of-data', stopMode: 'DRAIN' });
    writer.flushAll();
    w.runAll();
    expect(values(0)).toEqual([0, 2, 4, 'all', 'end-of-data']);
    expect(values(1)).toEqual([1, 3, 'all', 'end-of-data']);
    expect(writer.isAvailable()).toBe(true);
    let available = false;
    writer.onAvailable(() => {
      available = true;
    });
    w.runAll();
    expect(available).toBe(true);

    const b = world(3);
    const broadcaster = new RecordWriter(b.partition,
      selector('broadcast', 3, 0));
    broadcaster.emit(rec('x'));
    b.w.scheduler.advanceTimeUs(50);
    expect([b.values(0), b.values(1), b.values(2)]).toEqual([['x'], ['x'], ['x']]);
  });

  test('selector and partition must agree on the channel count', () => {
    const { partition } = world(2);
    expect(() => new RecordWriter(partition,
      selector('forward', 1, 0)))
      .toThrow(/subpartitions/);
  });
});
