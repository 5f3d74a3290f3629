/**
 * The command line's strategy flags and every command's --help: replay regenerates a run of the
 * strategy it names, explore's help names every strategy, and each help ends with examples and
 * exit codes.
 */
import { describe, expect, test } from 'vitest';
import { regenerateSpec } from '../properties/explore/replay.ts';
import { simulate } from '../sim/run/simulate.ts';
import { runCli } from './testing/runCli.ts';

describe('replay --seed --path --strategy', () => {
  test('regenerates the run explore drew under that strategy', async () => {
    for (const strategy of ['swarm', 'targeted', 'pct'] as const) {
      const r = await runCli('replay', '--seed', '2', '--path', '1', '--mode', 'aligned', '--job', 'generated', '--max-records', '10',
        '--strategy', strategy, '--json');
      expect(r.stderr).toBe('');
      const json = JSON.parse(r.stdout) as Record<string, unknown>;
      const drawn = regenerateSpec({ job: 'generated', mode: 'aligned', strategy, mutants: [], seed: 2, path: '1', maxRecords: 10 });
      expect(json['strategy'], strategy).toEqual({ explore: strategy, run: strategy });
      expect(json['traceHash'], strategy).toBe(simulate(drawn.spec).traceHash);
    }
  });
});

describe('explore --help names every strategy', () => {
  test('--strategy and what each strategy draws', async () => {
    const r = await runCli('explore', '--help');
    expect(r.stdout).toContain('--strategy <s>');
    for (const s of ['mixed', 'uniform', 'swarm', 'pct', 'targeted']) expect(r.stdout).toMatch(new RegExp(`\\b${s}: `));
  });
});

describe('every command\'s --help ends with examples and its exit codes', () => {
  test.each(['explore', 'compare', 'replay', 'run', 'scenario', 'start', 'mutants', 'bench'])('%s --help', async (name) => {
    const r = await runCli(name, '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\nExamples:\n {2}(npx checkpoint-sim|npm) /);
    expect(r.stdout).toMatch(/\nExit codes( \([a-z ]+\))?:\n {2}0 {2}/);
    expect(r.stdout).toContain('\n  2  bad usage or input');
  });
});
