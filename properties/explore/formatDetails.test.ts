import { describe, expect, test } from 'vitest';
import { formatDetails } from './formatDetails.ts';

describe('formatDetails', () => {
  test('one field a line, lists counted with an item a line, nested objects indented, empty lists and their zero counts left out', () => {
    const details = {
      expectedCount: 50, committedCount: 51, missing: [], missingCount: 0,
      surplus: [{ id: '5:2', value: { flightId: 19 }, attempt: 1 }], surplusCount: 1,
      sequence: { name: 'flights seq per airport', problems: [{ key: 'DCA', unexpected: [3] }], orderViolations: [] },
    };
    expect(formatDetails(details)).toEqual([
      '  expectedCount: 50',
      '  committedCount: 51',
      '  surplus (1):',
      '    - id 5:2, value {"flightId":19}, attempt 1',
      '  surplusCount: 1',
      '  sequence:',
      '    name: flights seq per airport',
      '    problems (1):',
      '      - key DCA, unexpected [3]',
    ]);
  });

  test('a long list prints its first items and says how many more --json has', () => {
    const lines = formatDetails({ ids: Array.from({ length: 12 }, (_x, i) => i) }, { maxItems: 2 });
    expect(lines).toEqual(['  ids (12):', '    - 0', '    - 1', '    ... 10 more (--json has them all)']);
  });

  test('a plain value or nothing', () => {
    expect(formatDetails('stuck at 5 ms')).toEqual(['  stuck at 5 ms']);
    expect(formatDetails({})).toEqual([]);
  });
});
