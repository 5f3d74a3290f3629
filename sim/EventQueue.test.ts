import { expect, test } from 'vitest';
import { EventQueue, OneShotEntry, PRIORITY_SIM } from './EventQueue.ts';
import { HarnessAssertionError } from './harnessAssert.ts';

function drain(q: EventQueue): string[] {
  const out: string[] = [];
  for (let e = q.pop(); e !== undefined; e = q.pop()) e.fire();
  return out;
}

test('orders by time, priority and seq; ties are order decisions', () => {
  const choices: number[] = [];
  const q = new EventQueue((n) => {
    choices.push(n);
    return n - 1;
  });
  const log: string[] = [];
  const mk = (s: string): OneShotEntry => new OneShotEntry(() => log.push(s));
  q.push(mk('c'), 30);
  q.push(mk('a1'), 10);
  q.push(mk('a2'), 10);
  q.push(mk('a3'), 10);
  q.push(mk('sim'), 10, PRIORITY_SIM);
  q.push(mk('b'), 20);
  expect(q.size).toBe(6);
  expect(q.peekDueUs()).toBe(10);
  drain(q);
  expect(log).toEqual(['sim', 'a3', 'a2', 'a1', 'b', 'c']);
  expect(choices).toEqual([3, 2]);
  expect(q.peekDueUs()).toBe(Number.POSITIVE_INFINITY);
});

test('remove keeps the heap consistent; double push is a harness assertion', () => {
  const q = new EventQueue(() => 0);
  const log: number[] = [];
  const es = Array.from({ length: 50 }, (_, i) => new OneShotEntry(() => log.push(i)));
  es.forEach((e, i) => q.push(e, (i * 37) % 101));
  for (let i = 0; i < 50; i += 3) q.remove(es[i] as OneShotEntry);
  q.remove(es[0] as OneShotEntry);
  expect(() => q.push(es[1] as OneShotEntry, 5)).toThrow(HarnessAssertionError);
  drain(q);
  const expected = es.map((_, i) => i).filter((i) => i % 3 !== 0)
    .sort((a, b) => ((a * 37) % 101) - ((b * 37) % 101) || a - b);
  expect(log).toEqual(expected);
});
