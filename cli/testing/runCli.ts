/**
 * runCli: runs the command line in-process with `argv` (without node and script) and returns its
 * exit code and what it printed on stdout and stderr, for tests that drive `checkpoint-sim`
 * without spawning a process.
 */
import { expect } from 'vitest';
import { run, type Io } from '../program.ts';

/** The exit code and the whole text printed on each stream. */
export interface CliOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function runCli(...argv: string[]): Promise<CliOutcome> {
  const written = { stdout: '', stderr: '' };
  const io: Io = { out: (t) => { written.stdout += t; }, err: (t) => { written.stderr += t; } };
  const code = await run(argv, io);
  return { code, ...written };
}

/** `text` (what the CLI wrote on stderr) is one line `checkpoint-sim: <reason>` containing `contains`. */
export function expectOneLine(text: string, contains: string): void {
  expect(text).toMatch(/^checkpoint-sim: [^\n]+\n$/);
  expect(text).toContain(contains);
}
