/**
 * `checkpoint-sim run <spec.json> [--json] [--expect exactly-once|at-least-once] [--out DIR]`:
 * runs one RunSpec a person wrote and judges it with the oracles explore and replay use
 * (defaultJudge; the promise defaults to the mode's, as in explore). Prints what happened
 * (outcome, job status, checkpoints, restores, each fault and whether it fired, the violations
 * with the decisive events) or one JSON object with --json. A fault that never fired is always
 * shown: a run that holds without its faults tested nothing they describe.
 *
 * On a violation it writes a repro file into --out (default reports/out/, made ready before the
 * run) before it prints anything else, and prints `npx checkpoint-sim replay <file>` (as explore and scenario run do).
 * Exit codes: 0 the spec holds, 1 a property is violated, 2 bad input (an unreadable file,
 * invalid JSON or an invalid spec: one line naming the file).
 */
import { jobRunsSummary } from './jobRunsSummary.ts';
import { stopSummary } from './stopSummary.ts';
import { unusedScheduleLines } from './unusedScheduleLines.ts';
import { writeFileSync } from 'node:fs';
import { portableRepro } from '../../properties/jobModules/portableRepro.ts';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { describeAction, describeFault } from '../../properties/describeFault.ts';
import { defaultJudge } from '../../properties/explore/defaultJudge.ts';
import { expectationOf, type Expectation, type Judgement } from '../../properties/explore/explore.ts';
import { REPRO_FORMAT_VERSION, type Repro } from '../../properties/explore/Repro.ts';
import { decisiveEvents } from '../../properties/oracles/decisiveEvents.ts';
import { explainRun } from '../../properties/explain/explainRun.ts';
import { formatExplanation } from '../../properties/explain/formatExplanation.ts';
import type { ActionRecord } from '../../sim/run/ActionPlan.ts';
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';
import type { Fault, RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { validateRunSpec } from '../../sim/run/validateRunSpec.ts';
import { SimInputError } from '../../sim/SimInputError.ts';
import { prepareOutDir } from '../outDir.ts';
import { readJsonFile } from '../readJsonFile.ts';
import { UsageError, type Io } from '../program.ts';

/** The flags of run, as commander gives them. */
export interface RunFlags {
  json?: boolean;
  expect?: string;
  out: string;
}

/** Adds run's flags to `cmd`. */
export function runOptions(cmd: Command): Command {
  return cmd
    .option('--expect <promise>', 'exactly-once or at-least-once (default: what the mode promises)')
    .option('--out <dir>', 'where a violation\'s repro file is written', 'reports/out')
    .option('--json', 'print one JSON object');
}

/** What one fault did in the run. */
interface FaultOutcome {
  readonly index: number;
  readonly description: string;
  /** Whether it acted: a triggered fault fired, a world-setting one was in force. */
  readonly fired: boolean;
  /** Its entries of the fault log (crash, restart, pause, skipped, ...), ms. */
  readonly actions: readonly { readonly action: string; readonly timeMs: number }[];
  readonly fault: Fault;
  /** Why it did nothing, when it did nothing. */
  readonly unfiredReason?: string;
}

/** Reads and validates a RunSpec file. @throws UsageError naming the file. */
export function readSpecFile(path: string): RunSpec {
  const parsed = readJsonFile(path, 'spec');
  try {
    return validateRunSpec(parsed);
  } catch (e) {
    if (!(e instanceof SimInputError)) throw e;
    // A scenario file given to `run` is the likeliest mix-up: say which command reads it.
    const o = parsed !== null && typeof parsed === 'object' ? parsed as Record<string, unknown> : {};
    const hint = 'steps' in o && 'expect' in o ? ' (this is a scenario file: run it with checkpoint-sim scenario run --file)' : '';
    throw new UsageError(`${path}: ${e.message}${hint}`, { cause: e });
  }
}

function parseExpect(v: string | undefined): Expectation | undefined {
  if (v === undefined || v === 'exactly-once' || v === 'at-least-once') return v;
  throw new UsageError(`--expect must be exactly-once or at-least-once, got '${v}'`);
}

/**
 * Runs `run <spec>`; returns the exit code.
 * @param version checkpoint-sim's version, recorded in a repro file.
 * @throws UsageError for bad flags or a bad spec file (exit 2).
 */
export function runSpecFile(path: string, flags: RunFlags, io: Io, version: string): number {
  const given = parseExpect(flags.expect);
  const spec = readSpecFile(path);
  // Like explore: the directory is proven writable before the run, so a violation is never lost.
  const outDir = prepareOutDir(flags.out, `--out ${flags.out}`);
  const expect = given ?? expectationOf(spec.checkpoint.mode);
  // simulate validates the spec again and checks what needs the job graph (tasks of points).
  let result: RunResult;
  try {
    result = simulate(spec);
  } catch (e) {
    if (e instanceof SimInputError) throw new UsageError(`${path}: ${e.message}`, { cause: e });
    throw e;
  }
  const judgement = defaultJudge(result, expect);
  const { violations } = judgement;
  const first = violations[0];
  let repro: string | undefined;
  if (first !== undefined) {
    repro = writeRunRepro(outDir, path, spec, result, first, expect, given !== undefined, version);
  }
  const faults = faultOutcomes(spec, result);
  const excerpt = decisiveEvents(result.trace, first === undefined ? result.outcome.timeMs : first.timeMs, 20);
  const explanation = explainRun(result, first);
  if (flags.json === true) {
    io.out(`${JSON.stringify({
      spec: path,
      expect,
      holds: first === undefined,
      traceHash: result.traceHash,
      outcome: result.outcome,
      jobStatus: result.jobStatus,
      jobEndMs: result.jobEndMs ?? null,
      checkpoints: {
        triggered: result.checkpoints.triggered,
        completed: result.checkpoints.completed.filter((c) => c.kind === 'checkpoint').map((c) => c.checkpointId),
        savepointsCompleted: result.checkpoints.completed.filter((c) => c.kind !== 'checkpoint').map((c) => c.checkpointId),
        aborted: result.checkpoints.aborted,
      },
      restores: result.restores,
      faults: faults.map(({ index, description, fired, actions }) => ({ index, description, fired, actions })),
      unfiredFaults: faults.filter((f) => !f.fired)
        .map(({ index, description, fault, unfiredReason: reason }) => ({ index, description, reason, fault })),
      actions: actionOutcomes(spec, result),
      unfiredActions: result.unfiredActions,
      stopWithSavepoint: stopSummary(result)?.json ?? null,
      jobRuns: result.jobRuns,
      // What no oracle could judge: never passed off as judged.
      keyedState: judgement.keyedState,
      knownStuck: judgement.knownStuck === true,
      unusedOverrides: result.unusedOverrides,
      unusedChangePoints: result.schedule.pct?.unusedChangePoints ?? [],
      violations: violations.map((v) => ({ property: v.property, summary: v.summary, timeMs: v.timeMs })),
      repro: repro ?? null,
      replay: repro === undefined ? null : `npx checkpoint-sim replay ${repro}`,
      excerpt: excerpt.map((e) => ({ timeMs: e.timeUs / 1000, host: e.host, type: e.type, attrs: e.attrs })),
      explanation,
    })}\n`);
    return first === undefined ? 0 : 1;
  }
  printRun(path, spec, result, expect, faults, judgement, io);
  for (const line of formatExplanation(explanation)) io.out(`${line}\n`);
  if (repro !== undefined) io.out(`repro: ${repro}\nreplay: npx checkpoint-sim replay ${repro}\n`);
  return first === undefined ? 0 : 1;
}

/** What each fault of the spec did, in spec order. */
function faultOutcomes(spec: RunSpec, result: RunResult): FaultOutcome[] {
  const unfired = new Set(result.unfiredFaults);
  return spec.faults.map((fault, index) => ({
    index,
    description: describeFault(fault),
    fired: !unfired.has(index),
    actions: result.faults.filter((r) => r.fault === index).map((r) => ({ action: r.action, timeMs: r.timeMs })),
    fault,
    ...(unfired.has(index) ? { unfiredReason: unfiredReason(fault, result.faults.some((r) => r.fault === index && r.action === 'skipped')) } : {}),
  }));
}

/**
 * What each action of the spec did, in spec order: its description, whether it fired, and its
 * log (fired, then completed with the savepoint's id and path, or failed with the reason).
 */
function actionOutcomes(spec: RunSpec, result: RunResult): {
  readonly index: number; readonly description: string; readonly fired: boolean; readonly log: readonly ActionRecord[];
}[] {
  const unfired = new Set(result.unfiredActions);
  return (spec.actions ?? []).map((action, index) => ({
    index, description: describeAction(action), fired: !unfired.has(index),
    log: result.actions.filter((a) => a.action === index),
  }));
}

/**
 * Why a fault did nothing, in words: its trigger, the heal time, or (a message or channel-event
 * fault) no RPC or channel event it matched.
 */
function unfiredReason(fault: Fault, skipped: boolean): string {
  if (skipped) return 'its point was reached only at or after the heal time';
  if ((fault.type === 'slow-store' || fault.type === 'async-snapshot-failure') && fault.checkpoint !== undefined) {
    return `no ${fault.type === 'slow-store' ? 'store operation' : 'task state write'} of checkpoint ${fault.checkpoint} came before the heal time `
      + '(no checkpoint or savepoint got that id, or it wrote nothing)';
  }
  if (fault.type === 'message') {
    return 'when' in fault && fault.when !== undefined
      ? 'its trigger was never reached, or no RPC matched it after it (before the heal time)'
      : 'no RPC matched its method and filters before the heal time';
  }
  if (fault.type === 'channel-event') {
    return 'when' in fault && fault.when !== undefined
      ? 'its trigger was never reached, or its channel carried no matching event after it (before the heal time)'
      : 'its channel carried no matching event before the heal time';
  }
  return 'its trigger was never reached';
}

const ms = (v: number): string => `${v.toFixed(3)} ms`;

function printRun(
  path: string, spec: RunSpec, r: RunResult, expect: Expectation, faults: readonly FaultOutcome[],
  judgement: Judgement, io: Io,
): void {
  const { violations } = judgement;
  io.out(`run ${path}: ${spec.job.kind}, ${spec.checkpoint.mode}, judged ${expect}\n`);
  io.out(`outcome: ${r.outcome.reason} at ${ms(r.outcome.timeMs)} after ${r.outcome.events} events\n`);
  io.out(`job: ${r.jobStatus}${r.jobEndMs === undefined ? '' : ` at ${ms(r.jobEndMs)}`}\n`);
  const aborted = Object.entries(r.checkpoints.aborted);
  const abortedCount = aborted.reduce((n, [, c]) => n + c, 0);
  // A completed savepoint is listed as one (its id comes from the same counter).
  const completedIds = r.checkpoints.completed.map((c) => (c.kind === 'checkpoint' ? String(c.checkpointId)
    : `${c.checkpointId} ${c.kind === 'sync-savepoint' ? 'sync savepoint' : 'savepoint'}`));
  io.out(`checkpoints: ${r.checkpoints.triggered} triggered, ${r.checkpoints.completed.length} completed`
    + `${completedIds.length === 0 ? '' : ` (${completedIds.join(', ')})`}`
    + `, ${abortedCount} aborted${aborted.length === 0 ? '' : ` (${aborted.map(([why, n]) => `${why} ${n}`).join(', ')})`}\n`);
  io.out(`restores: ${r.restores}\n`);
  const unfired = faults.filter((f) => !f.fired);
  io.out(`faults: ${faults.length}, ${faults.length - unfired.length} fired, ${unfired.length} never fired\n`);
  for (const f of faults) {
    const log = f.actions.map((a) => `${a.action} at ${ms(a.timeMs)}`).join(', ');
    const what = !f.fired ? `never fired: ${f.unfiredReason ?? ''}` : (log === '' ? 'in force until the heal time' : log);
    io.out(`  fault ${f.index} (${f.description}): ${what}\n`);
  }
  const actions = actionOutcomes(spec, r);
  if (actions.length > 0) {
    io.out(`actions: ${actions.length}, ${actions.filter((a) => a.fired).length} fired, ${actions.filter((a) => !a.fired).length} never fired\n`);
    for (const a of actions) {
      const type = spec.actions?.[a.index]?.type;
      const log = a.log.map((e) => `${e.event} at ${ms(e.timeMs)}${e.event === 'completed' ? completedWhat(type, e)
        : e.event === 'failed' ? ` (${String(e.reason)})` : ''}`).join(', ');
      // A point naming a checkpoint is about job run 1 unless it says jobRun: ids go on after a restore.
      const when = spec.actions?.[a.index]?.when;
      const point = when !== undefined && 'at' in when ? when.at as { checkpoint?: number; jobRun?: number } : undefined;
      const hint = point?.checkpoint !== undefined && point.jobRun === undefined && (spec.actions ?? []).some((x) => x.type === 'rescale')
        ? ' (a point naming a checkpoint without jobRun is about job run 1)' : '';
      io.out(`  action ${a.index} (${a.description}): ${a.fired ? log : `never fired: its time or point never came${hint}`}\n`);
    }
    const runs = jobRunsSummary(r);
    if (runs !== undefined) io.out(`${runs}\n`);
    const stop = stopSummary(r);
    if (stop !== undefined) io.out(`stop-with-savepoint: ${stop.text}\n`);
  }
  for (const line of unusedScheduleLines(r)) io.out(`${line}\n`);
  io.out(`trace hash ${r.traceHash}\n`);
  if (violations.length === 0) {
    // What the run did not test, or no oracle could judge, goes with the verdict.
    const caveats = [
      ...(unfired.length === 0 ? [] : [unfiredPhrase(unfired.length, faults.length)]),
      ...(r.unfiredActions.length === 0 ? [] : [`${r.unfiredActions.length} of its ${actions.length} actions never fired`]),
      ...(judgement.knownStuck === true ? ['liveness could not judge it: its stop-with-savepoint is stuck for good (known in Flink 1.20)'] : []),
      ...(judgement.keyedState.judged ? [] : [`the final keyed state was not judged: ${judgement.keyedState.detail}`]),
    ];
    io.out(`holds: no property violated${caveats.length === 0 ? '' : ` (but ${caveats.join('; ')})`}\n`);
    return;
  }
  for (const v of violations) io.out(`VIOLATED ${v.property} at ${ms(v.timeMs)}: ${v.summary}\n`);
}

/** Writes the repro of a violated hand-written spec; returns its path. */
function writeRunRepro(
  outDir: string, specPath: string, spec: RunSpec, result: RunResult, v: Violation, expect: Expectation,
  expectGiven: boolean, version: string,
): string {
  const stem = basename(specPath).replace(/\.json$/i, '').replace(/[^A-Za-z0-9._-]/g, '_');
  const suffix = expectGiven && expect !== expectationOf(spec.checkpoint.mode) ? `-expect-${expect}` : '';
  const file = join(outDir, `repro-run-${stem}${suffix}.json`);
  // A `$schema` path is relative to where the spec was; the repro lives elsewhere.
  const { $schema: _schema, ...specOnly } = spec;
  const repro: Repro = {
    format: 'checkpoint-sim-repro',
    formatVersion: REPRO_FORMAT_VERSION,
    checkpointSimVersion: version,
    property: v.property,
    expect,
    summary: v.summary,
    traceHash: result.traceHash,
    // Written as the spec was: nothing shrank it.
    stage: 'unshrunk',
    spec: specOnly,
  };
  writeFileSync(file, `${JSON.stringify(portableRepro(repro, dirname(resolve(file))), null, 2)}\n`);
  return file;
}

/** What a completed action produced: a savepoint's id and path, a rescale's new run, nothing for a cancel. */
function completedWhat(type: string | undefined, e: { readonly checkpointId?: number; readonly path?: string; readonly jobRun?: number }): string {
  if (type === 'cancel') return '';
  if (type === 'rescale') {
    const from = e.path !== undefined && /(?:^|\/)chk-\d+\//.test(e.path) ? 'checkpoint' : 'savepoint';
    return ` (job run ${String(e.jobRun)} restored from ${from} ${String(e.checkpointId)}, ${String(e.path)})`;
  }
  return ` (savepoint ${String(e.checkpointId)}, ${String(e.path)})`;
}

/** `1 of its 2 faults never fired: ...`, or `its fault never fired: ...` for a run of one fault. */
function unfiredPhrase(unfired: number, faults: number): string {
  if (faults === 1) return 'its fault never fired: the run did not test it';
  if (unfired === faults) return `none of its ${faults} faults fired: the run did not test them`;
  return `${unfired} of its ${faults} faults never fired: the run did not test ${unfired === 1 ? 'it' : 'them'}`;
}
