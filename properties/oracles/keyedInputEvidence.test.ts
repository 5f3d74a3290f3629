import { describe, expect, test } from 'vitest';
import type { TraceEvent } from '../../sim/Trace.ts';
import { readKeyedInputs } from './keyedInputEvidence.ts';
import { event } from './testing/sampleRuns.ts';

/** A `keyed.inputs` event of operator `k`. */
const inputs = (seq: number, task: string, checkpoint: number, restored: number, records: string): TraceEvent =>
  event(seq, seq * 1000, 'keyed.inputs', { task, operator: 'k', checkpoint, restored, records }, 'taskmanager-1');
const finished = (seq: number, task: string): TraceEvent => event(seq, seq * 1000, 'task.finished', { task }, 'taskmanager-1');
const counts = (m: ReadonlyMap<string, number>): Record<string, number> => Object.fromEntries(m);

describe('readKeyedInputs: the final state along each chain of restores', () => {
  const positions = (c: number): ReadonlyMap<number, number> | undefined => (c === 1 ? new Map([[0, 2], [1, 0]]) : undefined);

  test('an attempt starts from its restored snapshot; a restore explains copies it held at or past its position', () => {
    const trace = [
      inputs(0, 'v1#0@0', 1, -1, '0:0-2,1:0:/f.1'),
      inputs(1, 'v1#0@0', 2, -1, '0:3'),
      // Restored from checkpoint 1 (0:0-2 and 1:0/f.1 held): split 0 is read again from 2.
      inputs(2, 'v1#0@1', 3, 1, '0:2-4'),
      inputs(3, 'v1#0@1', -1, 1, '0:5,1:0:/f.1'),
      finished(4, 'v1#0@1'),
    ];
    const reading = readKeyedInputs({ trace }, positions);
    expect(reading?.ok).toBe(true);
    const k = reading?.ok === true ? reading.operators.get('k') : undefined;
    expect(counts(k?.held ?? new Map())).toEqual({
      '0:0:': 1, '0:1:': 1, '0:2:': 2, '0:3:': 1, '0:4:': 1, '0:5:': 1, '1:0:/f.1': 2,
    });
    // 0:0 and 0:1 lie before checkpoint 1's position of split 0; 1:0 lies at split 1's.
    expect(counts(k?.rereads ?? new Map())).toEqual({ '0:2:': 1, '1:0:/f.1': 1 });
    expect(k?.subtasks).toBe(1);
    expect(k?.inputs.get('1:0:/f.1')).toEqual({ split: 1, offset: 0, tag: '/f.1' });
  });

  test('the final state is the latest attempt that finished with one; a tag keeps its escaped commas', () => {
    const trace = [
      inputs(0, 'v1#0@0', -1, -1, '0:0'),
      finished(1, 'v1#0@0'),
      inputs(2, 'v1#0@2', -1, -1, '0:1:/a%2Cb%252F.0'),
      finished(3, 'v1#0@2'),
      // Traced a final state but never finished: not the one the run reports.
      inputs(4, 'v1#0@3', -1, -1, '0:9'),
    ];
    const reading = readKeyedInputs({ trace }, positions);
    expect(reading?.ok === true ? counts(reading.operators.get('k')?.held ?? new Map()) : reading)
      .toEqual({ '0:1:/a,b%2F.0': 1 });
  });

  test('no events: no evidence; gaps and contradictions: incomplete, with the reason', () => {
    expect(readKeyedInputs({ trace: [finished(0, 'v1#0@0')] }, positions)).toBeUndefined();
    const detail = (trace: TraceEvent[]): string | undefined => {
      const r = readKeyedInputs({ trace }, positions);
      return r?.ok === false ? r.detail : undefined;
    };
    expect(detail([inputs(0, 'v1#0@0', 1, -1, '0:0')])).toBe('k: subtask v1#0 has no finished attempt with a final state');
    expect(detail([inputs(0, 'v1#0@1', -1, 1, '0:0'), finished(1, 'v1#0@1')]))
      .toBe('k: no attempt of v1#0 traced checkpoint 1, which an attempt restored');
    expect(detail([inputs(0, 'v1#0@0', 1, -1, ''), inputs(1, 'v1#0@1', 1, -1, ''), inputs(2, 'v1#0@1', -1, -1, ''), finished(3, 'v1#0@1')]))
      .toBe('k: attempts v1#0@0 and v1#0@1 both traced checkpoint 1');
    expect(detail([inputs(0, 'v1#0@0', 1, 1, ''), inputs(1, 'v1#0@1', -1, 1, ''), finished(2, 'v1#0@1')]))
      .toBe('k: attempt v1#0@0 restored checkpoint 1 but traced checkpoint 1');
    for (const bad of ['x:1', '0:', ':3', '0:5-2', '0:1-2:/t']) {
      expect(detail([inputs(0, 'v1#0@0', -1, -1, bad), finished(1, 'v1#0@0')]))
        .toBe(`k: attempt v1#0@0 traced a malformed record ${JSON.stringify(bad)}`);
    }
  });
});
