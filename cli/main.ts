#!/usr/bin/env -S node --max-semi-space-size=64 --min-semi-space-size=64
/**
 * The checkpoint-sim command line: parses arguments and prints; all logic lives in bench/,
 * properties/ and, as they come, scenarios/ and reports/. Exit codes: 0 ok, 1 a property was
 * violated, 2 bad usage or input, 3 the harness itself broke.
 *
 * Node runs it with NODE_FLAGS (bench/nodeFlags.ts, which says why): the shebang above and
 * package.json's `start` and `bench` scripts pass them, and a test keeps them equal.
 */
import { run } from './program.ts';

// A reader that stops early (`| head`) is not an error of ours.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

process.exitCode = await run(process.argv.slice(2));
