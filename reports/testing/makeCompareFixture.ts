/**
 * Writes reports/testing/compareFixture.json, the CompareReport the page tests draw: compare's
 * own core (properties/compare/compareModes.ts) over 8 seeds of the flights job (at most 300
 * records) in aligned and at-least-once mode, judged by explore's judge. Comparison seed 3 gives a
 * run with a failed checkpoint, a global failure and a restore in both modes, and duplicates in
 * at-least-once mode.
 *
 * Until the run's flow metrics (RunResult.flow, issue 15 helper "metrics") are on main, a run
 * without `flow` gets a stand-in (see flowStandIn), so that the latency, throughput and
 * back-pressure plots have values to draw; once `flow` is there the stand-in is never used.
 * Regenerate with `npx tsx reports/testing/makeCompareFixture.ts`.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compareModes } from '../../properties/compare/compareModes.ts';
import { defaultJudge } from '../../properties/explore/defaultJudge.ts';
import type { RunResult } from '../../sim/run/RunResult.ts';
import { simulate } from '../../sim/run/simulate.ts';

/** A RunResult's `flow` as the contract fixes it (the part the stand-in fills). */
interface Flow {
  readonly committedRecords: number;
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly max: number; readonly mean: number } | null;
  readonly throughputPerSec: number | null;
  readonly backPressuredMs: { readonly total: number; readonly byTask: Readonly<Record<string, number>> };
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * An estimate of a run's flow from its checkpoints: a two-phase-commit sink makes a record visible
 * at the commit after the checkpoint that follows its read, about half an interval plus a
 * checkpoint's duration for a typical record and a whole interval plus two for a late one;
 * throughput is the committed records over the job's virtual run time; back pressure the summed
 * longest alignment of the completed checkpoints.
 */
function flowStandIn(r: RunResult): Flow {
  const completed = r.checkpointStats.checkpoints.filter((c) => c.status === 'COMPLETED');
  const e2e = completed.map((c) => c.endToEndMs ?? 0).sort((a, b) => a - b);
  const median = e2e[Math.max(0, Math.ceil(e2e.length / 2) - 1)];
  const interval = r.spec.checkpoint.intervalMs;
  const spanMs = r.jobEndMs ?? r.outcome.timeMs;
  const p50 = median === undefined ? undefined : round3(interval / 2 + median);
  const p99 = median === undefined ? undefined : round3(interval + 2 * median);
  return {
    committedRecords: r.committed.length,
    latencyMs: p50 === undefined || p99 === undefined ? null : { p50, p99, max: p99, mean: p50 },
    throughputPerSec: r.committed.length === 0 ? null : Math.round((r.committed.length / spanMs) * 10_000) / 10,
    backPressuredMs: {
      total: round3(completed.reduce((a, c) => a + Math.max(0, ...c.subtasks.map((s) => s.alignmentMs)), 0)),
      byTask: {},
    },
  };
}

function main(): void {
  const report = compareModes({
    job: 'flights', modes: ['aligned', 'at-least-once'], seeds: 8, seed: 3, maxRecords: 300, judge: defaultJudge, version: '0.1.0',
    simulate: (spec) => {
      const r = simulate(spec);
      return 'flow' in r ? r : { ...r, flow: flowStandIn(r) } as RunResult;
    },
  });
  const out = fileURLToPath(new URL('./compareFixture.json', import.meta.url));
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`wrote ${out}: ${report.runs.length} runs`);
}

main();
