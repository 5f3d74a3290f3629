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
