import { describe, expect, test } from 'vitest';
import { partitionIdOf } from '../taskexecutor/TaskDeploymentDescriptor.ts';
import { attemptIdOf } from '../taskexecutor/ExecutionState.ts';
import { channelEventOf, producerOfSubpartitionKey } from './channelEventOf.ts';
import type { NetworkBuffer } from './NetworkBuffer.ts';
import { subpartitionKey } from './NetworkBuffer.ts';

describe('channelEventOf', () => {
  const options = { snapshotType: 'CHECKPOINT', alignment: 'ALIGNED', alignedCheckpointTimeoutUs: 0 } as const;
  test.each<[string, NetworkBuffer | unknown, ReturnType<typeof channelEventOf>]>([
    ['a barrier', { kind: 'event', sizeBytes: 1, event: { type: 'barrier', barrier: { id: 4, timestampUs: 9, options } } },
      { event: 'barrier', checkpointId: 4 }],
    ['a cancellation marker', { kind: 'event', sizeBytes: 1, event: { type: 'cancel-checkpoint', checkpointId: 5 } },
      { event: 'cancellation', checkpointId: 5 }],
    ['records', { kind: 'data', sizeBytes: 1, records: [] }, undefined],
    ['end of partition', { kind: 'event', sizeBytes: 1, event: { type: 'end-of-partition' } }, undefined],
    ['end of data', { kind: 'event', sizeBytes: 1, event: { type: 'end-of-data', stopMode: 'DRAIN' } }, undefined],
    ['no buffer', 'barrier', undefined],
    ['null', null, undefined],
  ])('%s', (_what, payload, expected) => {
    expect(channelEventOf(payload)).toEqual(expected);
  });
});

describe('producerOfSubpartitionKey', () => {
  test('reads the producer attempt back from the key a channel connects with', () => {
    const key = subpartitionKey(partitionIdOf(3, attemptIdOf('v2', 1, 7)), 4);
    expect(producerOfSubpartitionKey(key)).toBe('v2#1@7');
    expect(producerOfSubpartitionKey('p0')).toBeUndefined();
    expect(producerOfSubpartitionKey('e0:v0#0@0')).toBeUndefined();
  });
});
