/**
 * The command line on assertions (DESIGN.md exit codes): an engine assertion is a counterexample,
 * so `explore` writes its repro, shrinks it, prints the replay command and exits 1, and `replay`
 * reproduces it (exit 1); an assertion of the sim's own bookkeeping is a harness failure, exit 3,
 * with its stack, no repro and no shrinking. Both are planted into the real simulator from this
 * test only (sim/testing/plantEngineAssertion.ts; a patched EventQueue.pop for the sim).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { Repro } from '../properties/explore/Repro.ts';
import { EventQueue } from '../sim/EventQueue.ts';
import { harnessAssert } from '../sim/harnessAssert.ts';
import { plantEngineAssertion } from '../sim/testing/plantEngineAssertion.ts';
import { runCli } from './testing/runCli.ts';

const cli = runCli;

/** Runs `body` with `plant()` in force; the plant is removed whatever happens. */
async function planted<T>(plant: () => () => void, body: () => Promise<T>): Promise<T> {
  const remove = plant();
  try {
    return await body();
  } finally {
    remove();
  }
}

/** The wordcount job's count operator fails the engine's own assert on the word `wheel`. */
const wheel = () => plantEngineAssertion((r) => r.value === 'wheel', 'planted: count got wheel');

/** A small search of the wordcount job writing into `out`. */
const explore = (out: string): string[] =>
  ['explore', '--job', 'wordcount', '--mode', 'aligned', '--runs', '3', '--seed', '1', '--out', out];

const tmp = mkdtempSync(join(tmpdir(), 'checkpoint-sim-assertion-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('an engine assertion on the command line', () => {
  const out = join(tmp, 'engine');
  const file = join(out, 'repro-wordcount-aligned-1.json');

  test('explore writes the shrunk repro, prints the replay command and exits 1', async () => {
    const r = await planted(wheel, () => cli(...explore(out)));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('VIOLATION in mode aligned: engine-assertion\n  planted: count got wheel\n');
    expect(r.stdout).toMatch(/ {2}details:\n {4}location: engine\/[^\n]+\.ts:\d+\n {4}timeMs: [\d.]+\n {4}stack \(\d+\):\n/);
    expect(r.stdout).toContain(`replay: npx checkpoint-sim replay ${file}\n`);
    // The expanded configuration, every default filled in (a fresh-eyes pass found the bare spec).
    expect(r.stdout).toMatch(/expanded configuration: \{.*"heartbeat":\{.*"jobManager":\{"ioPoolSize":4\}/);
    expect(readdirSync(out)).toEqual(['repro-wordcount-aligned-1.json']);
    const repro = JSON.parse(readFileSync(file, 'utf8')) as Repro;
    expect(repro).toMatchObject({ property: 'engine-assertion', summary: 'planted: count got wheel', stage: 'shrunk' });
    expect(repro.spec.faults).toEqual([]);
  });

  test('explore prints fast-check\'s seed and path with the command that regenerates the run, and that command fails the same way', async () => {
    const r = await planted(wheel, () => cli(...explore(join(tmp, 'regenerate'))));
    const line = /\n {2}fast-check: seed (-?\d+), path (\S+) \(before unfired faults were dropped\): (npx checkpoint-sim replay .+)\n/.exec(r.stdout);
    expect(line).not.toBeNull();
    const [, seed, path, command] = line ?? [];
    expect(command).toBe(`npx checkpoint-sim replay --seed ${seed ?? ''} --path ${path ?? ''} --mode aligned --job wordcount --strategy mixed`);
    const again = await planted(wheel, () => cli(...(command ?? '').split(' ').slice(2)));
    expect(again.code).toBe(1);
    expect(again.stdout).toContain('planted: count got wheel');
  });

  test('replay reproduces it, same trace hash, and exits 1; without the planted bug it holds', async () => {
    const r = await planted(wheel, () => cli('replay', file));
    expect(r.code).toBe(1);
    // The repro says which strategy drew the run (explore's default, mixed, drew it by one of the four).
    expect(r.stdout).toMatch(/recorded property engine-assertion; drawn by the (uniform|swarm|pct|targeted) strategy \(explore --strategy mixed\)\n/);
    expect(r.stdout).toMatch(/trace hash [0-9a-f]{16} \(same as recorded\)\n/);
    expect(r.stdout).toContain('the property still fails: engine-assertion: planted: count got wheel\n');
    // The explanation starts from the assertion, which is in its timeline.
    expect(r.stdout).toContain('why it failed (from the engine assertion):\n');
    expect(r.stdout).toMatch(/ sim +cause +engine assertion: planted: count got wheel\n/);
    const clean = await cli('replay', file);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain('the property holds now\n');
  });
});

describe('an assertion of the sim\'s own bookkeeping on the command line', () => {
  test('is a harness failure: exit 3 with its stack, no repro, and the run is not shrunk', async () => {
    const out = join(tmp, 'harness');
    const pops = new WeakMap<EventQueue, number>();
    let thrown = 0;
    const brokenQueue = () => {
      const original = EventQueue.prototype.pop;
      EventQueue.prototype.pop = function pop(this: EventQueue) {
        const n = (pops.get(this) ?? 0) + 1;
        pops.set(this, n);
        if (n === 100) thrown++;
        harnessAssert(n !== 100, 'planted: the event queue lost its order');
        return original.call(this);
      };
      return () => {
        EventQueue.prototype.pop = original;
      };
    };
    const r = await planted(brokenQueue, () => cli(...explore(out)));
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^checkpoint-sim: internal error: HarnessAssertionError: planted: the event queue lost its order\n +at /);
    expect(r.stdout).toBe('');
    expect(readdirSync(out)).toEqual([]);
    // The first run threw, and explore stopped there: fast-check did not shrink it.
    expect(thrown).toBe(1);
  });
});
