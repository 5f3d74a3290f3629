/**
 * `checkpoint-sim run <spec.json>`: a hand-written RunSpec is run and judged; every fault says
 * whether it fired and why not; a violation writes its repro first; bad files exit 2 naming them.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { Repro } from '../properties/explore/Repro.ts';
import { RUN_SPEC_VERSION, type RunSpec } from '../sim/run/RunSpec.ts';
import { expectOneLine, runCli as cli } from './testing/runCli.ts';

describe('run <spec.json>', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'checkpoint-sim-run-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  /** A small flights run (records 0..40, parallelism 2) with these faults and mutations. */
  const specFile = (name: string, edit: Partial<Record<keyof RunSpec, unknown>> = {}): string => {
    const spec = {
      $schema: '../schemas/runspec.schema.json',
      version: RUN_SPEC_VERSION, seed: 'run-cmd', job: { kind: 'flights', selection: { from: 0, to: 40 } }, parallelism: 2,
      checkpoint: { mode: 'aligned', intervalMs: 20 },
      faults: [{ type: 'global-failure', when: { atMs: 30 } }], healTimeMs: 100,
      budgets: { maxEvents: 1_000_000, maxTimeMs: 10_000 }, overrides: [], mutations: [], ...edit,
    };
    const file = join(tmp, name);
    writeFileSync(file, JSON.stringify(spec));
    return file;
  };
  const outDir = (name: string): string => join(tmp, name);

  test('a PCT change point past the run\'s last order decision is said, in the summary and in --json', async () => {
    const file = specFile('pct-unused.json', { pct: { changePoints: [3, 900_000_000] } });
    const r = await cli('run', file, '--out', outDir('out-pct'));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^PCT change point at order decision 900000000 was never reached: the run made \d+ order decisions$/m);
    expect(r.stdout).not.toContain('order decision 3 was never reached');
    const j = await cli('run', file, '--out', outDir('out-pct'), '--json');
    expect(JSON.parse(j.stdout)).toMatchObject({ unusedChangePoints: [900_000_000] });
  });

  test('savepoint actions: what each did (its id and path, or why it failed), in the summary and in --json', async () => {
    const file = specFile('savepoints.json', { faults: [], actions: [
      { type: 'savepoint', when: { at: { kind: 'jobmaster', checkpoint: 1, phase: 'completed' } } },
      { type: 'savepoint', when: { at: { kind: 'restore' } } },
    ] });
    const r = await cli('run', file, '--out', outDir('out-savepoints'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toContain('actions: 2, 1 fired, 1 never fired');
    const fired = lines.find((l) => l.startsWith('  action 0 (savepoint at checkpoint 1 completed on the jobmaster): fired at '));
    expect(fired).toMatch(/, completed at [\d.]+ ms \(savepoint (\d+), savepoint-\1\/_metadata\)$/);
    const id = Number(/\(savepoint (\d+),/.exec(fired ?? '')?.[1]);
    expect(lines.find((l) => l.startsWith('checkpoints: '))).toContain(`${id} savepoint`);
    expect(lines).toContain('  action 1 (savepoint at the 1st restore): never fired: its time or point never came');
    const json = await cli('run', file, '--out', outDir('out-savepoints'), '--json');
    const o = JSON.parse(json.stdout) as {
      checkpoints: { completed: number[]; savepointsCompleted: number[] };
      actions: { index: number; fired: boolean; log: { event: string; checkpointId?: number }[] }[]; unfiredActions: number[];
    };
    expect(o.checkpoints.savepointsCompleted).toEqual([id]);
    expect(o.checkpoints.completed).not.toContain(id);
    expect(o.actions.map((a) => [a.index, a.fired, a.log.map((e) => e.event)])).toEqual([[0, true, ['fired', 'completed']], [1, false, []]]);
    expect(o.unfiredActions).toEqual([1]);
  });

  test('a stop-with-savepoint: its outcome and the cut its output was judged against, in the summary and in --json', async () => {
    const file = specFile('stop.json', { job: { kind: 'flights', selection: { from: 0, to: 300 } }, faults: [], actions: [
      { type: 'stop-with-savepoint', drain: true, when: { atMs: 50 } },
    ] });
    const r = await cli('run', file, '--out', outDir('out-stop'));
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.find((l) => l.startsWith('  action 0 (stop-with-savepoint with drain at 50 ms): fired at 50.000 ms, completed at '))).toBeDefined();
    const stop = lines.find((l) => l.startsWith('stop-with-savepoint: '));
    expect(stop).toMatch(/^stop-with-savepoint: finished with savepoint (\d+), the job FINISHED; output judged against the input up to savepoint \1 \((\d+) of the whole input's 300 output records\)$/);
    const json = JSON.parse((await cli('run', file, '--out', outDir('out-stop'), '--json')).stdout) as {
      stopWithSavepoint: { outcome: string; savepoint: number; judgedRecords: number; inputRecords: number };
    };
    expect(json.stopWithSavepoint.outcome).toBe('finished');
    expect(json.stopWithSavepoint.inputRecords).toBe(300);
    expect(json.stopWithSavepoint.judgedRecords).toBeLessThan(300);
  });

  test('a stop refused before its savepoint says so (nothing failed over); a stuck stop\'s verdict says what was not judged', async () => {
    const early = specFile('stop-early.json', { faults: [], actions: [{ type: 'stop-with-savepoint', when: { atMs: 0 } }] });
    const r = await cli('run', early, '--out', outDir('out-stop-early'));
    expect(r.stdout).toContain('stop-with-savepoint: refused before its savepoint was triggered (NOT_ALL_REQUIRED_TASKS_RUNNING); '
      + 'the refusal failed nothing over and left periodic checkpointing as it was\n');
    const lost = specFile('stop-lost.json', {
      job: { kind: 'flights', selection: { from: 0, to: 300 } }, checkpoint: { mode: 'aligned', intervalMs: 20, timeoutMs: 100 },
      budgets: { maxEvents: 1_000_000, maxTimeMs: 2_000 },
      faults: [{ type: 'message', action: 'lose', method: 'confirmCheckpoint', checkpoint: 3 }],
      actions: [{ type: 'stop-with-savepoint', when: { atMs: 50 } }],
    });
    const s = await cli('run', lost, '--out', outDir('out-stop-lost'));
    expect(s.code).toBe(0);
    expect(s.stdout).toMatch(/\nstop-with-savepoint: stuck: tasks .+ wait forever for synchronous savepoint 3 \(its confirmation was lost; .*\); output judged against the input up to savepoint 3/);
    expect(s.stdout).toMatch(/\nholds: no property violated \(but liveness could not judge it: its stop-with-savepoint is stuck for good \(known in Flink 1\.20\); the final keyed state was not judged: .+\)\n/);
    const json = JSON.parse((await cli('run', lost, '--out', outDir('out-stop-lost'), '--json')).stdout) as { knownStuck: boolean; keyedState: { judged: boolean } };
    expect(json).toMatchObject({ knownStuck: true, keyedState: { judged: false } });
  });

  test('a spec that holds: the summary, every fault and whether it fired, exit 0, no repro', async () => {
    const unreached = { type: 'crash', host: 'taskmanager-1', when: { at: { kind: 'task', checkpoint: 900, phase: 'acked' } } };
    const file = specFile('holds.json', { faults: [{ type: 'global-failure', when: { atMs: 30 } }, unreached] });
    const out = outDir('out-holds');
    const r = await cli('run', file, '--out', out);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`run ${file}: flights, aligned, judged exactly-once`);
    expect(lines.some((l) => /^job: FINISHED at [\d.]+ ms$/.test(l))).toBe(true);
    expect(lines.some((l) => /^checkpoints: \d+ triggered, \d+ completed/.test(l))).toBe(true);
    expect(lines).toContain('faults: 2, 1 fired, 1 never fired');
    expect(lines.some((l) => /^ {2}fault 0 \(global failure at 30 ms\): global-failure at 30\.000 ms$/.test(l))).toBe(true);
    // Never a silent pass: the unfired fault is named, and the verdict says the run did not test it.
    expect(lines).toContain('  fault 1 (crash taskmanager-1 at checkpoint 900 acked on any task): never fired: its trigger was never reached');
    expect(lines).toContain('holds: no property violated (but 1 of its 2 faults never fired: the run did not test it)');
    expect(readdirSync(out)).toEqual([]);
  });

  test('a violation writes a repro first, prints the replay command, exits 1, and the repro replays', async () => {
    const file = specFile('violated.json', {
      mutations: ['sink-commits-only-notified'], faults: [{ type: 'rpc-loss', kind: 'notifyComplete', probability: 1 }],
    });
    const out = outDir('out-violated');
    const r = await cli('run', file, '--out', out);
    expect(r.code).toBe(1);
    const repro = join(out, 'repro-run-violated.json');
    expect(existsSync(repro)).toBe(true);
    expect(r.stdout).toMatch(/^VIOLATED end-to-end-exactly-once at [\d.]+ ms: /m);
    expect(r.stdout).toContain(`replay: npx checkpoint-sim replay ${repro}\n`);
    const written = JSON.parse(readFileSync(repro, 'utf8')) as Repro;
    expect(written).toMatchObject({ property: 'end-to-end-exactly-once', expect: 'exactly-once', stage: 'unshrunk' });
    // The spec's $schema path was relative to the spec file: the repro leaves it out.
    expect(written.spec.$schema).toBeUndefined();
    const again = await cli('replay', repro);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain('(same as recorded)');
  });

  test('an unfired message fault says no RPC matched it (it has no trigger to wait for), in text and --json', async () => {
    const never = { type: 'message', action: 'hold', method: 'triggerCheckpoint', checkpoint: 90 };
    const file = specFile('unmatched.json', { faults: [never] });
    const r = await cli('run', file, '--out', outDir('out-unmatched'));
    expect(r.stdout).toMatch(/^ {2}fault 0 \(.*\): never fired: no RPC matched its method and filters before the heal time$/m);
    const json = JSON.parse((await cli('run', file, '--json', '--out', outDir('out-unmatched'))).stdout) as
      { unfiredFaults: { reason: string }[]; excerpt: Record<string, unknown>[] };
    expect(json.unfiredFaults).toEqual([expect.objectContaining({ index: 0, reason: 'no RPC matched its method and filters before the heal time' })]);
    // Times at the edges are ms.
    expect(json.excerpt.length).toBeGreaterThan(0);
    expect(json.excerpt.every((e) => typeof e['timeMs'] === 'number' && !('timeUs' in e))).toBe(true);
  });

  test('--json prints one object; --expect judges against another promise', async () => {
    const file = specFile('alo.json', { checkpoint: { mode: 'at-least-once', intervalMs: 20 } });
    const r = await cli('run', file, '--json', '--out', outDir('out-json'));
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    const json = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ spec: file, expect: 'at-least-once', jobStatus: 'FINISHED', unfiredFaults: [] });
    expect(r.code).toBe(json['holds'] === true ? 0 : 1);
    expect(json['faults']).toEqual([{ index: 0, description: 'global failure at 30 ms', fired: true,
      actions: [{ action: 'global-failure', timeMs: 30 }] }]);
    const strict = JSON.parse((await cli('run', file, '--json', '--expect', 'exactly-once', '--out', outDir('out-json'))).stdout) as
      Record<string, unknown>;
    expect(strict['expect']).toBe('exactly-once');
  });

  test.each<[string, (f: string) => void, string]>([
    ['a missing file', () => undefined, 'cannot read spec file '],
    ['invalid JSON', (f) => writeFileSync(f, '{'), ': not valid JSON ('],
    ['an unknown host', (f) => writeFileSync(f, readFileSync(specFile('base.json'), 'utf8')
      .replace('"global-failure","when":{"atMs":30}', '"crash","host":"taskmanager-9","when":{"atMs":30}')),
    ': faults[0].host: unknown host "taskmanager-9" (hosts: jobmanager, taskmanager-1; or a task <vertex>#<subtask>, for the TaskManager that runs it)'],
    ['an old version', (f) => writeFileSync(f, readFileSync(specFile('base.json'), 'utf8').replace(/"version":\d+/, '"version":2')),
      ': version 2 is not supported: this checkpoint-sim reads run spec version 8'],
    ['a task the job does not have', (f) => writeFileSync(f, readFileSync(specFile('base.json'), 'utf8')
      .replace('{"atMs":30}', '{"at":{"kind":"task","checkpoint":1,"phase":"acked","task":"v7#0"}}')),
    ': faults[0].when.at.task: no task v7#0 in this job'],
  ])('%s is bad input: one line naming the file, exit 2', async (_what, write, message) => {
    const file = join(tmp, `bad-${_what.replace(/\W/g, '-')}.json`);
    write(file);
    const r = await cli('run', file, '--out', outDir('out-bad'));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expectOneLine(r.stderr, file);
    expect(r.stderr).toContain(message);
  });

  test('a bad --expect is bad usage', async () => {
    const r = await cli('run', specFile('expect.json'), '--expect', 'maybe');
    expect(r.code).toBe(2);
    expectOneLine(r.stderr, "--expect must be exactly-once or at-least-once, got 'maybe'");
  });
});
