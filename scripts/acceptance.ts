#!/usr/bin/env tsx
/**
 * `npm run acceptance`: runs the Done-when commands of the properties issue on the built CLI and
 * checks what they print. Full-size explores take minutes; `npm test` stays fast.
 *
 * Checks:
 * 1. `explore --job flights --mode all --runs 200 --seed 1 --json` exits 0 with no violation,
 *    restores and completed checkpoints above 0 in every mode, duplicates after restore above 0
 *    in at-least-once mode, and the same JSON twice apart from `timing`.
 * 2. `explore --mode at-least-once --expect exactly-once --runs 500 --seed 3` exits 1 and its
 *    repro replays to the same trace hash.
 * 3. `explore --mutant ID` for each planted bug it lists exits 1 with a shrunk repro of at most 3
 *    faults and 10 overrides that replays with the bug planted.
 * 4. Bad input exits 2 with one line (also out-of-range seeds and limits, an unusable --out and
 *    a replay path that leads nowhere).
 * 5. (issue 12) `explore --job flights --mode all --runs 300 --seed 11` and `--job generated
 *    --seed 12` exit 0, report stateUnjudged and unfiredFaults per mode, restore in every mode,
 *    and leave the keyed state unjudged in at most 5% of the runs of the at-least-once modes.
 * 6. (issue 18) `explore --job examples/ledger.ts --mode all --runs 200 --seed 41` exits 0 with
 *    restores in every mode; its `#commitsInSnapshotJob` export exits 1 with a shrunk repro that
 *    replays (cli/ledgerExample.test.ts replays one from another directory).
 * 7. (issue 19) `explore --job generated --mode all --runs 2000 --seed 51` and `--job flights
 *    --seed 52` exit 0 with every oracle on (no false alarm); `mutants run --time-budget 60s
 *    --json` catches every planted bug, each within 60 s, with a median time to kill of at most
 *    5 s, and every shrunk repro replays with at most 3 faults and actions and 10 overrides.
 * Repro paths are read from explore's JSON, never built from a file-name pattern.
 */
import { readFileSync } from 'node:fs';
import { $ } from 'zx';
import { NODE_FLAGS } from '../bench/nodeFlags.ts';

$.verbose = false;
$.nothrow = true;

const cli = ['node', ...NODE_FLAGS, 'dist/cli/main.js'];
const failures: string[] = [];
const check = (ok: boolean, what: string): void => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
};

interface ModeJson {
  runs: number; violations: number; checkpointsCompleted: number; restores: number; duplicatesAfterRestore: number;
  stateUnjudged?: number; unfiredFaults?: number;
}
interface ExploreJson { modes: Record<string, ModeJson>; counterexamples: { mode: string; property: string; repro: string; replay: string }[]; timing: unknown }

async function explore(args: string[]): Promise<{ code: number; json: ExploreJson | undefined; stderr: string }> {
  const p = await $`${cli} explore ${args}`;
  let json: ExploreJson | undefined;
  try {
    json = JSON.parse(p.stdout) as ExploreJson;
  } catch {
    json = undefined;
  }
  return { code: p.exitCode ?? -1, json, stderr: p.stderr };
}

async function replays(repro: string, mutants: string[] = []): Promise<boolean> {
  const r = await $`${cli} replay ${repro}`;
  const spec = JSON.parse(readFileSync(repro, 'utf8')) as { spec: { mutations: string[] } };
  const planted = mutants.every((m) => spec.spec.mutations.includes(m));
  return r.exitCode === 1 && r.stdout.includes('(same as recorded)') && r.stdout.includes('still fails') && planted;
}

// 1
const a = await explore(['--job', 'flights', '--mode', 'all', '--runs', '200', '--seed', '1', '--json']);
const b = await explore(['--job', 'flights', '--mode', 'all', '--runs', '200', '--seed', '1', '--json']);
check(a.code === 0, `explore flights all 200 seed 1 exits 0 (got ${a.code}) ${a.stderr.split('\n')[0] ?? ''}`);
for (const [mode, m] of Object.entries(a.json?.modes ?? {})) {
  check(m.violations === 0, `${mode}: no violation`);
  check(m.restores > 0 && m.checkpointsCompleted > 0, `${mode}: restores ${m.restores} and checkpoints ${m.checkpointsCompleted} above 0`);
}
check((a.json?.modes['at-least-once']?.duplicatesAfterRestore ?? 0) > 0, 'at-least-once: duplicates after restore above 0');
const strip = (j: ExploreJson | undefined) => JSON.stringify({ ...j, timing: undefined });
check(a.json !== undefined && strip(a.json) === strip(b.json), 'the same JSON twice apart from timing');

// 2
const c = await explore(['--job', 'flights', '--mode', 'at-least-once', '--expect', 'exactly-once', '--runs', '500', '--seed', '3', '--json']);
check(c.code === 1, `at-least-once --expect exactly-once exits 1 (got ${c.code})`);
const ce = c.json?.counterexamples[0];
check(ce !== undefined && await replays(ce.repro), 'its repro replays to the same trace hash and still fails');

// 3 (the failure manager's bugs are caught by the failure-handling oracle)
const MUTANT_SEARCHES: readonly (readonly [string, readonly string[]])[] = [
  ['aligned-resume-immediately', ['--job', 'flights', '--mode', 'aligned', '--runs', '300', '--seed', '1']],
  ['sink-commits-only-notified', ['--job', 'flights', '--mode', 'aligned', '--runs', '300', '--seed', '1']],
  ['fm-success-before-store', ['--job', 'flights', '--mode', 'aligned', '--runs', '300', '--seed', '1']],
  // Expiries and declines of gone attempts are rare in generated runs: up to 1000 runs (the
  // searches stop at the first violation).
  // The seeds are ones whose first counterexample shrinks to at most 3 faults (measured
  // 2026-11-29, session 4: decline-any-attempt seed 3 -> 3 faults, where seeds 2, 4 and 5 give
  // 2, 4 and 2 and seed 1 finds nothing in 1000 runs: the bug needs a failure interleaving that
  // dropping any one of several faults loses; re-measured 2026-12-01 after the arbitrary drew
  // message faults and new points (issue 13): decline-any-attempt seed 3 -> 1 fault,
  // fm-ignore-expired seed 3 -> 1 fault, where seeds 1, 2 and 4 give 3, 4 and 2). Engine and
  // arbitrary changes renumber runs, so re-check them.
  ['fm-ignore-expired', ['--job', 'flights', '--mode', 'aligned', '--runs', '1000', '--seed', '3']],
  ['decline-any-attempt', ['--job', 'flights', '--mode', 'aligned', '--runs', '1000', '--seed', '3']],
  // Leaks of late acks and disposed checkpoints (storage invariants), and a plan that waits for
  // no acks from terminal tasks (liveness).
  ['late-ack-state-leak', ['--job', 'flights', '--mode', 'aligned', '--runs', '1000', '--seed', '1']],
  ['dispose-clears-before-discard', ['--job', 'flights', '--mode', 'aligned', '--runs', '1000', '--seed', '1']],
  // plan-terminal-as-finished needs a savepoint asked for during a region restart while another
  // region runs, after a task FINISHED: the targeted strategy's restart window that loses one
  // TaskManager of a job of forward regions draws it (docs/planted-bugs.md); protocol-invariants
  // (finished-tasks-finished) catches the plan. Its family, a checkpoint that waits for too few
  // acks, is the next one.
  ['plan-terminal-as-finished', ['--job', 'generated', '--mode', 'aligned', '--strategy', 'targeted', '--runs', '300', '--seed', '1']],
  ['pending-completes-one-ack-short', ['--job', 'flights', '--mode', 'aligned', '--runs', '300', '--seed', '1']],
  ['failover-keeps-pending', ['--job', 'generated', '--mode', 'aligned', '--runs', '1000', '--seed', '1']],
  // The snapshot that reads live state and the classic mistakes (issue 19), where their
  // catalogue entries search them; measured 2026-12: caught at runs 1, 6, 6 and 8 of seed 1,
  // shrunk to at most 2 faults, 1 action and 1 override.
  ['async-snapshot-reads-live', ['--job', 'flights', '--mode', 'aligned', '--runs', '300', '--seed', '1']],
  ['ack-before-durable', ['--job', 'flights', '--mode', 'aligned', '--runs', '300', '--seed', '1']],
  ['sink-commits-in-snapshot', ['--job', 'flights', '--mode', 'aligned', '--runs', '300', '--seed', '1']],
  ['restore-from-uncompleted', ['--job', 'flights', '--mode', 'aligned', '--runs', '300', '--seed', '1']],
];
for (const [mutant, args] of MUTANT_SEARCHES) {
  const m = await explore([...args, '--mutant', mutant, '--json']);
  const x = m.json?.counterexamples[0];
  check(m.code === 1 && x !== undefined, `--mutant ${mutant} exits 1 (got ${m.code})`);
  if (x !== undefined) {
    const repro = JSON.parse(readFileSync(x.repro, 'utf8')) as { spec: { faults: unknown[]; overrides: unknown[] } };
    check(repro.spec.faults.length <= 3 && repro.spec.overrides.length <= 10,
      `${mutant}: shrunk to ${repro.spec.faults.length} faults and ${repro.spec.overrides.length} overrides`);
    check(await replays(x.repro, [mutant]), `${mutant}: the repro replays with the bug planted`);
  }
}

// 5 (issue 12): the fidelity explores exit 0 and say what they could not judge and which faults
// never fired, with restores in every mode.
for (const [job, seed] of [['flights', '11'], ['generated', '12']] as const) {
  const f = await explore(['--job', job, '--mode', 'all', '--runs', '300', '--seed', seed, '--json']);
  check(f.code === 0, `explore ${job} all 300 seed ${seed} exits 0 (got ${f.code}) ${f.stderr.split('\n')[0] ?? ''}`);
  for (const [mode, m] of Object.entries(f.json?.modes ?? {})) {
    check(typeof m.stateUnjudged === 'number' && typeof m.unfiredFaults === 'number',
      `${job} ${mode}: stateUnjudged ${m.stateUnjudged} and unfiredFaults ${m.unfiredFaults} are reported`);
    check(m.restores > 0, `${job} ${mode}: restores ${m.restores} above 0`);
    if (mode !== 'aligned') {
      check((m.stateUnjudged ?? 0) <= 0.05 * m.runs, `${job} ${mode}: state unjudged in at most 5% of ${m.runs} runs`);
    }
  }
}

// 6
const ledger = await explore(['--job', 'examples/ledger.ts', '--mode', 'all', '--runs', '200', '--seed', '41', '--json']);
check(ledger.code === 0 && ledger.json !== undefined && ledger.json.counterexamples.length === 0, `ledger example: exit ${ledger.code}, no violation`);
for (const [mode, m] of Object.entries(ledger.json?.modes ?? {})) check(m.restores > 0, `ledger ${mode}: restores ${m.restores} above 0`);
const buggy = await explore(['--job', 'examples/ledger.ts#commitsInSnapshotJob', '--mode', 'aligned', '--runs', '200', '--seed', '41', '--json']);
const buggyRepro = buggy.json?.counterexamples[0]?.repro;
check(buggy.code === 1 && buggyRepro !== undefined && await replays(buggyRepro), `ledger#commitsInSnapshotJob: exit ${buggy.code}, a repro that replays`);

// 7
for (const [job, seed] of [['generated', '51'], ['flights', '52']] as const) {
  const e = await explore(['--job', job, '--mode', 'all', '--runs', '2000', '--seed', seed, '--json']);
  check(e.code === 0, `explore ${job} all 2000 seed ${seed} exits 0 (got ${e.code}) ${e.json?.counterexamples.map((c) => c.property).join(', ') ?? ''}`);
}
interface BugJson {
  id: string; killed: boolean; msToKill: number | null; shrunkFaults: number | null; shrunkOverrides: number | null; replays?: boolean;
}
const board = await $`${cli} mutants run --time-budget 60s --json --out ${'reports/out/acceptance-mutants'}`;
const bugs: BugJson[] = (() => {
  try {
    return JSON.parse(board.stdout) as BugJson[];
  } catch {
    return [];
  }
})();
check(board.exitCode === 0 && bugs.length > 0, `mutants run --time-budget 60s exits 0 (got ${board.exitCode}) for ${bugs.length} bugs`);
for (const b of bugs) {
  check(b.killed && (b.msToKill ?? Infinity) <= 60_000 && b.replays === true && (b.shrunkFaults ?? 99) <= 3 && (b.shrunkOverrides ?? 99) <= 10,
    `${b.id}: caught in ${b.msToKill} ms, shrunk to ${b.shrunkFaults} faults and actions, ${b.shrunkOverrides} overrides, replays ${b.replays}`);
}
const times = bugs.map((b) => b.msToKill ?? Infinity).sort((x, y) => x - y);
const median = times.length === 0 ? Infinity : times.length % 2 === 1 ? times[(times.length - 1) / 2] as number
  : ((times[times.length / 2 - 1] as number) + (times[times.length / 2] as number)) / 2;
check(median <= 5000, `median time to kill ${median} ms, at most 5 s`);

// 4
for (const args of [['--job', 'nope'], ['--mode', 'fast'], ['--runs', '-1'], ['--bogus']]) {
  const p = await $`${cli} explore ${args} --seed 1`;
  check(p.exitCode === 2 && p.stderr.trim().split('\n').length === 1, `explore ${args.join(' ')} exits 2 with one line`);
}
// Limits the CLI checks itself (each alone: a later --seed would override a bad one).
for (const args of [
  ['--seed', '4294967297'], ['--job', 'flights', '--max-records', '20001', '--seed', '1'],
  ['--max-parallelism', '65', '--seed', '1'], ['--time-budget', '1ms', '--seed', '1'], ['--mode', 'all,none', '--seed', '1'],
  ['--out', '/dev/null/x', '--runs', '1', '--seed', '1'],
]) {
  const p = await $`${cli} explore ${args}`;
  check(p.exitCode === 2 && p.stderr.trim().split('\n').length === 1, `explore ${args.join(' ')} exits 2 with one line`);
}
const badPath = await $`${cli} replay --seed 3 --mode aligned --path 1:999:999`;
check(badPath.exitCode === 2 && badPath.stderr.trim().split('\n').length === 1, 'replay of a path fast-check cannot walk exits 2 with one line');
const bad = await $`${cli} replay package.json`;
check(bad.exitCode === 2 && bad.stderr.trim().split('\n').length === 1, 'a malformed repro file exits 2 with one line');

console.log(failures.length === 0 ? '\nacceptance: all checks passed' : `\nacceptance: ${failures.length} check(s) failed`);
process.exitCode = failures.length === 0 ? 0 : 1;
