/**
 * How one judged run adds to its mode's summary in explore (ModeSummary): checkpoints, restores,
 * duplicates and missing records, unfired faults and actions, what the oracles could not judge,
 * rescales, the attribution of aborts and failovers, and marks.
 */
import type { RunResult } from '../../sim/run/RunResult.ts';
import type { RunStrategy } from '../arbitraries/ExploreStrategy.ts';
import type { Judgement, ModeSummary } from './explore.ts';
import { emptyUnattributed, recordUnattributed } from './unattributedSummary.ts';

/** Adds `result`'s rescale actions to `summary.rescales` (see ModeSummary.rescales). */
function countRescales(summary: ModeSummary, result: RunResult): void {
  const rescales = result.spec.actions.flatMap((a, i) => (a.type === 'rescale' ? [i] : []));
  if (rescales.length === 0) return;
  const r = summary.rescales ??= { fired: 0, restored: 0, failed: 0, refused: 0 };
  for (const i of rescales) {
    const log = result.actions.filter((a) => a.action === i);
    if (!log.some((a) => a.event === 'fired')) continue;
    r.fired++;
    if (log.some((a) => a.event === 'failed')) r.failed++;
    else if (log.some((a) => a.event === 'completed')) r.restored++;
  }
  r.refused += result.trace.filter((e) => e.type === 'jm.restoreFailed').length;
}

/**
 * Adds one judged run of a mode to its summary: the per-mode counts of explore's report
 * (ModeSummary), summed over the runs; `summary.runs` already counts this run. `strategy` is
 * the one that drew it (runsByStrategy).
 */
export function recordRun(summary: ModeSummary, result: RunResult, verdict: Judgement, strategy: RunStrategy): void {
  const by = summary.runsByStrategy ??= {};
  by[strategy] = (by[strategy] ?? 0) + 1;
  countSchedule(summary.schedule ??= { orderDecisions: 0, pctRuns: 0, pctOrderDecisions: 0, pctDiffered: 0 }, result.schedule);
  summary.checkpointsCompleted += result.checkpoints.completed.filter((c) => c.kind === 'checkpoint').length;
  summary.restores += result.restores;
  summary.duplicatesAfterRestore += verdict.duplicates;
  summary.missingRecords += verdict.missing;
  summary.unfiredFaults += result.unfiredFaults.length;
  summary.unfiredActions += result.unfiredActions.length;
  if (verdict.knownStuck === true) summary.knownStuck++;
  if (verdict.attribution !== undefined) recordUnattributed(summary.unattributed ??= emptyUnattributed(), verdict.attribution, summary.runs, result.spec.seed);
  countRescales(summary, result);
  const state = verdict.keyedState;
  if (!state.judged) {
    summary.stateUnjudged++;
    summary.stateUnjudgedReasons[state.reason] = (summary.stateUnjudgedReasons[state.reason] ?? 0) + 1;
  }
  const outputs = verdict.outputUnjudged ?? [];
  if (outputs.length > 0) {
    summary.outputUnjudged = (summary.outputUnjudged ?? 0) + 1;
    const reasons = summary.outputUnjudgedReasons ??= {};
    for (const reason of new Set(outputs.map((u) => u.reason))) reasons[reason] = (reasons[reason] ?? 0) + 1;
  }
  if (state.judged && (verdict.stateUnjudgedOperators ?? []).length > 0) {
    summary.statePartlyUnjudged = (summary.statePartlyUnjudged ?? 0) + 1;
  }
  const op = verdict.operatorState;
  if (op?.judged === true) summary.operatorStateJudged = (summary.operatorStateJudged ?? 0) + 1;
  else if (op !== undefined && op.reason !== 'no-operator-state') {
    const reasons = summary.operatorStateUnjudgedReasons ??= {};
    reasons[op.reason] = (reasons[op.reason] ?? 0) + 1;
  }
  for (const [k, v] of Object.entries(result.marks)) summary.marks[k] = (summary.marks[k] ?? 0) + v;
}

/** Adds a run's order decisions and what its PCT schedule changed (ModeSummary.schedule). */
function countSchedule(into: NonNullable<ModeSummary['schedule']>, s: RunResult['schedule']): void {
  into.orderDecisions += s.orderDecisions;
  if (s.pct === undefined) return;
  into.pctRuns++;
  into.pctOrderDecisions += s.orderDecisions;
  into.pctDiffered += s.pct.differed;
}
