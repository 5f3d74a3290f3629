import { describe, expect, test } from 'vitest';
import { validateChromeTrace } from './validateChromeTrace.ts';

type Ev = Record<string, unknown>;

/** A small valid trace: two threads, slices, one flow between them, one async slice, instants. */
function valid(): Ev[] {
  return [
    { ph: 'M', name: 'process_name', pid: 1, tid: 1, args: { name: 'JobMaster' } },
    { ph: 'M', name: 'thread_name', pid: 1, tid: 10, args: { name: 'jobmaster/main' } },
    { ph: 'X', name: 'outer', pid: 1, tid: 10, ts: 10, dur: 20 },
    { ph: 'X', name: 'inner', pid: 1, tid: 10, ts: 12, dur: 5 },
    { ph: 'X', name: 'next', pid: 1, tid: 10, ts: 30, dur: 1 },
    { ph: 'B', name: 'b', pid: 1, tid: 11, ts: 40 },
    { ph: 'E', name: 'b', pid: 1, tid: 11, ts: 50 },
    { ph: 's', name: 'call', cat: 'rpc', id: 7, pid: 1, tid: 10, ts: 13 },
    { ph: 'f', bp: 'e', name: 'call', cat: 'rpc', id: 7, pid: 1, tid: 11, ts: 45 },
    { ph: 'b', name: 'checkpoint 1', cat: 'checkpoint', id: 'checkpoint 1', pid: 1, tid: 1, ts: 5 },
    { ph: 'n', name: 'checkpoint 1', cat: 'checkpoint', id: 'checkpoint 1', pid: 1, tid: 1, ts: 6 },
    { ph: 'e', name: 'checkpoint 1', cat: 'checkpoint', id: 'checkpoint 1', pid: 1, tid: 1, ts: 60 },
    { ph: 'i', s: 'g', name: 'fault 0', pid: 1, tid: 1, ts: 20.001 },
  ];
}

/** `valid()` with event `i` changed by `f` (or removed when `f` returns undefined). */
function broken(i: number, f: (e: Ev) => Ev | undefined): Ev[] {
  return valid().flatMap((e, j) => {
    if (j !== i) return [e];
    const changed = f({ ...e });
    return changed === undefined ? [] : [changed];
  });
}

describe('validateChromeTrace accepts a valid trace', () => {
  test('as a file object and as a bare array', () => {
    expect(validateChromeTrace({ traceEvents: valid(), displayTimeUnit: 'ms' })).toEqual([]);
    expect(validateChromeTrace(valid())).toEqual([]);
  });

  test('refuses what is no trace at all', () => {
    expect(validateChromeTrace({})).toEqual(['traceEvents: not an array']);
    expect(validateChromeTrace(null)).toEqual(['traceEvents: not an array']);
  });
});

// One hand-broken trace per check of the "Done when", so that each check can fail.
describe('validateChromeTrace rejects', () => {
  test('an unknown ph type', () => {
    expect(validateChromeTrace(broken(2, (e) => ({ ...e, ph: 'Q' })))).toEqual(['traceEvents[2]: unknown ph "Q"']);
    expect(validateChromeTrace(broken(2, (e) => ({ ...e, ph: undefined })))).toEqual(['traceEvents[2]: unknown ph undefined']);
  });

  test('a pid or tid that is not an integer', () => {
    expect(validateChromeTrace(broken(2, (e) => ({ ...e, pid: 'JobMaster' }))))
      .toContain('traceEvents[2]: pid "JobMaster" is not an integer');
    expect(validateChromeTrace(broken(2, (e) => ({ ...e, tid: 10.5 }))))
      .toContain('traceEvents[2]: tid 10.5 is not an integer');
    expect(validateChromeTrace(broken(12, (e) => ({ ...e, pid: undefined }))))
      .toEqual(['traceEvents[12]: pid undefined is not an integer']);
  });

  test('a flow without its end, without its start, or with an end outside any slice', () => {
    expect(validateChromeTrace(broken(8, () => undefined)))
      .toEqual(['flow id 7 cat "rpc" name "call": 1 start(s) and 0 end(s), want one of each']);
    expect(validateChromeTrace(broken(7, () => undefined)))
      .toEqual(['flow id 7 cat "rpc" name "call": 0 start(s) and 1 end(s), want one of each']);
    // The end on a thread at a time no slice covers: Perfetto would draw no arrow.
    expect(validateChromeTrace(broken(8, (e) => ({ ...e, ts: 55 }))))
      .toEqual(['traceEvents[8]: flow f (id 7 cat "rpc" name "call") is inside no slice of its thread']);
    // Flows match on (id, cat, name): another name is another flow, with one end each.
    expect(validateChromeTrace(broken(8, (e) => ({ ...e, name: 'other' })))).toHaveLength(2);
    expect(validateChromeTrace(broken(8, (e) => ({ ...e, ts: 12 }))))
      .toEqual(['traceEvents[8]: flow f (id 7 cat "rpc" name "call") is inside no slice of its thread',
        'flow id 7 cat "rpc" name "call": ends before it starts']);
  });

  test('slices of one thread that overlap without nesting, and B/E that do not pair', () => {
    expect(validateChromeTrace(broken(3, (e) => ({ ...e, ts: 25, dur: 10 }))))
      .toEqual(['thread 1/10: slice [25000, 35000) ns overlaps [10000, 30000) ns without nesting']);
    expect(validateChromeTrace(broken(6, () => undefined)))
      .toContain('traceEvents[5]: B "b" on thread 1/11 never ends');
    expect(validateChromeTrace(broken(5, () => undefined)))
      .toContain('traceEvents[5]: E on thread 1/11 without an open B');
    // The same slices on two threads do not overlap.
    expect(validateChromeTrace(broken(3, (e) => ({ ...e, tid: 12, ts: 25, dur: 10 })))).toEqual([]);
  });

  test('async slices that never close, close without opening, or an n outside them', () => {
    expect(validateChromeTrace(broken(11, () => undefined)))
      .toEqual(['traceEvents[9]: async slice pid 1 cat "checkpoint" id "checkpoint 1" name "checkpoint 1" never ends']);
    expect(validateChromeTrace(broken(9, () => undefined)))
      .toEqual(['traceEvents[9]: async n (pid 1 cat "checkpoint" id "checkpoint 1" name "checkpoint 1") outside an open async slice',
        'traceEvents[10]: async e (pid 1 cat "checkpoint" id "checkpoint 1" name "checkpoint 1") outside an open async slice']);
    // An e of another id does not close it.
    expect(validateChromeTrace(broken(11, (e) => ({ ...e, id: 'checkpoint 2' })))).toHaveLength(2);
  });
});
