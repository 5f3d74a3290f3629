/**
 * explore under a search strategy: the report says the strategy, the runs each one drew, what
 * PCT schedules changed and when the first violation came (runs and wall ms, what a runs-to-kill
 * table reads); a counterexample and its repro say which strategy drew it, and the printed
 * regenerate command (with --strategy) leads back to that very run.
 */
import { describe, expect, test } from 'vitest';
import { simulate } from '../../sim/run/simulate.ts';
import { defaultJudge } from './defaultJudge.ts';
import { explore, type ExploreOptions, type Judge } from './explore.ts';
import type { Repro } from './Repro.ts';
import { regenerateSpec } from './replay.ts';

/** A search of small generated jobs whose clock the judge moves on 250 ms per judged run. */
function search(judge: Judge, over: Partial<ExploreOptions> = {}): { options: ExploreOptions; writes: Repro[] } {
  let now = 0;
  const writes: Repro[] = [];
  const options: ExploreOptions = {
    job: 'generated', modes: ['aligned'], runs: 12, seed: 4, maxRecords: 10, determinismEvery: 0, fanOutEvery: 0,
    simulate: (spec) => simulate(spec),
    judge: (result, expect) => {
      now += 250;
      return judge(result, expect);
    },
    clock: () => now, version: 'test',
    writeRepro: (_mode, repro) => {
      writes.push(repro);
      return `repro-${writes.length}.json`;
    },
    ...over,
  };
  return { options, writes };
}

describe('explore strategies', () => {
  test('the report says the strategy (mixed by default), the runs each one drew and what PCT changed', () => {
    const report = explore(search(defaultJudge).options);
    expect(report.strategy).toBe('mixed');
    const aligned = report.modes['aligned'];
    const by = aligned?.runsByStrategy ?? {};
    expect(Object.values(by).reduce((a, b) => a + b, 0)).toBe(12);
    expect(Object.keys(by).length).toBeGreaterThan(1);
    const schedule = aligned?.schedule;
    expect(schedule?.pctRuns).toBe(by.pct ?? 0);
    expect(schedule?.orderDecisions).toBeGreaterThan(0);
    if ((schedule?.pctRuns ?? 0) > 0) expect(schedule?.pctDiffered).toBeGreaterThan(0);
    expect(aligned?.firstViolation).toBeUndefined();
    // One strategy for every run: one key.
    const swarm = explore(search(defaultJudge, { strategy: 'swarm', runs: 5 }).options);
    expect(swarm.strategy).toBe('swarm');
    expect(swarm.modes['aligned']?.runsByStrategy).toEqual({ swarm: 5 });
    expect(swarm.modes['aligned']?.schedule?.pctRuns).toBe(0);
  });

  test('the first violation: which run, the wall time to it from the mode\'s start, and the strategy that drew it', () => {
    let judged = 0;
    // The third run judged violates; later ones (shrink steps) keep failing.
    const judge: Judge = (result, expect) => {
      judged++;
      const verdict = defaultJudge(result, expect);
      return judged < 3 ? verdict : { ...verdict, violations: [{ property: 'liveness', summary: 'made up', details: {}, timeMs: 1 }] };
    };
    const { options, writes } = search(judge, { strategy: 'targeted' });
    const report = explore(options);
    expect(report.modes['aligned']?.firstViolation).toEqual({ run: 3, ms: 750, strategy: 'targeted' });
    expect(report.counterexamples[0]?.strategy).toEqual({ explore: 'targeted', run: 'targeted' });
    expect(writes.every((w) => w.strategy?.explore === 'targeted' && w.strategy.run === 'targeted')).toBe(true);
  });

  test('a counterexample drawn under mixed names the strategy that drew it, and its regenerate command leads back to it', () => {
    // Every run with a PCT schedule violates: under mixed, only the pct strategy's runs do.
    const judge: Judge = (result, expect) => {
      const verdict = defaultJudge(result, expect);
      return result.spec.pct === undefined ? verdict
        : { ...verdict, violations: [{ property: 'liveness', summary: 'has a PCT schedule', details: {}, timeMs: 1 }] };
    };
    const { options, writes } = search(judge, { runs: 30 });
    const report = explore(options);
    const c = report.counterexamples[0];
    expect(c?.strategy).toEqual({ explore: 'mixed', run: 'pct' });
    expect(report.modes['aligned']?.firstViolation?.strategy).toBe('pct');
    expect(writes.at(-1)?.strategy).toEqual({ explore: 'mixed', run: 'pct' });
    expect(c?.regenerate).toContain('--strategy mixed');
    // Shrinking keeps the run the pct strategy's: the fewest change points, at decision 0.
    expect(c?.spec.pct).toEqual({ changePoints: [0] });
    const again = regenerateSpec({
      job: 'generated', mode: 'aligned', strategy: 'mixed', mutants: [], seed: 4, path: c?.fastCheck.path ?? '', maxRecords: 10,
    });
    expect(again.strategy).toBe('pct');
    expect(again.spec.pct).toEqual({ changePoints: [0] });
    // The strategy is part of what a seed and path mean: the same run index under swarm is another run.
    const runIndex = (c?.fastCheck.path ?? '').split(':')[0] ?? '';
    const underSwarm = regenerateSpec({ job: 'generated', mode: 'aligned', strategy: 'swarm', mutants: [], seed: 4, path: runIndex, maxRecords: 10 });
    expect(underSwarm.strategy).toBe('swarm');
    expect(underSwarm.spec.pct).toBeUndefined();
  });
});
