/**
 * `checkpoint-sim mutants run` (cli/commands/mutantsCommand.ts): two planted bugs searched with
 * small budgets are both caught, each shrunk repro written, read back and replayed; bad flags are
 * one-line usage errors.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { MutantScore } from '../properties/mutants/scoreMutant.ts';
import { formatScoreboard } from './commands/mutantsCommand.ts';
import { expectOneLine, runCli } from './testing/runCli.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'mutants-run-'));
  dirs.push(d);
  return d;
}

describe('mutants run', () => {
  test('catches two planted bugs within small budgets; each repro replays', { timeout: 120_000 }, async () => {
    const out = tmp();
    const r = await runCli('mutants', 'run', '--only', 'pending-completes-one-ack-short,dispose-clears-before-discard',
      '--time-budget', '20s', '--seed', '1', '--out', out, '--json');
    expect(r.stderr).toBe('');
    const scores = JSON.parse(r.stdout) as MutantScore[];
    expect(scores.map((s) => s.id)).toEqual(['pending-completes-one-ack-short', 'dispose-clears-before-discard']);
    for (const s of scores) {
      expect(s.killed, s.id).toBe(true);
      expect(s.replays, s.id).toBe(true);
      expect(s.runsToKill).toBeGreaterThanOrEqual(1);
      expect(s.msToKill).toBeGreaterThanOrEqual(0);
      expect(s.shrunkFaults).toBeLessThanOrEqual(3);
      const file = /replay (\S+)$/.exec(s.replay ?? '')?.[1] ?? '';
      expect(existsSync(file), file).toBe(true);
      const repro = JSON.parse(readFileSync(file, 'utf8')) as { spec: { mutations: string[] }; property: string };
      expect(repro.spec.mutations).toEqual([s.id]);
      expect(repro.property).toBe(s.property);
    }
    expect(scores[0]?.property).toMatch(/^(consistent-cut|protocol-invariants)$/);
    expect(scores[1]?.property).toMatch(/^(storage-invariants|protocol-invariants)$/);
    expect(r.code).toBe(0);
  });

  test.each([
    [['--only', 'nope'], "--only: unknown planted bug 'nope' (planted bugs: "],
    [['--only', ','], '--only needs at least one planted-bug id'],
    [['--only', 'fm-ignore-expired,fm-ignore-expired'], "--only: planted bug 'fm-ignore-expired' named twice"],
    [['--time-budget', '500ms'], '--time-budget must be at least 1 s'],
    [['--time-budget', 'soon'], '--time-budget must be a number of seconds or a duration'],
    [['--seed', 'x'], "--seed must be an integer, got 'x'"],
    [['--strategy', 'nope'], "--strategy must be one of mixed, uniform, swarm, pct, targeted, got 'nope'"],
    [['--seeds', '3'], '--seeds applies only with --compare-strategies'],
    [['--compare-strategies', '--seeds', '0'], "--seeds must be a positive integer, got '0'"],
  ])('bad flags %j: one line, exit 2', async (flags, message) => {
    const r = await runCli('mutants', 'run', ...flags, '--out', tmp());
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expectOneLine(r.stderr, message);
  });
});

describe('mutants run --compare-strategies', () => {
  test('searches the bug with every strategy per seed, without shrinking, and writes the table', { timeout: 120_000 }, async () => {
    const out = tmp();
    const r = await runCli('mutants', 'run', '--only', 'pending-completes-one-ack-short', '--time-budget', '10s',
      '--compare-strategies', '--seeds', '2', '--out', out);
    expect(r.code).toBe(0);
    const saved = JSON.parse(readFileSync(join(out, 'strategies.json'), 'utf8')) as {
      seeds: number; searches: { strategy: string; seed: number; killed: boolean; runs: number }[];
      table: { strategies: string[]; totals: Record<string, { medianRuns: number; bugsKilled: number }> };
    };
    expect(saved.seeds).toBe(2);
    expect(saved.table.strategies).toEqual(['mixed', 'uniform', 'swarm', 'pct', 'targeted']);
    expect(saved.searches).toHaveLength(10);
    expect(saved.searches.map((x) => x.seed)).toEqual([1, 1, 1, 1, 1, 2, 2, 2, 2, 2]);
    for (const x of saved.searches) expect(x.runs).toBeGreaterThanOrEqual(1);
    // The bug shows in every run with two or more subtasks: every strategy catches it.
    for (const st of saved.table.strategies) expect(saved.table.totals[st]?.bugsKilled).toBe(1);
    expect(readFileSync(join(out, 'strategies.md'), 'utf8')).toContain('| pending-completes-one-ack-short |');
    expect(r.stdout).toContain('Runs to kill per planted bug and strategy: median over 2 seeds from 1');
  });
});

describe('formatScoreboard', () => {
  const caught: MutantScore = {
    id: 'a-bug', killed: true, runsToKill: 12, msToKill: 2400, property: 'consistent-cut', shrunkFaults: 2, shrunkActions: 1,
    shrunkOverrides: 0, shrunkRecords: 40, replay: 'npx checkpoint-sim replay out/a.json', replays: true, strategy: 'mixed', killedBy: 'targeted', job: 'generated',
    mode: 'aligned', seed: 1, runs: 12, wallMs: 5000,
  };
  const missed: MutantScore = {
    ...caught, id: 'b-bug', killed: false, runsToKill: null, msToKill: null, property: null, shrunkFaults: null,
    shrunkActions: null, shrunkOverrides: null, shrunkRecords: null, replay: null, replays: null, killedBy: null, runs: 800,
  };

  test('a row per bug, a missed bug says NO with the runs its budget made, and the summary counts the caught ones', () => {
    const lines = formatScoreboard([caught, missed], 30_000);
    expect(lines[0]).toMatch(/^planted bug\s+job, mode\s+caught/);
    expect(lines[1]).toMatch(/^a-bug\s+generated aligned\s+yes\s+12\s+2\.4 s\s+targeted\s+consistent-cut\s+2, 0, 40\s+yes$/);
    expect(lines[2]).toMatch(/^b-bug\s+generated aligned\s+NO\s+800\s+> 30 s\s+-\s+-\s+-\s+-$/);
    expect(lines).toContain('caught 1 of 2 planted bugs within 30 s each; median time to kill 2.4 s, slowest 2.4 s');
    expect(lines.at(-1)).toBe('  a-bug: npx checkpoint-sim replay out/a.json');
  });
});
