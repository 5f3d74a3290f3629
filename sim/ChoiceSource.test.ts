import { describe, expect, test } from 'vitest';
import { AssertionError } from '../engine/api/index.ts';
import { ChoiceSource, validateDistribution } from './ChoiceSource.ts';
import type { Override } from './ChoiceSource.ts';
import { RandomStreams } from './RandomStreams.ts';
import { SimInputError } from './SimInputError.ts';

const D = { minUs: 10, medianUs: 100, maxUs: 1000 };

function source(overrides: readonly Override[] = [], now = { t: 0 }, healTimeUs?: number): ChoiceSource {
  return new ChoiceSource({
    streams: new RandomStreams('seed-1'), overrides, nowUs: () => now.t,
    ...(healTimeUs !== undefined ? { healTimeUs } : {}),
  });
}

function mixed(c: ChoiceSource): number[] {
  const out: number[] = [];
  for (let i = 0; i < 30; i++) {
    out.push(c.delay('d', D));
    out.push(c.fate('f', 0.3) ? 1 : 0);
    out.push(c.order('o', 5));
  }
  return out;
}

describe('ChoiceSource', () => {
  test('same seed gives the same decisions; values stay in range', () => {
    const a = mixed(source());
    expect(mixed(source())).toEqual(a);
    for (let i = 0; i < a.length; i += 3) {
      expect(a[i]).toBeGreaterThanOrEqual(10);
      expect(a[i]).toBeLessThanOrEqual(1000);
      expect(Number.isInteger(a[i])).toBe(true);
    }
  });

  test('an override changes exactly its own decision', () => {
    const base = source();
    mixed(base);
    const over = source([{ decision: 4, alternative: 3 }, { decision: 9, alternative: 1 }]);
    mixed(over);
    const diff = base.log.map((r, i) => (r.value === over.log[i]?.value ? -1 : i)).filter((i) => i >= 0);
    expect(diff.every((i) => i === 4 || i === 9)).toBe(true);
    expect(over.log[4]).toMatchObject({ kind: 'fate', value: 1, overridden: true });
    expect(over.log[9]).toMatchObject({ kind: 'delay', value: 100, overridden: true });
    expect(over.unusedOverrides()).toEqual([]);
  });

  test('delay alternatives, modulo, and the slow rule after heal', () => {
    const now = { t: 0 };
    const c = source([0, 1, 2, 3, 4, 5].map((d) => ({ decision: d, alternative: d === 5 ? 3 : d })), now, 50);
    expect([c.delay('a', D), c.delay('a', D), c.delay('a', D), c.delay('a', D), c.delay('a', D)])
      .toEqual([10, 100, 1000, 10000, 10]);
    now.t = 50;
    const healed = c.delay('a', D);
    expect(healed).toBeLessThanOrEqual(1000);
    expect(c.log[5]?.overridden).toBe(false);
  });

  test('order and fate take alternatives modulo what is available', () => {
    const c = source([{ decision: 0, alternative: 7 }, { decision: 1, alternative: 3 }]);
    expect(c.order('o', 3)).toBe(1);
    expect(c.fate('f', 0)).toBe(true);
  });

  test('seeded delay median is the median', () => {
    const c = source();
    const vals = Array.from({ length: 2001 }, () => c.delay('d', D)).sort((a, b) => a - b);
    expect(Math.abs((vals[1000] ?? 0) - 100)).toBeLessThan(15);
  });

  test('unused overrides are reported; the log is bounded', () => {
    const c = new ChoiceSource({
      streams: new RandomStreams('s'), overrides: [{ decision: 100, alternative: 0 }, { decision: 1, alternative: 0 }],
      nowUs: () => 0, logLimit: 3,
    });
    for (let i = 0; i < 10; i++) c.fate('f', 0.5);
    expect(c.unusedOverrides()).toEqual([{ decision: 100, alternative: 0 }]);
    expect(c.log.length).toBe(3);
    expect(c.count).toBe(10);
  });

  test('malformed overrides and distributions are input errors', () => {
    const bad: unknown[] = [
      'x', [{ decision: -1, alternative: 0 }], [{ decision: 1.5, alternative: 0 }],
      [{ decision: 1, alternative: -2 }], [{ decision: 1, alternative: 0 }, { decision: 1, alternative: 1 }], [null],
    ];
    for (const o of bad) expect(() => source(o as Override[])).toThrow(SimInputError);
    expect(() => validateDistribution({ minUs: -1, medianUs: 0, maxUs: 1 }, 'd')).toThrow(SimInputError);
    expect(() => validateDistribution({ minUs: 5, medianUs: 2, maxUs: 9 }, 'd')).toThrow(/minUs <= medianUs/);
    const c = source();
    expect(() => c.delay('d', { minUs: 3, medianUs: 1, maxUs: 2 })).toThrow(AssertionError);
    expect(() => c.fate('f', 2)).toThrow(AssertionError);
    expect(() => c.order('o', 0)).toThrow(AssertionError);
  });
});
