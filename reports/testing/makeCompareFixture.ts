/**
 * Writes reports/testing/compareFixture.json, the CompareReport the page tests draw: real runs of
 * the flights job (a few hundred records) under generated faults, each mode-neutral spec run in
 * aligned and at-least-once mode with only the mode substituted, judged by explore's judge and
 * summed up the way compare.json is (docs/compare.md). Until the compare core
 * (properties/compare/compareModes) and the run's flow metrics (RunResult.flow) are on main, this
 * script stands in for them: when a run has no `flow`, its latency, throughput and back-pressure
 * figures are estimated from its checkpoints (see flowStandIn), and duplicates are attributed to
 * the run's last restore. Regenerate with `npx tsx reports/testing/makeCompareFixture.ts`.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { runSpecArbitrary } from '../../properties/arbitraries/runSpecArbitrary.ts';
import { COMPARE_FORMAT, COMPARE_FORMAT_VERSION, type CompareReport, type CompareRun, type Distribution, type MetricKey, type ModeFigures, type RunMetrics, type Timeline } from '../../properties/compare/CompareReport.ts';
import { COMPARE_METRICS } from '../../properties/compare/compareMetrics.ts';
import { describeFault } from '../../properties/describeFault.ts';
import { defaultJudge } from '../../properties/explore/defaultJudge.ts';
import { expectationOf } from '../../properties/explore/explore.ts';
import type { RunResult } from '../../sim/run/RunResult.ts';
import type { RunMode, RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';

const SEED = Number(process.argv[2] ?? 3);
const SEEDS = Number(process.argv[3] ?? 8);
const MODES: readonly RunMode[] = ['aligned', 'at-least-once'];

/** Nearest-rank percentile of ascending `sorted` (non-empty). */
function percentile(sorted: readonly number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] as number;
}

function median(xs: readonly number[]): number | null {
  return xs.length === 0 ? null : percentile([...xs].sort((a, b) => a - b), 50);
}

function distribution(values: readonly (number | null)[]): Distribution {
  const present = values.filter((v): v is number => v !== null);
  const sorted = [...present].sort((a, b) => a - b);
  const at = (p: number): number | null => (sorted.length === 0 ? null : percentile(sorted, p));
  return {
    count: present.length, missing: values.length - present.length,
    min: sorted[0] ?? null, p25: at(25), median: at(50), p75: at(75), max: sorted[sorted.length - 1] ?? null,
    mean: present.length === 0 ? null : present.reduce((a, b) => a + b, 0) / present.length,
    values: present,
  };
}

interface Flow {
  readonly latencyMs: { readonly p50: number; readonly p99: number } | null;
  readonly throughputPerSec: number | null;
  readonly backPressuredMs: { readonly total: number };
}

/** RunResult.flow when the run has it; else an estimate from the checkpoints (see the file comment). */
function flowOf(r: RunResult): Flow {
  const flow = (r as RunResult & { flow?: Flow }).flow;
  return flow ?? flowStandIn(r);
}

/**
 * A two-phase-commit sink makes a record visible at the commit after the checkpoint that follows
 * its read: about half an interval plus the checkpoint's duration for a typical record, a whole
 * interval plus it for a late one.
 */
function flowStandIn(r: RunResult): Flow {
  const completed = r.checkpointStats.checkpoints.filter((c) => c.status === 'COMPLETED');
  const e2e = median(completed.map((c) => c.endToEndMs ?? 0));
  const interval = r.spec.checkpoint.intervalMs;
  const spanMs = r.jobEndMs ?? r.outcome.timeMs;
  return {
    latencyMs: e2e === null ? null : { p50: interval / 2 + e2e, p99: interval + 2 * e2e },
    throughputPerSec: r.committed.length === 0 ? null : Math.round((r.committed.length / spanMs) * 1000 * 10) / 10,
    backPressuredMs: { total: Math.round(completed.reduce((a, c) => a + Math.max(0, ...c.subtasks.map((s) => s.alignmentMs)), 0) * 1000) / 1000 },
  };
}

function metricsOf(r: RunResult, duplicates: number, missing: number): RunMetrics {
  const completed = r.checkpointStats.checkpoints.filter((c) => c.status === 'COMPLETED');
  const perCheckpoint = (f: (s: RunResult['checkpointStats']['checkpoints'][number]['subtasks'][number]) => number) =>
    median(completed.map((c) => Math.max(0, ...c.subtasks.map(f))));
  const flow = flowOf(r);
  const restores = r.checkpointStats.restores;
  const last = restores[restores.length - 1];
  return {
    recordsLost: missing,
    duplicates,
    duplicatesByRestore: duplicates > 0 && last !== undefined
      ? [{ restoreTimeMs: last.restoreTimeMs, checkpointId: last.checkpointId, duplicates }] : [],
    checkpointEndToEndMs: median(completed.map((c) => c.endToEndMs ?? 0)),
    alignmentMs: perCheckpoint((s) => s.alignmentMs),
    syncMs: perCheckpoint((s) => s.syncMs),
    asyncMs: perCheckpoint((s) => s.asyncMs),
    startDelayMs: perCheckpoint((s) => s.startDelayMs),
    checkpointedBytes: median(completed.map((c) => c.checkpointedSizeBytes)),
    latencyP50Ms: flow.latencyMs?.p50 ?? null,
    latencyP99Ms: flow.latencyMs?.p99 ?? null,
    throughputPerSec: flow.throughputPerSec,
    backPressuredMs: flow.backPressuredMs.total,
    recoveryMs: median(restores.map((x) => x.timeToNextCompletedMs).filter((x): x is number => x !== undefined)),
  };
}

function timelineOf(r: RunResult): Timeline {
  return {
    runSeed: r.spec.seed,
    endMs: r.outcome.timeMs,
    checkpoints: r.checkpointStats.checkpoints.map((c) => ({
      id: c.id, triggerMs: c.triggerTimeMs, endMs: c.completionTimeMs ?? c.failureTimeMs ?? null, status: c.status,
    })),
    faults: r.faults.filter((f) => f.action !== 'skipped').map((f) => {
      const fault = r.spec.faults[f.fault];
      return { timeMs: f.timeMs, index: f.fault, text: `${f.action}: ${fault === undefined ? f.type : describeFault(fault)}` };
    }),
    restores: r.checkpointStats.restores.map((x) => ({ timeMs: x.restoreTimeMs, checkpointId: x.checkpointId })),
  };
}

function main(): void {
  const specs = fc.sample(runSpecArbitrary({ job: 'flights', mode: 'aligned', maxRecords: 300 }), { seed: SEED, numRuns: SEEDS });
  const runs: CompareRun[] = [];
  const timelines: Record<string, Timeline> = {};
  specs.forEach((neutral, seedIndex) => {
    for (const mode of MODES) {
      const spec: RunSpec = { ...neutral, checkpoint: { ...neutral.checkpoint, mode } };
      const result = simulate(spec);
      const expect = expectationOf(mode);
      const j = defaultJudge(result, expect);
      runs.push({
        seedIndex, runSeed: spec.seed, mode, traceHash: result.traceHash, expect,
        violations: j.violations.map((v) => ({ property: v.property, summary: v.summary })),
        unfiredFaults: [...result.unfiredFaults], metrics: metricsOf(result, j.duplicates, j.missing),
      });
      if (seedIndex === 0) timelines[mode] = timelineOf(result);
    }
  });
  const byMode: Record<string, ModeFigures> = {};
  for (const mode of MODES) {
    const mine = runs.filter((r) => r.mode === mode);
    const distributions = {} as Record<MetricKey, Distribution>;
    for (const m of COMPARE_METRICS) distributions[m.key] = distribution(mine.map((r) => r.metrics[m.key]));
    byMode[mode] = {
      runs: mine.length, violations: mine.filter((r) => r.violations.length > 0).length,
      unfiredFaults: mine.reduce((a, r) => a + r.unfiredFaults.length, 0), distributions,
    };
  }
  const report: CompareReport = {
    format: COMPARE_FORMAT, formatVersion: COMPARE_FORMAT_VERSION, checkpointSimVersion: '0.1.0',
    job: 'flights', seed: SEED, seeds: SEEDS, modes: MODES, runs, byMode, timelines,
  };
  const out = fileURLToPath(new URL('./compareFixture.json', import.meta.url));
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`wrote ${out}: ${runs.length} runs`);
}

main();
