/**
 * Builds the commander program and maps outcomes to exit codes. Kept apart from main.ts so
 * tests can drive it without spawning a process.
 *
 * Exit codes: 0 ok (including help and version), 2 bad usage or bad input (one line on stderr,
 * `checkpoint-sim: <reason>`), 3 the harness itself broke.
 */
import { loadFileJobModule, loadJobFlag } from './jobModuleFiles.ts';
import { existsSync, readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { benchRows, runBench } from '../bench/runBench.ts';
import { NOT_PLANTED_BUGS, PLANTED_BUG_CATALOGUE } from '../properties/plantedBugCatalogue.ts';
import { addCommandHelp } from './commandHelp.ts';
import { InvalidConfigurationError, InvalidJobError } from '../engine/index.ts';
import { SimInputError } from '../sim/SimInputError.ts';
import { UsageError } from './UsageError.ts';
import {
  BUILT_MODES, exploreOptions, formatDuration, MIN_TIME_BUDGET_MS, parseExploreFlags, runExplore, SEED_HELP,
  type ExploreFlags,
} from './commands/exploreCommand.ts';
import { compareOptions, parseCompareFlags, runCompare, type CompareFlags } from './commands/compareCommand.ts';
import { replayOptions, runReplay, type ReplayFlags } from './commands/replayCommand.ts';
import { runOptions, runSpecFile, type RunFlags } from './commands/runCommand.ts';
import { scenarioCommands } from './commands/scenarioCommand.ts';
import { runStart, START_OUT, type StartFlags } from './commands/startCommand.ts';
import { mutantsRunCommand } from './commands/mutantsCommand.ts';

export { UsageError };

/** The reason `checkpoint-sim` without a command gives, above the help. */
export const NO_COMMAND = 'a command is needed (see the commands below)';

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
 * Never throws: usage and input errors give 2 with one line on `io.err`, harness errors 3.
 * Without arguments it prints one line saying a command is needed, then the help, on `io.err`
 * and returns 2: no command is a usage error (a script that forgot its command must not pass),
 * its first line says so as every other usage error does, and the help says what to type.
 */
export async function run(argv: readonly string[], io: Io = processIo): Promise<number> {
  const { program, exitCode } = buildProgram(io);
  // No command at all: a usage error, its reason first, then the help.
  if (argv.every((a) => a === '--')) {
    io.err(`checkpoint-sim: ${NO_COMMAND}\n${program.helpInformation()}`);
    return 2;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode();
  } catch (e) {
    return reportError(e, io);
  }
}

/**
 * Prints what a command threw and returns its exit code: 0 for commander's help and version
 * exits, 2 for bad usage or input (SimInputError, InvalidJobError, InvalidConfigurationError,
 * UsageError, commander's own errors, which it has printed already) with one line
 * `checkpoint-sim: <reason>`, 3 for anything else (a harness failure, printed with its stack).
 */
export function reportError(e: unknown, io: Io): number {
  if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
  if (isBadInput(e)) {
    io.err(oneLine(e.message));
    return 2;
  }
  const detail = e instanceof Error ? (e.stack ?? e.message) : String(e);
  io.err(`checkpoint-sim: internal error: ${detail}\n`);
  return 3;
}

/** Errors that mean the user's input was bad, not that the harness broke. */
function isBadInput(e: unknown): e is Error {
  return e instanceof UsageError || e instanceof SimInputError || e instanceof InvalidJobError
    || e instanceof InvalidConfigurationError;
}

/** `checkpoint-sim: <message>` on exactly one line (commander's `error: ` prefix dropped). */
function oneLine(message: string): string {
  const text = message.replace(/^error:\s*/, '').trim().replace(/\s*\n\s*/g, ' ');
  return `checkpoint-sim: ${text}\n`;
}

/** The program and the exit code its command's action chose (0 unless it set one). */
interface Program {
  readonly program: Command;
  exitCode(): number;
}

function buildProgram(io: Io): Program {
  const program = new Command('checkpoint-sim')
    .description('Deterministic simulation and model checking of Apache Flink checkpointing')
    .version(packageVersion(), '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({
      writeOut: io.out,
      writeErr: io.err,
      // Commander's own errors (unknown command or option, missing argument) as one line.
      outputError: (text, write) => write(oneLine(text)),
    })
    .helpCommand(false);

  let exitCode = 0;
  exploreOptions(program.command('explore').description('search runs for violations with fast-check'))
    .action(async (flags: ExploreFlags) => {
      await loadJobFlag(flags.job);
      exitCode = runExplore(parseExploreFlags(flags), io, packageVersion(), process.stderr.isTTY === true).code;
    });

  compareOptions(program.command('compare')
    .description('run the same generated runs in each checkpointing mode and compare their cost and promise; '
      + 'writes compare.json, compare.md and index.html'))
    .action(async (flags: CompareFlags) => {
      await loadJobFlag(flags.job);
      exitCode = runCompare(parseCompareFlags(flags), io, packageVersion(), process.stderr.isTTY === true).code;
    });

  replayOptions(program.command('replay [repro]')
    .description('run a repro file again (with --json, --events, --trace, --mermaid), or regenerate the run at --seed S --path P'))
    .action(async (repro: string | undefined, flags: ReplayFlags) => {
      if (repro === undefined) await loadJobFlag(flags.job);
      else await loadFileJobModule(repro, 'repro');
      exitCode = runReplay(repro, flags, io);
    });

  runOptions(program.command('run <spec>')
    .description('run a RunSpec file (docs/runspec.md) and judge it with the oracles; a violation writes a repro'))
    .action(async (spec: string, flags: RunFlags) => {
      await loadFileJobModule(spec, 'spec');
      exitCode = runSpecFile(spec, flags, io, packageVersion());
    });
  scenarioCommands(program, io, (code) => {
    exitCode = code;
  });

  program
    .command('start')
    .description(`the main job: explore the flights job in the checkpointing modes (${BUILT_MODES.join(' and ')}) `
      + 'under faults for about a minute; writes reports/out')
    .option('--time-budget <duration>', `wall-clock budget, at least ${formatDuration(MIN_TIME_BUDGET_MS)}`, '60s')
    .option('--seed <n>', SEED_HELP, '1')
    .option('--out <dir>', `where summary.json and the repros go (default ${START_OUT}); what the previous start wrote there is removed first`)
    .option('--json', 'print the summary as one JSON object instead of the table')
    .option('--mutant <ids>', 'planted bugs to switch on, comma-separated (see mutants list): shows the page with counterexamples')
    .action((flags: StartFlags) => {
      exitCode = runStart(flags, io, packageVersion());
    });

  const mutants = program
    .command('mutants')
    .description('the planted bugs (Flink bugs re-created as switches; --mutant and a RunSpec\'s mutations take their ids)');
  mutants
    .command('list')
    .description('list every planted bug: its id, the Flink issue behind it, the engine file of its switch, what it does and what catches it')
    .option('--json', 'print one JSON object: { planted: [...], notPlanted: [...] }')
    .action((opts: { json?: boolean }) => {
      printPlantedBugs(io, opts.json === true);
    });
  mutantsRunCommand(mutants, io, packageVersion(), (code) => {
    exitCode = code;
  });

  program
    .command('bench')
    .description('run the benchmarks (each area in its own process; medians after a warm-up)')
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

  // Our own help command: commander's prints the whole help on stderr for an unknown name.
  program
    .command('help [command]')
    .description('display help for command')
    .action((name: string | undefined) => {
      if (name === undefined) {
        io.out(program.helpInformation());
        return;
      }
      const sub = program.commands.find((c) => c.name() === name);
      if (sub === undefined) {
        const known = program.commands.map((c) => c.name()).join(', ');
        throw new UsageError(`help: unknown command '${name}' (commands: ${known})`);
      }
      io.out(sub.helpInformation());
    });
  addCommandHelp(program);
  return { program, exitCode: () => exitCode };
}

/**
 * The version in the package.json of checkpoint-sim, found by walking up from this file, so it
 * works from the sources (cli/) and from the build (dist/cli/).
 */
function packageVersion(): string {
  let dir = new URL('.', import.meta.url);
  for (let depth = 0; depth < 6; depth++) {
    const file = new URL('package.json', dir);
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'checkpoint-sim' && typeof pkg.version === 'string') return pkg.version;
    }
    dir = new URL('..', dir);
  }
  return 'unknown';
}

/**
 * `mutants list`: the planted bug catalogue, as text (one block per bug, then the bugs not
 * planted and why) or one JSON object `{ planted: [...], notPlanted: [...] }`.
 */
function printPlantedBugs(io: Io, json: boolean): void {
  if (json) {
    io.out(`${JSON.stringify({ planted: PLANTED_BUG_CATALOGUE, notPlanted: NOT_PLANTED_BUGS })}\n`);
    return;
  }
  for (const b of PLANTED_BUG_CATALOGUE) {
    const search = b.search === undefined ? '' : `\n  searched in: ${b.search.job}, ${b.search.mode}`;
    io.out(`${b.id}${b.flinkIssue === null ? '' : ` (${b.flinkIssue})`}  ${b.source}\n  ${b.what}\n  caught by: ${b.caughtBy}${search}\n`);
  }
  io.out(`${PLANTED_BUG_CATALOGUE.length} planted bugs; docs/planted-bugs.md tells each in full. Use: explore --mutant <id>[,<id>...]\n`);
  io.out('\nnot planted (the engine lacks what they need):\n');
  for (const b of NOT_PLANTED_BUGS) io.out(`${b.flinkIssues.join(', ')}\n  ${b.what}\n  why not: ${b.whyNot}\n`);
}

function formatNumber(v: number): string {
  return Math.abs(v) >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(3);
}
