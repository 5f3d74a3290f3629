import { CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { InvalidConfigurationError, InvalidJobError } from '../engine/index.ts';
import { SimInputError } from '../sim/SimInputError.ts';
import { UsageError, reportError, run, type Io } from './program.ts';

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
function expectOneLine(text: string, contains: string): void {
  expect(text).toMatch(/^checkpoint-sim: [^\n]+\n$/);
  expect(text).toContain(contains);
}

const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
}).version;

describe('checkpoint-sim command line', () => {
  test('no arguments prints the help on stdout and exits 0', async () => {
    const r = await cli();
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: checkpoint-sim [options] [command]');
    expect(r.stdout).toContain('bench');
    expect(r.stderr).toBe('');
    expect((await cli('--')).code).toBe(0);
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
    [['explore', '--job', 'nope', '--runs', '1', '--seed', '1'], "unknown job 'nope' (jobs: flights, wordcount, generated)"],
    [['explore', '--mode', 'fast', '--runs', '1', '--seed', '1'], "unknown mode 'fast'"],
    [['explore', '--mode', 'unaligned', '--runs', '1', '--seed', '1'], 'mode unaligned is not available yet'],
    [['explore', '--runs', '0', '--seed', '1'], "--runs must be a positive integer, got '0'"],
    [['explore', '--runs', '2', '--time-budget', '1s', '--seed', '1'], 'give --runs or --time-budget, not both'],
    [['explore', '--seed', 'x', '--runs', '1'], "--seed must be an integer, got 'x'"],
    [['explore', '--time-budget', 'soon', '--seed', '1'], '--time-budget must look like 60s'],
    [['replay', '/nonexistent/repro.json'], 'cannot read repro file /nonexistent/repro.json'],
    [['replay'], 'replay needs a repro file, or --seed and --path'],
    [['replay', '--seed', '1', '--path', 'x:y', '--mode', 'aligned'], "--path must look like 3:0:1, got 'x:y'"],
    [['bench', 'extra'], "too many arguments for 'bench'"],
    [['help', 'foo'], "help: unknown command 'foo' (commands: explore, replay, start, bench, help)"],
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
