import { expect, test } from 'vitest';
import { compareTags, outputTag } from './outputTag.ts';

test('output 0 keeps the tag, output i >= 1 appends /i', () => {
  expect(outputTag('', 0)).toBe('');
  expect(outputTag('', 2)).toBe('/2');
  expect(outputTag('/1', 0)).toBe('/1');
  expect(outputTag('/1', 3)).toBe('/1/3');
  expect(() => outputTag('', -1)).toThrow(/non-negative integer/);
  expect(() => outputTag('', 1.5)).toThrow(/non-negative integer/);
});

test('compareTags orders tags by emission order', () => {
  const tags = ['/2', '/1/1', '', '/11', '/1', '/1/0/1'];
  expect([...tags].sort(compareTags)).toEqual(['', '/1', '/1/0/1', '/1/1', '/2', '/11']);
  expect(compareTags('/1', '/1/0')).toBe(0);
});
