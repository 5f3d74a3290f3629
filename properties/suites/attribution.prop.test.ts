/**
 * Every checkpoint abort and every failover of explore's runs is attributed (attribution.ts): to a
 * fault, an action, a configuration limit, subsumption, finishing tasks or an expiry on a slow or
 * lost path. Not a violation yet (the judge reports it, explore counts it); this suite pins what the
 * cause links give today on fixed seeds: generated and flights jobs, both checkpointing modes, no
 * unattributed abort or failover, and every run judged by the default judge without a violation.
 * Runs with a user function that throws, or a planted bug that fails a task on its own, would have
 * some: none is drawn here.
 */
import { expect, test } from 'vitest';
import type { RunMode } from '../../sim/run/RunSpec.ts';
import { runSpecArbitrary, type BuiltInJob } from '../arbitraries/runSpecArbitrary.ts';
import { defaultJudge } from '../explore/defaultJudge.ts';
import { expectationOf } from '../explore/explore.ts';
import type { Unattributed } from '../oracles/attribution.ts';
import { checkRuns } from './checkRuns.ts';

for (const job of ['generated', 'flights'] as const satisfies readonly BuiltInJob[]) {
  for (const mode of ['aligned', 'at-least-once'] as const satisfies readonly RunMode[]) {
    test(`attribution: every abort and failover of ${job} runs in ${mode} mode has a cause`, () => {
      const unattributed: Unattributed[] = [];
      let attributed = 0;
      checkRuns({
        arbitrary: runSpecArbitrary({ job, mode, maxRecords: 300, maxParallelism: 3 }),
        expect: expectationOf(mode),
        marks: ['crash'],
        defaultRuns: 30,
        invariantsEvery: 0,
        maxStateUnjudgedShare: 0.25,
        judge: (result, expectation) => {
          const j = defaultJudge(result, expectation);
          unattributed.push(...(j.attribution?.unattributed ?? []));
          attributed += Object.values(j.attribution?.attributed ?? {}).reduce((n, k) => n + k, 0);
          return j;
        },
      });
      // Not vacuous: the runs aborted checkpoints and failed over, and each was explained.
      expect(attributed).toBeGreaterThan(30);
      expect(unattributed).toEqual([]);
    });
  }
}
