import { describe, expect, test } from 'vitest';
import { TestingTracer } from '../../testing/TestingTracer.ts';
import type { StreamRecord } from '../api/StreamRecord.ts';
import { KEYED_INPUTS_EVENT, KeyedInputLog } from './KeyedInputLog.ts';

const r = (split: number, offset: number, tag = ''): StreamRecord => ({ value: 0, split, offset, tag });

describe('KeyedInputLog', () => {
  test('one event per flush with the records since the previous one; untagged runs become ranges', () => {
    const tracer = new TestingTracer();
    const log = new KeyedInputLog({ tracer, attemptId: 'v1#0@2', operatorUid: 'count', restoredCheckpointId: 4 });
    for (const x of [r(0, 0), r(0, 1), r(0, 2), r(1, 0), r(0, 3), r(0, 5), r(2, 7, '/fm.1'), r(2, 8)]) log.add(x);
    log.flush(5);
    log.flush(6);
    log.add(r(-1, 12.5, 'timer'));
    log.flush(-1);
    expect(tracer.eventsOf(KEYED_INPUTS_EVENT).map((e) => e.attrs)).toEqual([
      { task: 'v1#0@2', operator: 'count', checkpoint: 5, restored: 4, records: '0:0-2,1:0,0:3,0:5,2:7:/fm.1,2:8' },
      { task: 'v1#0@2', operator: 'count', checkpoint: 6, restored: 4, records: '' },
      { task: 'v1#0@2', operator: 'count', checkpoint: -1, restored: 4, records: '-1:12.5:timer' },
    ]);
  });

  test('a tag keeps its own escapes; its % and , are escaped once more, so items split at commas', () => {
    const tracer = new TestingTracer();
    const log = new KeyedInputLog({ tracer, attemptId: 'a', operatorUid: 'k', restoredCheckpointId: -1 });
    log.add(r(0, 1, '/a%2Fb,c.0'));
    log.add(r(0, 2));
    log.flush(1);
    expect(tracer.events[0]?.attrs['records']).toBe('0:1:/a%252Fb%2Cc.0,0:2');
  });
});
