/**
 * Writes reports/testing/compareFixture.json, the CompareReport the page tests draw: compare's
 * own core (properties/compare/compareModes.ts) over 8 seeds of the flights job (at most 300
 * records) in aligned and at-least-once mode, judged by explore's judge. Comparison seed 3 gives a
 * run with a failed checkpoint, a global failure and a restore in both modes, and duplicates in
 * at-least-once mode.
 *
 * The flow figures (latency, throughput, back-pressure) are the runs' own (RunResult.flow).
 * Regenerate with `npx tsx reports/testing/makeCompareFixture.ts`.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compareModes } from '../../properties/compare/compareModes.ts';
import { defaultJudge } from '../../properties/explore/defaultJudge.ts';
import { simulate } from '../../sim/run/simulate.ts';

function main(): void {
  const report = compareModes({
    job: 'flights', modes: ['aligned', 'at-least-once'], seeds: 8, seed: 3, maxRecords: 300, judge: defaultJudge, version: '0.1.0',
    simulate: (spec) => simulate(spec),
  });
  const out = fileURLToPath(new URL('./compareFixture.json', import.meta.url));
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`wrote ${out}: ${report.runs.length} runs`);
}

main();
