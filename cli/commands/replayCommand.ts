/**
 * `checkpoint-sim replay <repro.json>` and `checkpoint-sim replay --seed S --path P` (with the
 * flags explore generated the run with): run the same run again and print the trace hash,
 * whether it is the one recorded, whether the property still fails, each fault that never fired
 * and each override never used (whatever the verdict), the checkpoint statistics table, and the
 * decisive events before the violation or the run's end (or all of it as one JSON object with
 * --json, `checkpointStats` as in RunResult: ms and bytes). With --trace <file> it also writes
 * the run as a Chrome trace for Perfetto (replayTrace.ts).
 * Exit codes: 1 the property still fails, 0 it holds now, 2 bad input.
 */
import { exploreJobName } from '../../properties/arbitraries/runSpecArbitrary.ts';
import { jobRunsSummary } from './jobRunsSummary.ts';
import { stopSummary } from './stopSummary.ts';
import { unusedScheduleLines } from './unusedScheduleLines.ts';
import { basename } from 'node:path';
import { Option, type Command } from 'commander';
import { defaultJudge } from '../../properties/explore/defaultJudge.ts';
import { applyFork, expectationOf } from '../../properties/explore/explore.ts';
import {
  replayRepro, replaySpec, regenerateSpec, ReplayPathError, type ReplayOutcome,
} from '../../properties/explore/replay.ts';
import { parseRepro, ReproFormatError } from '../../properties/explore/Repro.ts';
import { checkpointStatsTable } from '../../reports/checkpointStatsTable.ts';
import { scenarioJudge } from '../../scenarios/judgeScenario.ts';
import { reproScenarioFacts } from '../../scenarios/reproScenarioFacts.ts';
import { validateRunSpec } from '../../sim/run/validateRunSpec.ts';
import { SimInputError } from '../../sim/SimInputError.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { UsageError, type Io } from '../program.ts';
import { readJsonFile } from '../readJsonFile.ts';
import { ReplayTrace, TRACE_HELP, traceMeta } from './replayTrace.ts';
import { MERMAID_HELP, replayMermaid } from './replayMermaid.ts';
import { formatDetails } from '../../properties/explore/formatDetails.ts';
import { EXPLORE_STRATEGIES } from '../../properties/arbitraries/ExploreStrategy.ts';
import { formatEvents } from '../../properties/explain/formatEvents.ts';
import { formatExplanation } from '../../properties/explain/formatExplanation.ts';
import {
  BUILT_MODES, parseExploreFlags, SEED_HELP, type ExploreFlags,
} from './exploreCommand.ts';

const deps = { simulate: (spec: Parameters<typeof simulate>[0]) => simulate(spec), judge: defaultJudge };

/** The flags of replay, as commander gives them (no defaults, so given flags are defined). */
export interface ReplayFlags extends ExploreFlags {
  path?: string;
  fork?: string;
  forkRescale?: boolean;
  events?: boolean;
  trace?: string;
  mermaid?: string;
}

/** Flags that choose the run: a repro file fixes all of them. */
const RUN_FLAGS = [
  ['seed', '--seed'], ['path', '--path'], ['job', '--job'], ['mode', '--mode'], ['expect', '--expect'],
  ['mutant', '--mutant'], ['maxRecords', '--max-records'], ['maxParallelism', '--max-parallelism'],
  ['fork', '--fork'], ['forkRescale', '--fork-rescale'], ['strategy', '--strategy'],
] as const;

/** Explore flags that mean nothing for one run; accepted by the parser only to refuse them clearly. */
const SEARCH_FLAGS = [['runs', '--runs'], ['timeBudget', '--time-budget'], ['out', '--out']] as const;

/**
 * Adds replay's flags to `cmd`. None has a default, so the action can tell which were given;
 * --runs, --time-budget and --out are hidden and refused (explore users type them by habit, and
 * "replay takes no --runs" says more than commander's "unknown option").
 */
export function replayOptions(cmd: Command): Command {
  cmd
    .option('--seed <n>', `the run's ${SEED_HELP} (with --path)`)
    .option('--path <path>', 'fast-check path of the run to regenerate (with --seed)')
    .option('--job <job>', 'the job explore ran (with --seed --path; default flights)')
    .option('--mode <mode>', `the one mode explore ran (with --seed --path): ${BUILT_MODES.join(', ')} or none`)
    .option('--expect <promise>', 'exactly-once or at-least-once (with --seed --path; default: what the mode promises)')
    .option('--mutant <ids>', 'planted bugs explore switched on, comma-separated (with --seed --path)')
    .option('--max-records <n>', '--max-records explore ran with (with --seed --path)')
    .option('--max-parallelism <n>', '--max-parallelism explore ran with (with --seed --path)')
    .option('--strategy <s>', `explore's --strategy (with --seed --path; default mixed): ${EXPLORE_STRATEGIES.join(', ')}`)
    .option('--fork <checkpoint>', 'replay the restore fan-out fork at this checkpoint, as explore printed it (with --seed --path)')
    .option('--fork-rescale', 'the fork across a rescale (with --fork): cancelled when the checkpoint completes, restored at another parallelism')
    .option('--events', 'also print every event of the run (seq, time, host, type, attributes, cause)')
    .option('--json', 'print one JSON object')
    .option('--trace <file>', TRACE_HELP)
    .option('--mermaid <file.md>', MERMAID_HELP);
  for (const [, flag] of SEARCH_FLAGS) cmd.addOption(new Option(`${flag} <value>`).hideHelp());
  return cmd;
}

/** Refuses flags that replay's form given would ignore. @throws UsageError. */
function refuseIgnored(flags: ReplayFlags, form: 'file' | 'seed-path'): void {
  for (const [key, flag] of SEARCH_FLAGS) {
    if (flags[key] !== undefined) throw new UsageError(`replay takes no ${flag}; it replays one run and writes nothing`);
  }
  if (form === 'file') {
    for (const [key, flag] of RUN_FLAGS) {
      if (flags[key] !== undefined) throw new UsageError(`replay <file> takes no ${flag}; the repro file fixes it`);
    }
  }
}

/** Runs `replay [repro]` with its flags; returns the exit code. @throws UsageError. */
export function runReplay(repro: string | undefined, flags: ReplayFlags, io: Io): number {
  if (repro === undefined) {
    refuseIgnored(flags, 'seed-path');
    return replaySeedPath(flags, io);
  }
  refuseIgnored(flags, 'file');
  return replayFile(repro, io, flags.json === true, {
    events: flags.events === true, ...(flags.trace === undefined ? {} : { trace: flags.trace }),
    ...(flags.mermaid === undefined ? {} : { mermaid: flags.mermaid }),
  });
}

/** What replay prints (and writes) besides the outcome. */
interface PrintOptions {
  /** Every event of the run (--events). */
  readonly events?: boolean;
  /** The file to write the run to as a Chrome trace (--trace, replayTrace.ts). */
  readonly trace?: string;
  /** The Markdown file to write the explanation to as a sequence diagram (--mermaid). */
  readonly mermaid?: string;
}

/**
 * Replays a repro file.
 * @throws UsageError for an unreadable or malformed file, or a --trace file it cannot write.
 */
export function replayFile(path: string, io: Io, json = false, print: PrintOptions = {}): number {
  const parsed = readJsonFile(path, 'repro');
  let repro;
  let judge = deps.judge;
  try {
    repro = parseRepro(parsed);
    validateRunSpec(repro.spec);
    // A scenario's repro is judged as the scenario was: oracles, every step fired, expectations.
    if (repro.scenario !== undefined) judge = scenarioJudge(reproScenarioFacts(repro.scenario), defaultJudge);
  } catch (e) {
    if (e instanceof ReproFormatError) throw new UsageError(`${path}: ${e.message}`);
    // The spec is checked here, so that its error names the file and the field it is in.
    if (e instanceof SimInputError) {
      const where = e.message.startsWith('scenario.') ? '' : 'spec: ';
      throw new UsageError(`${path}: ${where}${e.message}`, { cause: e });
    }
    throw e;
  }
  const tracing = ReplayTrace.of(print.trace);
  const diagram = replayMermaid(print.mermaid);
  const outcome = replayRepro(repro, { simulate: tracing?.simulate ?? deps.simulate, judge });
  const title = `replay ${basename(path)}`;
  if (json) {
    io.out(`${JSON.stringify({
      repro: path, recordedProperty: repro.property, recordedTraceHash: repro.traceHash, strategy: repro.strategy ?? null,
      fork: repro.fork?.checkpointId ?? null,
      forkRescale: repro.fork?.rescale === true,
      ...outcomeJson(outcome, print),
    })}\n`);
    tracing?.write(io, traceMeta(outcome.result), true);
    diagram?.(io, outcome, title, true);
    return outcome.stillFails ? 1 : 0;
  }
  io.out(`replay ${path}: recorded property ${repro.property}${repro.fork === undefined ? ''
    : ` (a restore fan-out fork${repro.fork.rescale === true ? ' across a rescale' : ''} at checkpoint ${repro.fork.checkpointId})`}`
    + `${repro.strategy === undefined ? '' : `; drawn by the ${repro.strategy.run} strategy (explore --strategy ${repro.strategy.explore})`}\n`);
  const code = printOutcome(outcome, io, print, repro.property);
  tracing?.write(io, traceMeta(outcome.result), false);
  diagram?.(io, outcome, title, false);
  return code;
}

/** Regenerates and replays the run at fast-check seed and path. @throws UsageError. */
export function replaySeedPath(flags: ReplayFlags, io: Io): number {
  if (flags.seed === undefined || flags.path === undefined) throw new UsageError('replay needs a repro file, or --seed and --path');
  if (!/^\d+(:\d+)*$/.test(flags.path)) throw new UsageError(`--path must look like 3:0:1, got '${flags.path}'`);
  const s = parseExploreFlags(flags);
  const mode = s.modes[0];
  if (mode === undefined || s.modes.length !== 1) throw new UsageError('replay --seed --path needs exactly one --mode');
  let spec;
  let drawnBy;
  try {
    ({ spec, strategy: drawnBy } = regenerateSpec({
      job: s.job, mode, strategy: s.strategy, mutants: s.mutants, seed: s.seed, path: flags.path,
      ...(s.maxRecords === undefined ? {} : { maxRecords: s.maxRecords }),
      ...(s.maxParallelism === undefined ? {} : { maxParallelism: s.maxParallelism }),
    }));
  } catch (e) {
    if (e instanceof ReplayPathError) throw new UsageError(`${e.message} (${exploreJobName(s.job)}, ${mode})`, { cause: e });
    throw e;
  }
  const fork = parseFork(flags.fork);
  if (flags.forkRescale === true && fork === undefined) throw new UsageError('--fork-rescale needs --fork <checkpoint>');
  const rescaleFork = flags.forkRescale === true;
  if (fork !== undefined) spec = applyFork(spec, { checkpointId: fork, rescale: rescaleFork });
  const expect = s.expect ?? expectationOf(mode);
  const tracing = ReplayTrace.of(flags.trace);
  const diagram = replayMermaid(flags.mermaid);
  const outcome = replaySpec(spec, expect, tracing === undefined ? deps : { ...deps, simulate: tracing.simulate });
  const meta = traceMeta(outcome.result, { seed: s.seed, path: flags.path, ...(fork === undefined ? {} : { fork }) });
  const title = `replay seed ${s.seed} path ${flags.path}${fork === undefined ? '' : ` fork ${fork}${rescaleFork ? ' (across a rescale)' : ''}`} `
    + `(${exploreJobName(s.job)}, ${mode}, strategy ${s.strategy}${drawnBy === s.strategy ? '' : `: drawn by ${drawnBy}`})`;
  if (s.json) {
    io.out(`${JSON.stringify({
      seed: s.seed, path: flags.path, fork: fork ?? null, forkRescale: rescaleFork, job: exploreJobName(s.job), mode, expect,
      strategy: { explore: s.strategy, run: drawnBy }, ...outcomeJson(outcome, { events: flags.events === true }),
    })}\n`);
    tracing?.write(io, meta, true);
    diagram?.(io, outcome, title, true);
    return outcome.stillFails ? 1 : 0;
  }
  io.out(`${title}\n`);
  if (fork !== undefined && rescaleFork && outcome.result.unfiredActions.includes((spec.actions ?? []).length - 1)) {
    io.out(`the fork's rescale never fired: checkpoint ${fork} did not complete in this run\n`);
  } else if (fork !== undefined && !rescaleFork && outcome.unfiredFaults.some((u) => u.index === spec.faults.length - 1)) {
    io.out(`the fork's global failure never fired: checkpoint ${fork} did not complete before the heal time in this run\n`);
  }
  // A regenerated run has no recorded property: say what judged it, so "holds" is not a riddle.
  const code = printOutcome(outcome, io, { events: flags.events === true }, undefined,
    `every oracle judged it against ${expect}${s.expect === undefined ? `, what ${mode} promises (--expect changes it)` : ''}`);
  tracing?.write(io, meta, false);
  diagram?.(io, outcome, title, false);
  return code;
}

/** `--fork`'s checkpoint id. @throws UsageError unless it is an integer >= 1. */
function parseFork(fork: string | undefined): number | undefined {
  if (fork === undefined) return undefined;
  if (!/^\d+$/.test(fork) || Number(fork) < 1) throw new UsageError(`--fork must be a checkpoint id (an integer >= 1), got '${fork}'`);
  return Number(fork);
}

/** The JSON fields of an outcome (`sameAsRecorded` is null when nothing was recorded). */
function outcomeJson(o: ReplayOutcome, print: PrintOptions): Record<string, unknown> {
  return {
    mutations: o.spec.mutations,
    traceHash: o.traceHash,
    sameAsRecorded: o.sameTraceHash ?? null,
    stillFails: o.stillFails,
    violation: o.violation === undefined ? null
      : { property: o.violation.property, summary: o.violation.summary, details: o.violation.details ?? null },
    unfiredFaults: o.unfiredFaults.map((u) => ({ index: u.index, description: u.description, fault: u.fault })),
    unusedOverrides: o.unusedOverrides,
    unusedChangePoints: o.result.schedule.pct?.unusedChangePoints ?? [],
    excerpt: o.excerpt.map((e) => ({ timeMs: e.timeUs / 1000, host: e.host, type: e.type, attrs: e.attrs })),
    explanation: o.explanation,
    checkpointStats: o.result.checkpointStats,
    actions: o.result.actions,
    unfiredActions: o.result.unfiredActions,
    stopWithSavepoint: stopSummary(o.result)?.json ?? null,
    jobRuns: o.result.jobRuns,
    keyedState: o.judgement.keyedState,
    knownStuck: o.judgement.knownStuck === true,
    // Every event, with --events (times in ms as elsewhere in the JSON).
    ...(print.events === true ? {
      events: o.result.trace.map((e) => ({ seq: e.seq, timeMs: e.timeUs / 1000, host: e.host, type: e.type, attrs: e.attrs, cause: e.cause ?? null })),
    } : {}),
  };
}

/**
 * Prints an outcome; `recorded` is the property a repro file recorded, if any; `judgedBy` says
 * what judged a regenerated run (which has none recorded).
 */
function printOutcome(o: ReplayOutcome, io: Io, print: PrintOptions, recorded?: string, judgedBy?: string): number {
  const same = o.sameTraceHash === undefined ? '' : o.sameTraceHash ? ' (same as recorded)' : ' (DIFFERENT from the recorded hash)';
  io.out(`trace hash ${o.traceHash}${same}\n`);
  if (o.violation === undefined) {
    // What no oracle could judge goes with the verdict, never passed off as judged.
    const j = o.judgement;
    const caveats = [
      ...(j.knownStuck === true ? ['liveness could not judge it: its stop-with-savepoint is stuck for good (known in Flink 1.20)'] : []),
      ...(j.keyedState.judged ? [] : [`the final keyed state was not judged: ${j.keyedState.detail}`]),
    ];
    const but = caveats.length === 0 ? '' : ` (but ${caveats.join('; ')})`;
    io.out(judgedBy === undefined ? `the property holds now${but}\n` : `no property violated: ${judgedBy}${but}\n`);
  } else {
    // A changed run (an edited budget, a changed engine) can fail another property: say so.
    const what = recorded === undefined || recorded === o.violation.property
      ? 'the property still fails' : `a different property fails (recorded: ${recorded})`;
    io.out(`${what}: ${o.violation.property}: ${o.violation.summary}\n`);
    const details = formatDetails(o.violation.details, { indent: '    ' });
    if (details.length > 0) io.out(`  details:\n${details.join('\n')}\n`);
  }
  const runs = jobRunsSummary(o.result);
  if (runs !== undefined) io.out(`${runs}\n`);
  const stop = stopSummary(o.result);
  if (stop !== undefined) io.out(`stop-with-savepoint: ${stop.text}\n`);
  for (const u of o.unfiredFaults) io.out(`fault ${u.index} (${u.description}) never fired\n`);
  for (const line of unusedScheduleLines(o.result)) io.out(`${line}\n`);
  // The table comes before the explanation, which stays last (it ends at the violation).
  // A history of several job runs has a table per run (each run is its own Flink job).
  const tables = o.result.jobRuns.length > 1
    ? o.result.jobRuns.flatMap((run) => (run.checkpointStats === undefined ? [] : [`job run ${run.index}:`, ...checkpointStatsTable(run.checkpointStats)]))
    : checkpointStatsTable(o.result.checkpointStats);
  for (const line of tables) io.out(`${line}\n`);
  if (print.events === true) {
    io.out(`every event (${o.result.trace.length}):\n`);
    for (const line of formatEvents(o.result.trace)) io.out(`${line}\n`);
  }
  for (const line of formatExplanation(o.explanation)) io.out(`${line}\n`);
  return o.stillFails ? 1 : 0;
}
