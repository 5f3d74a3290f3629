import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { expandRunSpec } from '../../sim/run/expandRunSpec.ts';
import { runGraph } from '../../sim/run/simulate.ts';
import { createJobGraph } from '../../engine/index.ts';
import { runSpecArbitrary } from './runSpecArbitrary.ts';

describe('runSpecArbitrary', () => {
  // Found by a fresh-eyes pass: `explore --job generated --max-parallelism 16` stopped with exit 2,
  // because a drawn parallelism above the generated job's max parallelism (4 or 8) or above the
  // generated-job limit (16) made a spec the job builder refuses.
  test.each([5, 16, 64])('generated specs at --max-parallelism %i are jobs the builder accepts', (maxParallelism) => {
    const specs = fc.sample(runSpecArbitrary({ job: 'generated', mode: 'aligned', maxParallelism, maxRecords: 50 }),
      { seed: 1, numRuns: 60 });
    for (const spec of specs) {
      expect(() => createJobGraph(runGraph(expandRunSpec(spec)))).not.toThrow();
      expect(spec.parallelism).toBeLessThanOrEqual(16);
    }
    expect(specs.some((s) => (s.parallelism as number) > 4)).toBe(true);
  });
});
