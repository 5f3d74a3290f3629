import { expect, test } from 'vitest';
import { RandomStreams } from './RandomStreams.ts';
import { SimInputError } from './SimInputError.ts';

test('named streams are independent and reproducible', () => {
  const a = new RandomStreams('root');
  const b = new RandomStreams('root');
  const aNet = a.stream('network');
  for (let i = 0; i < 100; i++) a.stream('faults')();
  const seq = [aNet(), aNet(), aNet()];
  const bNet = b.stream('network');
  expect([bNet(), bNet(), bNet()]).toEqual(seq);
  expect(a.stream('network')).toBe(aNet);
  const other = new RandomStreams('root2').stream('network');
  expect(other()).not.toBe(seq[0]);
  expect(() => new RandomStreams(5 as unknown as string)).toThrow(SimInputError);
});
