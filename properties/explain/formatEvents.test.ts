/**
 * formatEvents: one line per event, its cause named, hosts padded to the widest; and a run of
 * any length (`replay --events` of a run that restarted for the whole time budget printed
 * nothing but a stack overflow: the widths were taken with a spread of every event).
 */
import { expect, test } from 'vitest';
import type { TraceEvent } from '../../sim/Trace.ts';
import { formatEvents } from './formatEvents.ts';

const event = (seq: number, host: string, cause?: number): TraceEvent => ({
  seq, timeUs: seq * 1000, host, type: 'mark', attrs: { n: seq }, ...(cause === undefined ? {} : { cause }),
});

test('one line per event with its time, padded host, type, attributes and cause', () => {
  expect(formatEvents([event(1, 'jobmanager'), event(12, 'sim', 1)])).toEqual([
    '#1      1.000 ms  jobmanager  mark {"n":1}',
    '#12    12.000 ms  sim         mark {"n":12}  <- #1',
  ]);
});

test('a run of 300,000 events is formatted, not a stack overflow', () => {
  const events = Array.from({ length: 300_000 }, (_x, i) => event(i, i === 299_999 ? 'taskmanager-12' : 'sim'));
  const lines = formatEvents(events);
  expect(lines).toHaveLength(300_000);
  expect(lines[0]).toBe(`#0${' '.repeat(5)} ${' '.repeat(4)}0.000 ms  sim${' '.repeat(11)}  mark {"n":0}`);
});
