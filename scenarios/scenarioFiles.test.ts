/**
 * Scenario files on the command line: malformed files each exit 2 with one line naming the
 * field by its path; a good file runs; an unknown name lists the close ones.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runCli } from '../cli/testing/runCli.ts';
import { RUN_SPEC_VERSION } from '../sim/run/RunSpec.ts';

const dir = mkdtempSync(join(tmpdir(), 'scenario-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = runCli;

const crashAt3 = { at: { kind: 'jobmaster', checkpoint: 3, phase: 'triggered' }, do: { type: 'crash', host: 'taskmanager-2' } };
const good = {
  version: RUN_SPEC_VERSION, name: 'file-scenario', protects: 'a scenario file runs as its TypeScript form would',
  steps: [crashAt3], expect: [{ kind: 'restoredFrom', checkpoint: 2 }, { kind: 'jobStatus', status: 'FINISHED' }],
};
const withStep = (step: unknown): unknown => ({ ...good, steps: [step] });

/** [what is wrong, the file, the path the message must name]. */
const MALFORMED: readonly (readonly [string, unknown, string])[] = [
  ['another version', { ...good, version: 1 }, `version 1 is not supported: this checkpoint-sim reads run spec version ${RUN_SPEC_VERSION}`],
  ['no name', { ...good, name: undefined }, 'name:'],
  ['a name with spaces', { ...good, name: 'Crash It' }, 'name:'],
  ['an unknown envelope field', { ...good, steps2: [] }, 'scenario: unknown field "steps2"'],
  ['an unknown point kind', withStep({ ...crashAt3, at: { kind: 'taskk', checkpoint: 3, phase: 'acked' } }), 'steps[0].at.kind'],
  ['an unknown task phase', withStep({ ...crashAt3, at: { kind: 'task', checkpoint: 3, phase: 'ackd', task: 'v1#0' } }), 'steps[0].at.phase'],
  ['a task that is no task name', withStep({ ...crashAt3, at: { kind: 'task', checkpoint: 3, phase: 'acked', task: 'sink' } }), 'steps[0].at.task'],
  ['a task the job does not have', withStep({ ...crashAt3, at: { kind: 'task', checkpoint: 3, phase: 'acked', task: 'v7#0' } }), 'steps[0].at.task'],
  ['an unknown host', withStep({ ...crashAt3, do: { type: 'crash', host: 'taskmanager-9' } }), 'steps[0].do.host'],
  ['a JobManager crash', withStep({ ...crashAt3, do: { type: 'crash', host: 'jobmanager' } }), 'steps[0].do.host'],
  ['an unknown fault type', withStep({ ...crashAt3, do: { type: 'explode', host: 'taskmanager-1' } }), 'steps[0].do.type'],
  ['an unknown operator', withStep({ ...crashAt3, do: { type: 'slow-task', operator: 'nope', factor: 2, durationMs: 10 } }), 'steps[0].do.operator'],
  ['an unknown RPC method', withStep({ ...crashAt3, do: { type: 'message', action: 'lose', method: 'confirmChekpoint' } }), 'steps[0].do.method'],
  ['a step with at and atMs', withStep({ ...crashAt3, atMs: 10 }), 'steps[0]: a step has exactly one of at'],
  ['an unknown expectation kind', { ...good, expect: [{ kind: 'restoredFromm', checkpoint: 2 }] }, 'expect[0].kind'],
  ['an unknown operator in a jobRun expectation', { ...good, expect: [{ kind: 'jobRun', jobRun: 2, parallelism: { nope: 4 } }] },
    'expect[0].parallelism: unknown operator uid "nope"'],
  ['a count without a bound', { ...good, expect: [{ kind: 'checkpointsCompleted' }] }, 'expect[0]: checkpointsCompleted needs a bound'],
  ['duplicates at a point', { ...good, expect: [{ kind: 'at', point: crashAt3.at, expect: { kind: 'duplicates', atLeast: 1 } }] }, 'expect[0].expect.kind'],
  ['an unknown job status', { ...good, expect: [{ kind: 'jobStatus', status: 'DONE' }] }, 'expect[0].status'],
  ['an unknown config field', { ...good, config: { paralelism: 2 } }, 'config: unknown field "paralelism"'],
  ['an unknown checkpoint mode', { ...good, config: { checkpoint: { mode: 'exactly' } } }, 'config.checkpoint.mode'],
  ['more input than the data set', { ...good, input: { records: 50_000 } }, 'input.records'],
];

const delayStep = (delayMs: number): unknown => withStep({ ...crashAt3, do: { type: 'message', action: 'delay', method: 'triggerCheckpoint', delayMs } });

/**
 * [what is wrong, the file, the whole message after the file name]: the words are the RunSpec's
 * (`<path>: <reason>`), never zod's own, and a typo names the field rather than `steps[0]`.
 */
const WORDED: readonly (readonly [string, unknown, string])[] = [
  ['a misspelt host in a step at a point', withStep({ ...crashAt3, do: { type: 'crash', hots: 'taskmanager-2' } }),
    'steps[0].do: unknown field "hots" (fields: type, host, downMs)'],
  ['a misspelt host in a step at a time', withStep({ atMs: 10, do: { type: 'crash', hots: 'taskmanager-2' } }),
    'steps[0].do: unknown field "hots" (fields: type, host, downMs)'],
  ['a misspelt checkpoint in a step\'s point', withStep({ ...crashAt3, at: { kind: 'jobmaster', checkpiont: 3, phase: 'triggered' } }),
    'steps[0].at: unknown field "checkpiont" (fields: kind, checkpoint, savepoint, phase, jobRun)'],
  ['a step at a negative time', withStep({ atMs: -1, do: crashAt3.do }), 'steps[0].atMs: must be a number of ms >= 0, got -1'],
  ['a step at a time after the heal time', withStep({ atMs: 9000, do: crashAt3.do }),
    'steps[0].atMs: must be before healTimeMs (5000), got 9000: faults stop at the heal time'],
  ['an empty protects', { ...good, protects: '' }, 'protects: must not be empty'],
  ['an unknown promise', { ...good, promise: 'x' }, 'promise: must be one of exactly-once, at-least-once, got "x"'],
  ['an expectation without kind', { ...good, expect: [{ checkpoint: 2 }] },
    'expect[0].kind: missing (kinds: checkpointsCompleted, checkpointCompleted, checkpointAborted, restores, '
    + 'restoredFrom, jobStatus, markReached, markNotReached, duplicates, failovers, savepointCompleted, savepointAborted, savepointFailed, savepointNotSubsumed, savepointNotNotified, savepointTransactionsCommitted, jobRun, fullCheckpoint, at)'],
  ['a message step without method', withStep({ ...crashAt3, do: { type: 'message', action: 'lose' } }), 'steps[0].do.method: missing'],
  ['a point without phase', withStep({ ...crashAt3, at: { kind: 'jobmaster', checkpoint: 3 } }), 'steps[0].at.phase: missing'],
  ['an action without type', withStep({ ...crashAt3, do: { host: 'taskmanager-2' } }),
    'steps[0].do.type: missing (types: crash, global-failure, pause, partition, slow-task, coordinator-stall, message, savepoint, stop-with-savepoint, cancel, rescale)'],
  ['a crash without host', withStep({ ...crashAt3, do: { type: 'crash' } }), 'steps[0].do.host: missing'],
  ['a version that is a string', { ...good, version: String(RUN_SPEC_VERSION) },
    `version: must be the number ${RUN_SPEC_VERSION}, got the string "${RUN_SPEC_VERSION}"`],
  ['a negative delay', delayStep(-2), 'steps[0].do.delayMs: must be a number of ms above 0, got -2'],
  ['a delay of 0', delayStep(0), 'steps[0].do.delayMs: must be a number of ms above 0, got 0'],
  ['a checkpoint interval too short', { ...good, config: { checkpoint: { intervalMs: 5 } } },
    'config.checkpoint.intervalMs: must be a number of ms >= 10, got 5'],
];

describe('scenario run --file', () => {
  test('a good file runs and passes', async () => {
    const file = join(dir, 'good.json');
    writeFileSync(file, JSON.stringify(good));
    const r = await cli('scenario', 'run', '--file', file, '--out', dir);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^passed {2}file-scenario {2}steps fired 1\/1 {2}trace [0-9a-f]{16}$/m);
    expect(r.code).toBe(0);
  });

  test.each(MALFORMED.map(([what, file, path], i) => [what, file, path, i] as const))(
    '%s: exit 2, one line naming the field', async (_what, content, path, i) => {
      const file = join(dir, `bad-${i}.json`);
      writeFileSync(file, JSON.stringify(content));
      const r = await cli('scenario', 'run', '--file', file, '--out', dir);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(path);
    });

  test.each(WORDED.map(([what, file, message], i) => [what, file, message, i] as const))(
    '%s: exit 2, the RunSpec\'s words', async (_what, content, message, i) => {
      const file = join(dir, `worded-${i}.json`);
      writeFileSync(file, JSON.stringify(content));
      const r = await cli('scenario', 'run', '--file', file, '--out', dir);
      expect([r.code, r.stdout, r.stderr]).toEqual([2, '', `checkpoint-sim: ${file}: ${message}\n`]);
    });

  test('a file that is not JSON, or not there, exits 2', async () => {
    const file = join(dir, 'notjson.json');
    writeFileSync(file, '{ nope');
    expect((await cli('scenario', 'run', '--file', file)).stderr).toMatch(/not valid JSON/);
    expect((await cli('scenario', 'run', '--file', join(dir, 'missing.json'))).code).toBe(2);
  });
});

describe('scenario run by name', () => {
  test('an unknown name exits 2 and lists the close names', async () => {
    const r = await cli('scenario', 'run', 'crash-during-alignmnt');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("checkpoint-sim: unknown scenario 'crash-during-alignmnt' (close: crash-during-alignment)\n");
  });

  test('names, --all and --file go alone', async () => {
    expect((await cli('scenario', 'run', 'crash-during-alignment', '--all')).code).toBe(2);
    expect((await cli('scenario', 'run')).stderr).toMatch(/exactly one of them/);
  });

  test('--fuzz takes a positive integer', async () => {
    expect((await cli('scenario', 'run', '--all', '--fuzz', '0')).stderr).toMatch(/--fuzz must be an integer/);
  });

  test('--seed goes with --fuzz, as a 32-bit signed integer', async () => {
    expect((await cli('scenario', 'run', '--all', '--seed', '3')).stderr).toMatch(/--seed is for --fuzz runs/);
    const bad = await cli('scenario', 'run', 'crash-during-alignment', '--fuzz', '1', '--seed', '2147483648');
    expect([bad.code, bad.stderr]).toEqual([2, "checkpoint-sim: --seed must be a 32-bit signed integer, got '2147483648'\n"]);
  });

  test('--fuzz --seed fixes the schedules: the same seed, the same report', async () => {
    const a = await cli('scenario', 'run', 'crash-during-alignment', '--fuzz', '3', '--seed', '-5', '--json');
    const b = await cli('scenario', 'run', 'crash-during-alignment', '--fuzz', '3', '--seed', '-5', '--json');
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(JSON.parse(a.stdout)).toEqual([expect.objectContaining({ name: 'crash-during-alignment', seed: -5, runs: 3 })]);
  });

  test('list --json names every scenario with what it protects', async () => {
    const r = await cli('scenario', 'list', '--json');
    const list = JSON.parse(r.stdout) as { name: string; protects: string }[];
    expect(list.map((s) => s.name)).toContain('crash-during-alignment');
    expect(list.every((s) => s.protects.length > 0)).toBe(true);
  });
});

describe('marks and reasons a scenario names', () => {
  const withExpect = (e: unknown): unknown => ({ ...good, expect: [e] });
  test.each([
    ['an unknown mark in markNotReached (it would pass without testing anything)', { kind: 'markNotReached', name: 'totally-made-up-mark' }, 'expect[0].name'],
    ['a misspelt mark in markReached', { kind: 'markReached', name: 'notify-complete-skiped' }, 'expect[0].name'],
    ['an unknown CheckpointFailureReason', { kind: 'checkpointAborted', checkpoint: 3, reason: 'CHECKPOINT_SUSPENDED' }, 'expect[0].reason'],
    ['an unknown mark inside at', { kind: 'at', point: { kind: 'restore' }, expect: { kind: 'markReached', name: 'nope' } }, 'expect[0].expect.name'],
  ])('%s is refused when the file is read: exit 2 naming the field', async (_what, expectation, path) => {
    const file = join(dir, `mark-${path.replace(/\W/g, '')}.json`);
    writeFileSync(file, JSON.stringify(withExpect(expectation)));
    const r = await cli('scenario', 'run', '--file', file);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(path);
  });
});

describe('several files and the JSON shapes', () => {
  test('--file may be given several times, and every file runs (not only the last)', async () => {
    const a = join(dir, 'several-a.json');
    const b = join(dir, 'several-b.json');
    writeFileSync(a, JSON.stringify({ ...good, name: 'several-a' }));
    writeFileSync(b, JSON.stringify({ ...good, name: 'several-b' }));
    const r = await cli('scenario', 'run', '--file', a, '--file', b, '--json', '--out', join(dir, 'out'));
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { name: string }[]).map((x) => x.name)).toEqual(['several-a', 'several-b']);
  });

  test('a failure in --json carries the message the plain output prints', async () => {
    const f = join(dir, 'fails.json');
    writeFileSync(f, JSON.stringify({ ...good, name: 'fails', expect: [{ kind: 'restoredFrom', checkpoint: 9 }] }));
    const r = await cli('scenario', 'run', '--file', f, '--json', '--out', join(dir, 'out'));
    expect(r.code).toBe(1);
    const [first] = JSON.parse(r.stdout) as { passed: boolean; failure: { message: string; replay: string } }[];
    expect(first?.passed).toBe(false);
    expect(first?.failure.message).toMatch(/expect\.restoredFrom\(9\) failed/);
    expect(first?.failure.message).toContain(first?.failure.replay ?? 'no replay');
  });
});

describe('a file given to the other command', () => {
  test('a RunSpec given to scenario run --file says to use run, and a scenario given to run says to use scenario run', async () => {
    const spec = join(dir, 'a-runspec.json');
    writeFileSync(spec, JSON.stringify({
      version: RUN_SPEC_VERSION, seed: 's', job: { kind: 'wordcount' }, parallelism: 1, checkpoint: { mode: 'aligned', intervalMs: 10 },
      faults: [], healTimeMs: 0, budgets: { maxEvents: 1000, maxTimeMs: 100 }, overrides: [], mutations: [],
    }));
    const asScenario = await cli('scenario', 'run', '--file', spec);
    expect(asScenario.code).toBe(2);
    expect(asScenario.stderr).toMatch(/\(this is a RunSpec: run it with checkpoint-sim run\)\n$/);
    const scenario = join(dir, 'a-scenario.json');
    writeFileSync(scenario, JSON.stringify(good));
    const asSpec = await cli('run', scenario);
    expect(asSpec.code).toBe(2);
    expect(asSpec.stderr).toMatch(/\(this is a scenario file: run it with checkpoint-sim scenario run --file\)\n$/);
  });
});

describe('names and tasks checked before anything runs', () => {
  test('two scenarios of one name in one run are refused (their repros would overwrite each other)', async () => {
    const a = join(dir, 'same-a.json');
    writeFileSync(a, JSON.stringify(good));
    const r = await cli('scenario', 'run', '--file', a, '--file', a);
    expect([r.code, r.stderr]).toEqual([2, "checkpoint-sim: two scenarios named 'file-scenario' in one run (a failure's repro is named after its scenario): give each its own name\n"]);
    expect((await cli('scenario', 'run', 'crash-during-alignment', 'crash-during-alignment')).code).toBe(2);
  });

  test('a task the job lacks in an expectation\'s point is bad input, not a point never reached', async () => {
    const f = join(dir, 'at-unknown-task.json');
    writeFileSync(f, JSON.stringify({ ...good, expect: [{ kind: 'at', point: { kind: 'task', checkpoint: 4, phase: 'aligned', task: 'v9#0' },
      expect: { kind: 'restores', exactly: 0 } }] }));
    const r = await cli('scenario', 'run', '--file', f);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`checkpoint-sim: ${f}: expect[0].point.task: no task v9#0 in this job (tasks: v0#0, v0#1, v1#0, v1#1)\n`);
  });

  test('a triggered fault in config.faults is refused: it belongs in steps, where every step must fire', async () => {
    const f = join(dir, 'config-crash.json');
    writeFileSync(f, JSON.stringify({ ...good, config: { faults: [{ type: 'crash', host: 'taskmanager-1', when: { atMs: 10 } }] } }));
    const r = await cli('scenario', 'run', '--file', f);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('config.faults[0].type: a crash fault goes in steps (where every step must fire)');
  });
});

describe('plain output', () => {
  test('a scenario without steps says so, not "steps fired 0/0"', async () => {
    const r = await cli('scenario', 'run', 'min-pause-spaces-checkpoints', '--out', join(dir, 'out'));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^passed {2}min-pause-spaces-checkpoints {2}no steps {2}trace [0-9a-f]{16}\n/);
  });
});
