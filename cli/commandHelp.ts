/**
 * The examples and exit codes each command's `--help` ends with (compare has its own, beside its
 * flags). Kept in one table so every command says the same about exit codes in the same way.
 */
import type { Command } from 'commander';

const BAD_INPUT = '  2  bad usage or input (one line on stderr: the flag or file and what is wrong)';
const HARNESS = '  3  the harness broke (a determinism self-check, an error in the simulator or the oracles; with its stack)';

const HELP: Readonly<Record<string, string>> = {
  explore: `
Examples:
  npx checkpoint-sim explore --job flights --mode all --runs 200 --seed 1
  npx checkpoint-sim explore --mode at-least-once --expect exactly-once --runs 500 --seed 3
  npx checkpoint-sim explore --mode aligned --mutant sink-commits-only-notified --runs 300 --seed 1
  npx checkpoint-sim explore --job generated --strategy targeted --runs 200 --seed 1   # one strategy for every run (docs/strategies.md)
  npx checkpoint-sim explore --job ./examples/ledger.ts --mode all --runs 200 --seed 41   # a job module of your own (docs/jobs.md)

Exit codes:
  0  no violation in any mode
  1  a violation (its repro is in --out; the explanation says why: docs/explain.md)
${BAD_INPUT}
${HARNESS}`,
  replay: `
Examples:
  npx checkpoint-sim replay reports/out/repro-flights-at-least-once-3-expect-exactly-once.json
  npx checkpoint-sim replay reports/out/<repro>.json --events --trace out/run.json --mermaid out/run.md
  npx checkpoint-sim replay --seed 3 --path 8 --mode at-least-once --expect exactly-once

Exit codes:
  0  the property holds now
  1  it still fails (or another property does)
${BAD_INPUT}`,
  run: `
Examples:
  npx checkpoint-sim run my-spec.json
  npx checkpoint-sim run my-spec.json --expect exactly-once --json

Exit codes:
  0  every oracle holds
  1  a violation (its repro is in --out)
${BAD_INPUT}`,
  start: `
Examples:
  npm start
  npx checkpoint-sim start --time-budget 2m --seed 7 --out out/start
  npx checkpoint-sim start --mutant sink-commits-only-notified   # a page with counterexamples

Writes summary.json, a repro per violation and index.html (the summary, the modes compared,
every counterexample explained) into --out.

Exit codes:
  0  no violation
  1  a violation
${BAD_INPUT}
${HARNESS}`,
  scenario: `
Examples:
  npx checkpoint-sim scenario list
  npx checkpoint-sim scenario run --all
  npx checkpoint-sim scenario run --file my-scenario.json --fuzz 50 --seed 7

Exit codes (scenario run):
  0  every scenario passed
  1  one failed (a step that never fired, an expectation or an oracle; its repro is written)
${BAD_INPUT}`,
  mutants: `
Examples:
  npx checkpoint-sim mutants list
  npx checkpoint-sim mutants list --json

Exit codes:
  0  listed
${BAD_INPUT}`,
  bench: `
Examples:
  npm run bench
  npx checkpoint-sim bench --json

Exit codes:
  0  measured
${BAD_INPUT}`,
};

/** Adds the examples and exit codes of every command of `program` that has them. */
export function addCommandHelp(program: Command): void {
  for (const cmd of program.commands) {
    const text = HELP[cmd.name()];
    if (text !== undefined) cmd.addHelpText('after', text);
  }
}
