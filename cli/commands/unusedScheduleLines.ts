/**
 * unusedScheduleLines: what a run's schedule asked for that the run never reached, for `run` and
 * `replay`: decision overrides past its last decision, and PCT change points past its last order
 * decision. Like a fault that never fired, each is said, never silently dropped: a repro whose
 * overrides or change points went unused does not test what it seems to.
 */
import type { RunResult } from '../../sim/run/RunResult.ts';

/** One line per unused override and per unused PCT change point (none: empty). */
export function unusedScheduleLines(r: Pick<RunResult, 'unusedOverrides' | 'schedule'>): string[] {
  const lines = r.unusedOverrides.map((x) =>
    `override of decision ${x.decision} (alternative ${x.alternative}) was never used: the run never reached that decision`);
  const pct = r.schedule.pct;
  for (const point of pct?.unusedChangePoints ?? []) {
    lines.push(`PCT change point at order decision ${point} was never reached: the run made ${r.schedule.orderDecisions} order decisions`);
  }
  return lines;
}
