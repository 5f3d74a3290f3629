/**
 * Builds the commander program and maps outcomes to exit codes. Kept apart from main.ts so
 * tests can drive it without spawning a process.
 */
import { Command, CommanderError } from 'commander';
import { benchRows, runBench } from '../bench/runBench.ts';

/** Thrown for bad usage or bad input; printed as one line, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Output sinks, injectable for tests. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
}

const processIo: Io = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

/**
 * Runs the CLI with `argv` (without node and script) and returns the exit code.
 * Never throws: usage errors give 2, harness errors 3.
 */
export async function run(argv: readonly string[], io: Io = processIo): Promise<number> {
  let code = 0;
  const program = new Command('checkpoint-sim')
    .description('Deterministic simulation and model checking of Apache Flink checkpointing')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });

  program
    .command('start')
    .description('the main job: explore the flights job under faults (not built yet: prints help)')
    .action(() => {
      io.out(program.helpInformation());
    });

  program
    .command('bench')
    .description('run the benchmarks (medians of 5 after a warm-up)')
    .option('--json', 'print one JSON object instead of a table')
    .action((opts: { json?: boolean }) => {
      const report = runBench((area) => {
        if (opts.json !== true) io.err(`bench: ${area}...\n`);
      });
      if (opts.json === true) {
        io.out(`${JSON.stringify(report)}\n`);
      } else {
        const rows = benchRows(report);
        const width = Math.max(...rows.map(([k]) => k.length));
        for (const [k, v] of rows) io.out(`${k.padEnd(width)}  ${formatNumber(v)}\n`);
      }
    });

  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      code = e.exitCode === 0 ? 0 : 2;
    } else if (e instanceof UsageError) {
      io.err(`checkpoint-sim: ${e.message}\n`);
      code = 2;
    } else {
      io.err(`checkpoint-sim: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      code = 3;
    }
  }
  return code;
}

function formatNumber(v: number): string {
  return Math.abs(v) >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(3);
}
