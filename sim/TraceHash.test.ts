import { expect, test } from 'vitest';
import { TraceHash } from './TraceHash.ts';

test('the hash depends on values and their order only', () => {
  const fold = (xs: (number | string)[]): string => {
    const h = new TraceHash();
    for (const x of xs) {
      if (typeof x === 'number') h.number(x);
      else h.string(x);
    }
    return h.hex();
  };
  const a = fold([1, 'a', 2 ** 40, -3, 0.5, 'b']);
  expect(fold([1, 'a', 2 ** 40, -3, 0.5, 'b'])).toBe(a);
  expect(fold(['a', 1, 2 ** 40, -3, 0.5, 'b'])).not.toBe(a);
  expect(fold([1, 'a', 2 ** 40, -3, 0.25, 'b'])).not.toBe(a);
  expect(a).toMatch(/^[0-9a-f]{16}$/);
});

test('string hashes are the same through the cache, for strings that share its slots', () => {
  const fnv = (s: string): number => {
    let h = 0x811c9dc5;
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
    return h ^ s.length;
  };
  const h = new TraceHash();
  // Many strings (more than the cache has slots), each asked for several times, interleaved,
  // including equal strings built separately.
  const strings = Array.from({ length: 2000 }, (_x, i) => `v${i % 7}#${i % 13}@${i}`);
  strings.push('', 'a', 'ab');
  for (let round = 0; round < 3; round++) {
    for (const s of strings) expect(h.stringHash(s)).toBe(fnv(s));
    for (const s of strings) expect(h.stringHash(`${s}`.slice(0))).toBe(fnv(s));
  }
});
