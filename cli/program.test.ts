import { CommanderError } from 'commander';
import {
  existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { InvalidConfigurationError, InvalidJobError } from '../engine/index.ts';
import { PLANTED_BUG_IDS } from '../engine/plantedBugs.ts';
import { REPRO_FORMAT_VERSION, type Repro } from '../properties/explore/Repro.ts';
import { regenerateSpec } from '../properties/explore/replay.ts';
import type { RunSpec } from '../sim/run/RunSpec.ts';
import { simulate } from '../sim/run/simulate.ts';
import { SimInputError } from '../sim/SimInputError.ts';
import type { ExploreReport } from '../properties/explore/explore.ts';
import { ORACLE_NAMES } from '../properties/oracles/judgeRun.ts';
import {
  parseExploreFlags, printReport, reproFileName, runExplore, toJson, type ExploreSettings,
} from './commands/exploreCommand.ts';
import { runStart } from './commands/startCommand.ts';
import { prepareOutDir } from './outDir.ts';
import { UsageError, reportError, run, type Io } from './program.ts';
import { expectOneLine } from './testing/runCli.ts';

/** An Io that keeps what is written. */
function capture(): Io & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    out(t: string) {
      io.stdout += t;
    },
    err(t: string) {
      io.stderr += t;
    },
  };
  return io;
}

async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = capture();
  const code = await run(argv, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/** Exactly one line `checkpoint-sim: ...`. */
const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
}).version;

describe('checkpoint-sim command line', () => {
  test('no arguments prints a line saying a command is needed, then the help, on stderr and exits 2 (a usage error)', async () => {
    const r = await cli();
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('checkpoint-sim: a command is needed (see the commands below)');
    expect(r.stderr.split('\n')[1]).toBe('Usage: checkpoint-sim [options] [command]');
    expect(r.stderr).toContain('bench');
    expect(r.stdout).toBe('');
    expect(await cli('--')).toEqual(r);
    // The README quotes that line.
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    expect(readme).toContain('`npx checkpoint-sim` with no command prints `checkpoint-sim: a command is needed (see the commands below)`');
  });

  test('mutants list names every planted bug once, with its Flink issue, source file and what catches it', async () => {
    const r = await cli('mutants', 'list');
    expect(r.code).toBe(0);
    for (const id of PLANTED_BUG_IDS) expect(r.stdout).toMatch(new RegExp(`^${id}( \\(FLINK-\\d+\\))?  engine/\\S+\\.ts$`, 'm'));
    const listed = JSON.parse((await cli('mutants', 'list', '--json')).stdout) as {
      planted: { id: string; source: string }[]; notPlanted: { flinkIssues: string[]; whyNot: string }[];
    };
    const json = listed.planted;
    expect(json.map((b) => b.id).sort()).toEqual([...PLANTED_BUG_IDS].sort());
    // The catalogue's bugs that are not planted, with the reason, in both forms.
    expect(listed.notPlanted.map((b) => b.flinkIssues)).toEqual([['FLINK-6996', 'FLINK-5701']]);
    expect(listed.notPlanted[0]?.whyNot).toMatch(/asynchronous sink writes/);
    expect(r.stdout).toMatch(/^not planted \(the engine lacks what they need\):\nFLINK-6996, FLINK-5701\n {2}.+\n {2}why not: it needs asynchronous sink writes/m);
    // Each source file exists and names the id (the switch lives there).
    for (const b of json) expect(readFileSync(new URL(`../${b.source}`, import.meta.url), 'utf8')).toContain(`'${b.id}'`);
    // And docs/planted-bugs.md has a section for each.
    const doc = readFileSync(new URL('../docs/planted-bugs.md', import.meta.url), 'utf8');
    for (const b of json) expect(doc).toContain(`### \`${b.id}\``);
  });

  test('--help, -h and help print the help and exit 0', async () => {
    for (const argv of [['--help'], ['-h'], ['help']]) {
      const r = await cli(...argv);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Usage: checkpoint-sim');
      expect(r.stderr).toBe('');
    }
  });

  test('help <command> prints that command\'s help', async () => {
    const r = await cli('help', 'bench');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: checkpoint-sim bench [options]');
    expect(r.stdout).toContain('--json');
  });

  test('--version and -V print the package version', async () => {
    for (const flag of ['--version', '-V']) {
      const r = await cli(flag);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${version}\n`);
      expect(r.stderr).toBe('');
    }
  });

  test.each([
    [['foo'], "unknown command 'foo'"],
    [['strat'], "unknown command 'strat' (Did you mean start?)"],
    [['--bogus'], "unknown option '--bogus'"],
    [['start', '--x'], "unknown option '--x'"],
    [['explore', '--job', 'nope', '--runs', '1', '--seed', '1'], "unknown job 'nope' (jobs: flights, wordcount, generated, or a path to a job module such as ./job.ts)"],
    [['explore', '--mode', 'fast', '--runs', '1', '--seed', '1'], "unknown mode 'fast' (modes: aligned, at-least-once, none; or all for aligned and at-least-once)"],
    [['explore', '--mode', 'all,none', '--runs', '1', '--seed', '1'], "--mode takes one or more modes separated by commas, or 'all' alone, got 'all,none'"],
    [['explore', '--mode', 'aligned,aligned', '--runs', '1', '--seed', '1'], '--mode names aligned twice'],
    [['explore', '--job', 'flights', '--max-records', '20001', '--runs', '1', '--seed', '1'], "--max-records must be at most 20000 for the flights job, got '20001'"],
    [['explore', '--job', 'generated', '--max-records', '2001', '--runs', '1', '--seed', '1'], "--max-records must be at most 2000 for the generated job, got '2001'"],
    [['explore', '--job', 'wordcount', '--max-records', '100000000', '--runs', '1', '--seed', '1'], '--max-records does not apply to the wordcount job'],
    [['explore', '--max-parallelism', '65', '--runs', '1', '--seed', '1'], "--max-parallelism must be at most 64 (the largest parallelism a run may have), got '65'"],
    [['explore', '--seed', '4294967297', '--runs', '1'], "--seed must be a 32-bit signed integer (-2147483648..2147483647), got '4294967297'"],
    [['explore', '--seed', '99999999999999999999', '--runs', '1'], "--seed must be a 32-bit signed integer (-2147483648..2147483647), got '99999999999999999999'"],
    [['explore', '--seed', '-2147483649', '--runs', '1'], '--seed must be a 32-bit signed integer'],
    [['explore', '--time-budget', '1ms', '--seed', '1'], "--time-budget must be at least 1 s (a number of seconds or a duration like 60s, 2m or 1500ms), got '1ms'"],
    [['explore', '--time-budget', '0.5', '--seed', '1'], "--time-budget must be at least 1 s (a number of seconds or a duration like 60s, 2m or 1500ms), got '0.5'"],
    [['explore', '--time-budget', '0', '--seed', '1'], "--time-budget must be at least 1 s (a number of seconds or a duration like 60s, 2m or 1500ms), got '0'"],
    [['explore', '--mutant', 'nope', '--seed', '1'], "--mutant: unknown planted bug 'nope' (planted bugs: "],
    [['explore', '--mutant', 'ack-before-durable,ack-before-durable', '--seed', '1'], "--mutant: planted bug 'ack-before-durable' named twice"],
    [['explore', '--strategy', 'nope', '--seed', '1'], "--strategy must be one of mixed, uniform, swarm, pct, targeted, got 'nope'"],
    [['replay', '--seed', '1', '--path', '0', '--mode', 'aligned', '--strategy', 'random'], "--strategy must be one of mixed, uniform, swarm, pct, targeted, got 'random'"],
    [['replay', 'package.json', '--strategy', 'pct'], 'replay <file> takes no --strategy; the repro file fixes it'],
    [['replay', '--seed', '1', '--path', '0', '--mode', 'aligned', '--mutant', 'nope'], "--mutant: unknown planted bug 'nope'"],
    [['start', '--time-budget', '999ms'], "--time-budget must be at least 1 s (a number of seconds or a duration like 60s, 2m or 1500ms), got '999ms'"],
    [['start', '--seed', '2147483648'], '--seed must be a 32-bit signed integer'],
    [['replay', '--seed', '3', '--mode', 'aligned', '--path', '1:999:999'], '--path 1:999:999 does not lead to a run of seed 3 with these flags (flights, aligned)'],
    [['replay', '--seed', '3', '--mode', 'aligned', '--path', '0:99999'], '--path 0:99999 does not lead to a run of seed 3'],
    [['replay', '--seed', '4294967299', '--mode', 'aligned', '--path', '0'], '--seed must be a 32-bit signed integer'],
    [['replay', '--seed', '1', '--mode', 'aligned', '--path', '0', '--runs', '5'], 'replay takes no --runs; it replays one run and writes nothing'],
    [['replay', '--seed', '1', '--mode', 'aligned', '--path', '0', '--time-budget', '5s'], 'replay takes no --time-budget'],
    [['replay', '--seed', '1', '--mode', 'aligned', '--path', '0', '--out', 'x'], 'replay takes no --out'],
    [['replay', 'package.json', '--mode', 'aligned'], 'replay <file> takes no --mode; the repro file fixes it'],
    [['replay', 'package.json', '--seed', '1'], 'replay <file> takes no --seed; the repro file fixes it'],
    [['replay', 'package.json', '--job', 'flights'], 'replay <file> takes no --job'],
    [['replay', 'package.json', '--expect', 'exactly-once'], 'replay <file> takes no --expect'],
    [['replay', 'package.json', '--mutant', 'x'], 'replay <file> takes no --mutant'],
    [['replay', 'package.json', '--path', '0'], 'replay <file> takes no --path'],
    [['replay', 'package.json', '--max-records', '5'], 'replay <file> takes no --max-records'],
    [['replay', 'package.json', '--max-parallelism', '5'], 'replay <file> takes no --max-parallelism'],
    [['replay', 'package.json', '--runs', '5'], 'replay takes no --runs'],
    [['replay', 'package.json', '--out', 'x'], 'replay takes no --out'],
    [['explore', '--out', '/dev/null/x', '--runs', '1', '--seed', '1'], '--out /dev/null/x: /dev/null is not a directory'],
    [['explore', '--mode', 'unaligned', '--runs', '1', '--seed', '1'], 'mode unaligned is not available yet'],
    [['explore', '--runs', '0', '--seed', '1'], "--runs must be a positive integer, got '0'"],
    [['explore', '--mutant', '', '--runs', '1', '--seed', '1'], '--mutant needs at least one planted-bug id'],
    [['explore', '--runs', '2', '--time-budget', '1s', '--seed', '1'], 'give --runs or --time-budget, not both'],
    [['explore', '--seed', 'x', '--runs', '1'], "--seed must be an integer, got 'x'"],
    [['explore', '--time-budget', 'soon', '--seed', '1'], "--time-budget must be a number of seconds or a duration like 60s, 2m or 1500ms; at least 1 s, got 'soon'"],
    [['replay', '/nonexistent/repro.json'], 'cannot read repro file /nonexistent/repro.json (no such file)'],
    [['replay'], 'replay needs a repro file, or --seed and --path'],
    [['replay', '--seed', '1', '--path', 'x:y', '--mode', 'aligned'], "--path must look like 3:0:1, got 'x:y'"],
    [['bench', 'extra'], "too many arguments for 'bench'"],
    [['help', 'foo'], "help: unknown command 'foo' (commands: explore, compare, replay, run, scenario, start, mutants, bench, help)"],
    [['help', 'start', 'x'], "too many arguments for 'help'"],
  ])('%j is bad usage: one line on stderr, exit 2', async (argv, message) => {
    const r = await cli(...argv);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expectOneLine(r.stderr, message);
    expect(r.stderr).not.toContain('error:');
  });
});

describe('reportError', () => {
  test.each([
    ['SimInputError', new SimInputError('drainUs must be a non-negative integer, got -1')],
    ['InvalidJobError', new InvalidJobError('the job has no sink')],
    ['InvalidConfigurationError', new InvalidConfigurationError('rpcTimeoutUs', 'must be a positive integer')],
    ['UsageError', new UsageError('bad flag')],
  ])('%s is bad input: exit 2 with its message on one line', (_name, error) => {
    const io = capture();
    expect(reportError(error, io)).toBe(2);
    expect(io.stderr).toBe(`checkpoint-sim: ${error.message}\n`);
    expect(io.stdout).toBe('');
  });

  test('a multi-line message is folded onto one line', () => {
    const io = capture();
    expect(reportError(new SimInputError('at(a\nb): fn must be a function'), io)).toBe(2);
    expectOneLine(io.stderr, 'at(a b): fn must be a function');
  });

  test('anything else is a harness failure: exit 3', () => {
    const io = capture();
    expect(reportError(new Error('boom'), io)).toBe(3);
    expect(io.stderr).toMatch(/^checkpoint-sim: internal error: Error: boom/);
    expect(reportError('odd', capture())).toBe(3);
  });

  test("commander's exits keep their meaning", () => {
    const io = capture();
    expect(reportError(new CommanderError(0, 'commander.version', '0.1.0'), io)).toBe(0);
    expect(reportError(new CommanderError(1, 'commander.unknownCommand', 'x'), io)).toBe(2);
    expect(io.stderr).toBe('');
  });
});

describe('flag limits', () => {
  test('the largest accepted values pass', () => {
    expect(parseExploreFlags({ job: 'flights', maxRecords: '20000', seed: '1' }).maxRecords).toBe(20000);
    expect(parseExploreFlags({ job: 'generated', maxRecords: '2000', seed: '1' }).maxRecords).toBe(2000);
    expect(parseExploreFlags({ maxParallelism: '64', seed: '1' }).maxParallelism).toBe(64);
    expect(parseExploreFlags({ seed: '2147483647' }).seed).toBe(2147483647);
    expect(parseExploreFlags({ seed: '-2147483648' }).seed).toBe(-2147483648);
    expect(parseExploreFlags({ timeBudget: '1s', seed: '1' }).timeBudgetMs).toBe(1000);
    // Every form the hint names is accepted: a number of seconds, and the examples, 1500ms included.
    expect(['10', '60s', '2m', '1500ms'].map((t) => parseExploreFlags({ timeBudget: t, seed: '1' }).timeBudgetMs)).toEqual([10_000, 60_000, 120_000, 1500]);
    expect(parseExploreFlags({ mode: 'aligned,at-least-once', seed: '1' }).modes).toEqual(['aligned', 'at-least-once']);
  });

  test('help says what all, --seed, --runs, --time-budget and --max-records take', async () => {
    const help = (await cli('help', 'explore')).stdout.replace(/\s+/g, ' ');
    expect(help).toContain('or all: the checkpointing modes aligned and at-least-once');
    expect(help).toContain('a 32-bit signed integer (-2147483648..2147483647)');
    expect(help).toContain('runs per mode (default 100); a mode stops at its first violation');
    expect(help).toContain('a number of seconds or a duration like 60s, 2m or 1500ms; at least 1 s');
    expect(help).toContain('at most 20000 for flights');
    const start = (await cli('help', 'start')).stdout.replace(/\s+/g, ' ');
    expect(start).toContain('checkpointing modes (aligned and at-least-once)');
    expect(start).toContain('writes reports/out');
    expect(start).toContain('32-bit signed integer');
    const replay = (await cli('help', 'replay')).stdout;
    expect(replay).not.toContain('--runs');
    expect(replay).not.toContain('--out');
  });
});

describe('output directory', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'checkpoint-sim-cli-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const aFile = join(tmp, 'a-file');
  writeFileSync(aFile, 'x');

  test('missing components are created one by one, and no probe file is left', () => {
    const dir = join(tmp, 'a', 'b', 'c');
    expect(prepareOutDir(dir, '--out x')).toBe(dir);
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
    expect(prepareOutDir(dir, '--out x')).toBe(dir);
  });

  test.each([
    [aFile, `${aFile} is not a directory`],
    [join(aFile, 'x'), `${aFile} is not a directory`],
    ['/dev/null/x', '/dev/null is not a directory'],
    // Found by a fresh-eyes pass: '' resolved to the working directory and was written into.
    ['', 'the directory name is empty'],
    ['  ', 'the directory name is empty'],
  ])('%j is refused with a one-line reason', (dir, reason) => {
    expect(() => prepareOutDir(dir, `--out ${dir}`)).toThrow(new UsageError(`--out ${dir}: ${reason}`));
  });

  // Node's recursive mkdir never returns for /proc/nope; one mkdir at a time fails at once.
  test.runIf(existsSync('/proc/self'))('/proc/nope fails at once instead of hanging', async () => {
    const r = await cli('explore', '--out', '/proc/nope', '--runs', '1', '--seed', '1');
    expect(r.code).toBe(2);
    expectOneLine(r.stderr, '--out /proc/nope: cannot create directory /proc/nope');
  }, 5000);

  test('explore refuses an unusable --out before any run', () => {
    let runs = 0;
    const settings: ExploreSettings = {
      ...parseExploreFlags({ job: 'generated', mode: 'aligned', runs: '1', seed: '1', maxRecords: '5' }),
      out: join(aFile, 'out'),
    };
    const simulateSpy = (spec: Parameters<typeof simulate>[0]) => {
      runs++;
      return simulate(spec);
    };
    expect(() => runExplore(settings, capture(), 'test', false, { simulate: simulateSpy })).toThrow(UsageError);
    expect(runs).toBe(0);
  });

  test('start refuses an unusable output directory before any run', () => {
    const io = capture();
    expect(() => runStart({ timeBudget: '60s', seed: '1' }, io, 'test', join(aFile, 'out')))
      .toThrow(`output directory ${join(aFile, 'out')}: ${aFile} is not a directory`);
    expect(io.stdout).toBe('');
  });

  test('start says its time budget with its unit and writes summary.json into its directory', () => {
    const io = capture();
    const out = join(tmp, 'start-out');
    const code = runStart({ timeBudget: '1', seed: '1' }, io, 'test', out);
    expect([0, 1]).toContain(code);
    expect(io.stdout).toContain('exploring the flights job (aligned, at-least-once) under faults for 1 s\n');
    expect(existsSync(join(out, 'summary.json'))).toBe(true);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { modes: Record<string, object>; mutants: string[] };
    expect(summary.mutants).toEqual([]);
    for (const mode of ['aligned', 'at-least-once']) {
      expect(Object.keys(summary.modes[mode] ?? {})).toEqual(expect.arrayContaining(['missingRecords', 'unfiredFaults']));
    }
    expect(io.stdout).toMatch(/\nmode +runs +violations +checkpoints +restores +duplicates +missing +unfired faults +state unjudged +unattributed\n/);
  });
});

describe('start clears only its own earlier output', () => {
  test('the files the previous start listed go, others stay; --json prints the summary as one object', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'checkpoint-sim-start-')), 'out');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'repro-flights-aligned-9.json'), '{}');
    writeFileSync(join(out, 'mine.txt'), 'keep me');
    writeFileSync(join(out, 'start-manifest.json'), JSON.stringify({ written: ['repro-flights-aligned-9.json', '../escape.txt'] }));
    const r = await cli('start', '--time-budget', '1', '--seed', '1', '--out', out, '--json');
    expect([0, 1]).toContain(r.code);
    expect(existsSync(join(out, 'repro-flights-aligned-9.json'))).toBe(false);
    expect(readFileSync(join(out, 'mine.txt'), 'utf8')).toBe('keep me');
    const json = JSON.parse(r.stdout) as { modes: Record<string, object>; counts: Record<string, string> };
    expect(Object.keys(json.modes)).toEqual(['aligned', 'at-least-once']);
    // Every count of a mode says what it counts.
    for (const k of Object.keys(json.modes['aligned'] ?? {}).filter((key) => key !== 'stateUnjudgedReasons')) {
      expect(json.counts[k], k).toMatch(/\w+/);
    }
    const manifest = JSON.parse(readFileSync(join(out, 'start-manifest.json'), 'utf8')) as { written: string[] };
    expect(manifest.written[0]).toBe('summary.json');
    expect(manifest.written.every((f) => existsSync(join(out, f)))).toBe(true);
  });
});

describe('explore summary: unjudged state', () => {
  const mode = {
    runs: 10, violations: 0, checkpointsCompleted: 40, restores: 3, duplicatesAfterRestore: 7, missingRecords: 0, knownStuck: 0,
    unfiredFaults: 1, unfiredActions: 0, stateUnjudged: 2, stateUnjudgedReasons: { 'hidden-search-inconclusive': 2 }, marks: {},
  };
  const report: ExploreReport = {
    job: 'generated', seed: 5, strategy: 'mixed', runsPerMode: 10, mutants: [], counterexamples: [], fanOut: { runs: 0, violations: 0, unfired: 0, rescaleRuns: 0, rescaleViolations: 0, rescaleUnfired: 0 },
    timing: { wallMs: 1000 },
    modes: { aligned: { ...mode, stateUnjudged: 0, stateUnjudgedReasons: {} }, 'at-least-once': mode },
  };

  test('the table and the JSON say per mode how many runs left the keyed state unjudged, and why', () => {
    const io = capture();
    printReport(report, io);
    const lines = io.stdout.split('\n');
    expect(lines[1]).toMatch(/^mode +runs +violations +checkpoints +restores +duplicates +missing +unfired faults +state unjudged +unattributed$/);
    expect(lines[2]).toMatch(/^aligned +10 +0 +40 +3 +7 +0 +1 +0 +0 *$/);
    expect(lines[3]).toMatch(/^at-least-once +10 +0 +40 +3 +7 +0 +1 +2 +0 *$/);
    expect(lines[4]).toBe('at-least-once: final keyed state not judged in 2 run(s): 2 hidden-search-inconclusive');
    expect(io.stdout).not.toContain('aligned: final keyed state');
    const json = toJson(report) as { modes: Record<string, { stateUnjudged: number; stateUnjudgedReasons: unknown }> };
    expect(json.modes['at-least-once']).toMatchObject({ stateUnjudged: 2, stateUnjudgedReasons: { 'hidden-search-inconclusive': 2 } });
  });

  test('savepoint actions that never fired are said per mode under the table, and counted in the JSON', () => {
    const io = capture();
    const withUnfired: ExploreReport = { ...report, modes: { ...report.modes, aligned: { ...mode, unfiredActions: 3 } } };
    printReport(withUnfired, io);
    expect(io.stdout).toContain('\naligned: 3 action(s) (savepoints, stops) never fired (their time or point never came)\n');
    expect(io.stdout).not.toContain('at-least-once: 0 savepoint');
    expect((toJson(withUnfired) as { modes: Record<string, { unfiredActions: number }> }).modes['aligned']?.unfiredActions).toBe(3);
  });

  test('what the stops came to is said per mode from their marks, and a stuck stop is counted as known', () => {
    const io = capture();
    const marks = { 'stop-with-savepoint-finished': 4, 'stop-with-savepoint-failed': 1, 'stop-with-savepoint-stuck': 2 };
    printReport({ ...report, modes: { ...report.modes, aligned: { ...mode, marks, knownStuck: 2 } } }, io);
    expect(io.stdout).toContain('\naligned: stop-with-savepoint (a rescale\'s stops included): 4 finished, 1 failed (the job failed over or the request was refused), '
      + '0 failed the job after the savepoint, 2 stuck\n');
    expect(io.stdout).toContain('\naligned: 2 run(s) stuck in stop-with-savepoint (a lost confirmation or abort: known in Flink 1.20), liveness not judged\n');
    expect(io.stdout).not.toContain('at-least-once: stop-with-savepoint');
  });

  test('the JSON carries the restore fan-out figures, forks whose failover never fired included', () => {
    const json = toJson({ ...report, fanOut: { runs: 4, violations: 0, unfired: 1, rescaleRuns: 3, rescaleViolations: 0, rescaleUnfired: 1 } }) as { fanOut: unknown };
    expect(json.fanOut).toEqual({ runs: 4, violations: 0, unfired: 1, rescaleRuns: 3, rescaleViolations: 0, rescaleUnfired: 1 });
  });
});

describe('repro file names', () => {
  const base = { job: 'flights', seed: 3, expect: undefined, mutants: [], maxRecords: undefined, maxParallelism: undefined } as const;

  test('default flags keep the short name', () => {
    expect(reproFileName(base, 'aligned')).toBe('repro-flights-aligned-3.json');
    expect(reproFileName({ ...base, expect: 'exactly-once' }, 'aligned')).toBe('repro-flights-aligned-3.json');
    expect(reproFileName({ ...base, strategy: 'mixed' }, 'aligned')).toBe('repro-flights-aligned-3.json');
  });

  test('a strategy other than the default is in the name', () => {
    expect(reproFileName({ ...base, strategy: 'targeted' }, 'aligned')).toBe('repro-flights-aligned-3-strategy-targeted.json');
    expect(reproFileName({ ...base, strategy: 'pct', maxRecords: 50 }, 'at-least-once')).toBe('repro-flights-at-least-once-3-strategy-pct-max-records-50.json');
  });

  test('a non-default expectation, limits and mutants are in the name', () => {
    expect(reproFileName({ ...base, expect: 'exactly-once' }, 'at-least-once')).toBe('repro-flights-at-least-once-3-expect-exactly-once.json');
    expect(reproFileName({ ...base, maxRecords: 50, maxParallelism: 2 }, 'aligned')).toBe('repro-flights-aligned-3-max-records-50-max-parallelism-2.json');
    expect(reproFileName({ ...base, mutants: ['sink-commits-only-notified'] }, 'aligned'))
      .toBe('repro-flights-aligned-3-mutant-sink-commits-only-notified.json');
    expect(reproFileName({ ...base, mutants: ['b-bug', 'a-bug', 'b-bug'] }, 'aligned')).toBe('repro-flights-aligned-3-mutant-a-bug+b-bug.json');
    expect(reproFileName({ ...base, mutants: ['a-bug'] }, 'aligned')).not.toBe(reproFileName({ ...base, mutants: ['b-bug'] }, 'aligned'));
  });

  test('odd or many mutant ids give a short safe hashed name, different per list', () => {
    const odd = reproFileName({ ...base, mutants: ['../etc/passwd'] }, 'aligned');
    expect(odd).toMatch(/^repro-flights-aligned-3-mutants-[0-9a-f]{8}\.json$/);
    expect(odd).not.toBe(reproFileName({ ...base, mutants: ['..%etc%passwd'] }, 'aligned'));
    const many = reproFileName({ ...base, mutants: Array.from({ length: 12 }, (_x, i) => `planted-bug-number-${i}`) }, 'aligned');
    expect(many.length).toBeLessThan(80);
  });
});

describe('explore summary', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'checkpoint-sim-summary-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const args = ['explore', '--job', 'generated', '--mode', 'aligned', '--runs', '2', '--seed', '1', '--max-records', '10', '--out', tmp];

  test('--json counts missing records and unfired faults per mode', async () => {
    const r = await cli(...args, '--json');
    expect(r.code).toBe(0);
    const mode = (JSON.parse(r.stdout) as { modes: Record<string, Record<string, unknown>> }).modes['aligned'];
    expect(mode).toMatchObject({ runs: 2, missingRecords: 0 });
    expect(typeof mode?.['unfiredFaults']).toBe('number');
  });

  test('the table has columns of missing records and unfired faults', async () => {
    const r = await cli(...args);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[1]).toMatch(/^mode +runs +violations +checkpoints +restores +duplicates +missing +unfired faults +state unjudged +unattributed$/);
    expect(lines[2]).toMatch(/^aligned +2 +0 +\d+ +\d+ +0 +0 +\d+ +0 +0 *$/);
  });
});

describe('replay --json', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'checkpoint-sim-replay-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  test('replay <file> --json prints one JSON object', async () => {
    const spec = regenerateSpec({ job: 'generated', mode: 'aligned', strategy: 'swarm', mutants: [], seed: 1, path: '0', maxRecords: 10 }).spec;
    const repro: Repro = {
      format: 'checkpoint-sim-repro', formatVersion: REPRO_FORMAT_VERSION, checkpointSimVersion: 'test',
      property: 'consistent-cut', expect: 'exactly-once', summary: 'x', traceHash: simulate(spec).traceHash,
      stage: 'shrunk', spec,
    };
    const file = join(tmp, 'repro.json');
    writeFileSync(file, JSON.stringify(repro));
    const r = await cli('replay', file, '--json');
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    const json = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ repro: file, recordedProperty: 'consistent-cut', traceHash: repro.traceHash, sameAsRecorded: true });
    expect(r.code).toBe(json['stillFails'] === true ? 1 : 0);
    expect(Array.isArray(json['excerpt'])).toBe(true);
  });

  // Found by a fresh-eyes pass: a hand-edited property replayed as "a different property fails".
  test('a repro whose property names no oracle is bad input', async () => {
    const spec = regenerateSpec({ job: 'generated', mode: 'aligned', strategy: 'swarm', mutants: [], seed: 1, path: '0', maxRecords: 10 }).spec;
    const repro = {
      format: 'checkpoint-sim-repro', formatVersion: REPRO_FORMAT_VERSION, checkpointSimVersion: 'test',
      property: 'bogus', expect: 'exactly-once', summary: 'x', traceHash: 'unknown', stage: 'shrunk', spec,
    };
    const file = join(tmp, 'bogus.json');
    writeFileSync(file, JSON.stringify(repro));
    const r = await cli('replay', file);
    expect(r.code).toBe(2);
    expectOneLine(r.stderr, `repro field property must name an oracle (${ORACLE_NAMES.join(', ')}), got 'bogus'`);
  });

  // Found by a fresh-eyes pass: a wrong format said "format field missing", an unknown envelope
  // field was accepted, and a spec error named neither the file nor that it is in the spec.
  test.each([
    [{ format: 'other' }, 'not a checkpoint-sim repro file (format is "other", not "checkpoint-sim-repro")'],
    [{ note: 'mine' }, 'unknown repro field "note" (fields: format, formatVersion, checkpointSimVersion, property, expect, summary, traceHash, stage, fastCheck, fork, strategy, jobModule, spec, scenario)'],
    [{ specVersion: 1 }, 'spec: version 1 is not supported: this checkpoint-sim reads run spec version 8'],
    // The spec's version is refused before the envelope's fields, so an old file is named for what it is.
    [{ specVersion: 2, stage: 'halfway' }, 'spec: version 2 is not supported: this checkpoint-sim reads run spec version 8'],
    [{ stage: 'halfway' }, 'repro field stage must be one of unshrunk, shrunk, got "halfway"'],
    [{ fastCheck: { seed: 1 } }, 'repro field fastCheck.path must be a string, got undefined'],
    [{ summary: 5 }, 'repro field summary must be a string, got 5'],
    [{ expect: 'maybe' }, 'repro field expect must be exactly-once or at-least-once'],
    [{ spec: [] }, 'repro field spec must be an object'],
    [{ formatVersion: 2 }, 'repro format version 2 is not supported (expected 1)'],
  ])('a repro with %j is bad input that names the file', async (edit, message) => {
    const spec = regenerateSpec({ job: 'generated', mode: 'aligned', strategy: 'swarm', mutants: [], seed: 1, path: '0', maxRecords: 10 }).spec;
    const { specVersion, ...envelope } = edit as { specVersion?: number };
    const repro = {
      format: 'checkpoint-sim-repro', formatVersion: REPRO_FORMAT_VERSION, checkpointSimVersion: 'test',
      property: 'consistent-cut', expect: 'exactly-once', summary: 'x', traceHash: 'unknown', stage: 'shrunk',
      spec: specVersion === undefined ? spec : { ...spec, version: specVersion }, ...envelope,
    };
    const file = join(tmp, 'edited-envelope.json');
    writeFileSync(file, JSON.stringify(repro));
    const r = await cli('replay', file);
    expect(r.code).toBe(2);
    expectOneLine(r.stderr, `${file}: ${message}`);
  });

  test('a repro with a $schema field (for editors) replays', async () => {
    const spec = regenerateSpec({ job: 'generated', mode: 'aligned', strategy: 'swarm', mutants: [], seed: 1, path: '0', maxRecords: 10 }).spec;
    const repro = {
      $schema: '../../schemas/repro.schema.json',
      format: 'checkpoint-sim-repro', formatVersion: REPRO_FORMAT_VERSION, checkpointSimVersion: 'test',
      property: 'consistent-cut', expect: 'exactly-once', summary: 'x', traceHash: 'unknown', stage: 'shrunk',
      spec: { $schema: '../../schemas/runspec.schema.json', ...spec },
    };
    const file = join(tmp, 'with-schema.json');
    writeFileSync(file, JSON.stringify(repro));
    const r = await cli('replay', file, '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  test('replay <file> says so when a different property fails than the one recorded', async () => {
    const spec = regenerateSpec({ job: 'generated', mode: 'aligned', strategy: 'swarm', mutants: [], seed: 1, path: '0', maxRecords: 10 }).spec;
    // A 1 ms budget ends the run before the job can: liveness fails, not the recorded property.
    const edited = { ...spec, budgets: { maxEvents: 5_000_000, maxTimeMs: 1 } };
    const repro: Repro = {
      format: 'checkpoint-sim-repro', formatVersion: REPRO_FORMAT_VERSION, checkpointSimVersion: 'test',
      property: 'end-to-end-exactly-once', expect: 'exactly-once', summary: 'x', traceHash: 'unknown',
      stage: 'shrunk', spec: edited,
    };
    const file = join(tmp, 'edited.json');
    writeFileSync(file, JSON.stringify(repro));
    const r = await cli('replay', file);
    expect(r.stdout).toContain('a different property fails (recorded: end-to-end-exactly-once): liveness');
    expect(r.code).toBe(1);
  });

  describe('faults that never fired', () => {
    const faults = [
      { type: 'pause', host: 'taskmanager-1', durationMs: 5, when: { atMs: 10 } },
      { type: 'crash', host: 'taskmanager-1', when: { at: { kind: 'task', checkpoint: 900, phase: 'acked' } } },
      { type: 'global-failure', when: { at: { kind: 'sink', phase: 'committed', nth: 5000 } } },
    ] as const;
    const lines = [
      'fault 1 (crash taskmanager-1 at checkpoint 900 acked on any task) never fired',
      'fault 2 (global failure at the 5000th sink transaction committed) never fired',
    ];
    /** A repro of a small flights run with `faults` and this time budget. */
    const reproFile = (name: string, maxTimeMs: number): string => {
      const spec: RunSpec = {
        version: 8, seed: 's1', job: { kind: 'flights', selection: { from: 0, to: 40 } }, parallelism: 2,
        checkpoint: { mode: 'aligned', intervalMs: 20 }, faults, healTimeMs: 100,
        budgets: { maxEvents: 1_000_000, maxTimeMs }, overrides: [{ decision: 999_999_999, alternative: 1 }], mutations: [],
      };
      const repro: Repro = {
        format: 'checkpoint-sim-repro', formatVersion: REPRO_FORMAT_VERSION, checkpointSimVersion: 'test',
        property: 'liveness', expect: 'exactly-once', summary: 'x', traceHash: 'unknown', stage: 'shrunk', spec,
      };
      const file = join(tmp, name);
      writeFileSync(file, JSON.stringify(repro));
      return file;
    };

    test('are printed one a line when the property holds', async () => {
      const r = await cli('replay', reproFile('holds.json', 10_000));
      expect(r.code).toBe(0);
      const out = r.stdout.split('\n');
      expect(out).toContain('the property holds now');
      expect(out.filter((l) => l.startsWith('fault '))).toEqual(lines);
      // So are overrides the run never used, and a run that holds still shows what its faults did
      // (a fresh-eyes pass saw only the last heartbeats).
      expect(out).toContain('override of decision 999999999 (alternative 1) was never used: the run never reached that decision');
      const explained = out.slice(out.findIndex((l) => l.startsWith('what the run went through')) + 1);
      expect(explained.some((l) => / sim +cause +fault 0 fires: pause /.test(l))).toBe(true);
    });

    test('and when it fails', async () => {
      // A 1 ms budget ends the run before anything fires: liveness fails.
      const r = await cli('replay', reproFile('fails.json', 1));
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('the property still fails: liveness');
      expect(r.stdout.split('\n').filter((l) => l.startsWith('fault '))).toEqual(['fault 0 (pause taskmanager-1 for 5 ms at 10 ms) never fired', ...lines]);
    });

    test('are a list in --json', async () => {
      const r = await cli('replay', reproFile('holds-json.json', 10_000), '--json');
      const json = JSON.parse(r.stdout) as { unfiredFaults: unknown; unusedOverrides: unknown };
      expect(json.unusedOverrides).toEqual([{ decision: 999_999_999, alternative: 1 }]);
      expect(json.unfiredFaults).toEqual([
        { index: 1, description: 'crash taskmanager-1 at checkpoint 900 acked on any task', fault: faults[1] },
        { index: 2, description: 'global failure at the 5000th sink transaction committed', fault: faults[2] },
      ]);
    });
  });

  test('replay --seed --path --json prints one JSON object', async () => {
    const r = await cli('replay', '--seed', '1', '--path', '0', '--mode', 'aligned', '--job', 'generated', '--max-records', '10', '--json');
    expect(r.stderr).toBe('');
    const json = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ seed: 1, path: '0', job: 'generated', mode: 'aligned', sameAsRecorded: null });
    // Without --strategy, explore's default: mixed, and the strategy that drew run 0 under it.
    const drawn = regenerateSpec({ job: 'generated', mode: 'aligned', strategy: 'mixed', mutants: [], seed: 1, path: '0', maxRecords: 10 });
    expect(json['strategy']).toEqual({ explore: 'mixed', run: drawn.strategy });
    expect(json['traceHash']).toBe(simulate(drawn.spec).traceHash);
    expect(typeof json['traceHash']).toBe('string');
    expect(Array.isArray(json['unfiredFaults'])).toBe(true);
  });
});
