#!/usr/bin/env node
/**
 * The checkpoint-sim command line: parses arguments and prints; all logic lives in bench/,
 * properties/ and, as they come, scenarios/ and reports/. Exit codes: 0 ok, 1 a property was
 * violated, 2 bad usage or input, 3 the harness itself broke.
 */
import { run } from './program.ts';

process.exitCode = await run(process.argv.slice(2));
