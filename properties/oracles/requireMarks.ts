/**
 * Oracle 9 of ORACLES.md, sometimes marks: a suite that targets a situation must reach it at
 * least once across its runs, or it passes vacuously. The engine and the sim count the marks they
 * reach per run (`RunResult.marks`); this sums them over a suite.
 */
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';

/**
 * One `sometimes-marks` violation per targeted mark that never appeared in any of `results`
 * (a suite with no runs misses every mark). `timeMs` is 0: the violation is of the suite, not of
 * a moment of one run.
 */
export function requireMarks(
  results: readonly Pick<RunResult, 'marks'>[],
  marks: readonly string[],
): Violation[] {
  const totals = new Map<string, number>();
  for (const r of results) {
    for (const [name, n] of Object.entries(r.marks)) totals.set(name, (totals.get(name) ?? 0) + n);
  }
  return marks.filter((m) => (totals.get(m) ?? 0) === 0).map((m) => ({
    property: 'sometimes-marks',
    summary: `vacuous: mark ${m} never appeared in ${results.length} run(s)`,
    details: { mark: m, runs: results.length, seen: Object.fromEntries(totals) },
    timeMs: 0,
  }));
}
