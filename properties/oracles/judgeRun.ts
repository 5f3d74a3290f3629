/**
 * Judges one run with the oracles of ORACLES.md that apply to its checkpointing mode, reading only
 * its RunResult:
 *
 * | mode                         | oracles                                                    |
 * |------------------------------|------------------------------------------------------------|
 * | aligned                      | 1 consistent cut, 3 end-to-end, 5 protocol, 5/7 failure handling, prompt abort, 6 storage, 7 liveness |
 * | at-least-once                | 4 at-least-once, 5, 5/7, prompt abort, 6, 7               |
 * | unaligned, aligned-timeout   | 3, 5, 5/7, prompt abort, 6, 7 (1 needs channel state: not judged yet) |
 * | none                         | 4 (a failover restarts from scratch), 5, 6, 7             |
 * | any, ended by an engine assertion | engine-assertion; in aligned mode also 1              |
 *
 * "5/7 failure handling" (failureHandling.ts) judges when checkpoint failures fail the job over;
 * "prompt abort" (promptAbort.ts) that a failure the coordinator learns of aborts its checkpoint
 * at once, with Flink's reason.
 * `operator-state` (operatorState.ts) judges, in every mode, the restores of a job's operators
 * with traced operator state (the generated jobs' splitLog and splitOwners stages); it runs only
 * for jobs that have one, and the verdict's `operatorState` says whether it judged anything.
 *
 * A run an engine assertion ended (engineAssertion.ts) was cut short at an arbitrary event: it is
 * no stuck job, its output is incomplete and its cleanup never ran. So it is judged by
 * `engine-assertion`, and by the one oracle whose verdict a cut cannot change: 1 judges each
 * checkpoint that completed before the assertion on its own. The others judge the run's end and
 * would fire spuriously: 3 and 4 need the finished job's output (a job that had finished when
 * the assertion came during the drain phase still lost its cleanup), 5 expects a discard after
 * every late-ack mark, 5/7 a failover before the run's end, prompt abort an abort a handler never
 * got to make, 6 a drained store, 7 a job that ends.
 *
 * The output oracles (3, 4) judge only a FINISHED job: an unfinished one is liveness's to judge.
 * `expect` overrides the output promise (`explore --expect exactly-once` in at-least-once mode
 * judges oracle 3 there). Oracle 2 (restore fan-out), 8 (determinism) and 9 (marks, per suite)
 * need more than one run and live elsewhere.
 *
 * The verdict also says whether the final keyed state was judged (`keyedState`): oracle 3
 * always judges it; oracle 4 says when it could not (stateJudgement.ts); a job that did not
 * finish, a skipped output oracle, or an engine assertion, leaves it unjudged.
 *
 * A job's judging (RunResult.judging, or JudgeOptions.judging; jobJudging.ts) says per sink how
 * its output is compared and per keyed operator whether its state is: the output oracles then
 * judge each sink on its own, and what the judging leaves out is said in the verdict
 * (`outputUnjudged`, `stateUnjudgedOperators`, and `keyedState` `judging-off` when every keyed
 * operator is off), never passed silently. Without one, the built-in detection by uid.
 *
 * Each violation comes back as a {@link Counterexample}: the oracle's property, summary and
 * details (checkpoint or record, expected and actual), its virtual time and the decisive events
 * before it; the verdict carries the expanded configuration.
 */
import type { JobJudging } from '../../sim/jobs/JobDefinition.ts';
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';
import type { RunSpec } from '../../sim/run/RunSpec.ts';
import type { TraceEvent } from '../../sim/Trace.ts';
import { sharedReferenceFold } from '../sharedReferenceFold.ts';
import type { CommittedRecord } from './compareOutputs.ts';
import { judgeAtLeastOnce } from './atLeastOnce.ts';
import { consistentCut } from './consistentCut.ts';
import { decisiveEvents } from './decisiveEvents.ts';
import { jobRunOf, type DecodedCheckpoint } from '../../engine/index.ts';
import { compareOutputs } from './compareOutputs.ts';
import { detectSequenced, endToEndExactlyOnce } from './endToEndExactlyOnce.ts';
import { judgedAtSavepointOnly, judgedAtStop, outputAtStop, stopOutcome } from './stopWithSavepoint.ts';
import { engineAssertion } from './engineAssertion.ts';
import { endedByCancel, outputAtCancel } from './outputAtCancel.ts';
import { restoreRefused } from './restoreRefused.ts';
import { failureHandling } from './failureHandling.ts';
import { promptAbort } from './promptAbort.ts';
import { attribution, attributionViolations, UNATTRIBUTED_IS_VIOLATION, type AttributionJudgement } from './attribution.ts';
import { isKnownStuck, liveness } from './liveness.ts';
import { operatorState, operatorStateOperators, unjudged as operatorStateUnjudged } from './operatorState.ts';
import type { OperatorStateJudgement } from './operatorState.ts';
import { protocolInvariants } from './protocolInvariants.ts';
import { storageInvariants } from './storageInvariants.ts';
import { STATE_JUDGED, stateUnjudged } from './stateJudgement.ts';
import { allStateOff, compareSinkOutputs, resolveJudging, sinkOutputs, unjudgedSuffix } from './jobJudging.ts';
import type { OutputUnjudged, ResolvedJudging } from './jobJudging.ts';
import type { StateJudgement } from './stateJudgement.ts';

/** The oracles judgeRun can run; a violation's `property` is the name of the oracle that found it. */
export const ORACLE_NAMES = [
  'consistent-cut', 'end-to-end-exactly-once', 'at-least-once', 'protocol-invariants',
  'failure-handling', 'prompt-abort', 'storage-invariants', 'liveness', 'engine-assertion', 'operator-state',
  'attribution',
] as const;
export type OracleName = (typeof ORACLE_NAMES)[number];

/** Options of {@link judgeRun}. */
export interface JudgeOptions {
  /** The output promise to judge; default from the mode (at-least-once mode: at-least-once). */
  readonly expect?: 'exactly-once' | 'at-least-once';
  /** Oracles to leave out. */
  readonly skip?: readonly OracleName[];
  /** Longest list in a violation's details; default 20. */
  readonly maxListed?: number;
  /** Decisive events per counterexample; default 10. */
  readonly decisiveEvents?: number;
  /** How to judge the job; default the RunResult's `judging` (absent there: built-in detection). */
  readonly judging?: JobJudging;
}

/** A violation with the decisive events before it. */
export interface Counterexample extends Violation {
  readonly decisiveEvents: readonly TraceEvent[];
}

/** The verdict on one run. */
export interface RunVerdict {
  readonly ok: boolean;
  /** The oracles that ran, in order. */
  readonly oracles: readonly OracleName[];
  readonly violations: readonly Counterexample[];
  /** Whether the output oracle judged the final keyed state, and if not, why. */
  readonly keyedState: StateJudgement;
  /**
   * Sinks an output oracle that ran did not judge, with why (the job's judging says `off`):
   * counted and shown, never a pass. Empty when every sink was judged or no output oracle ran.
   */
  readonly outputUnjudged: readonly OutputUnjudged[];
  /**
   * Keyed operators whose state no oracle compared because the job's judging says `off`, in
   * graph order (also when others were judged; all of them: `keyedState` says `judging-off`).
   */
  readonly stateUnjudgedOperators: readonly string[];
  /** Whether the operator-state oracle judged any restore, and if not, why (never a pass). */
  readonly operatorState: OperatorStateJudgement;
  /**
   * Liveness could not judge the run: its stop-with-savepoint waits forever for a lost
   * confirmation or abort, a known Flink 1.20 outcome (counted and shown, never a pass).
   */
  readonly knownStuck: boolean;
  /**
   * What explains each abort and failover of the run, and those nothing explains
   * (attribution.ts); each unattributed one is also a violation (UNATTRIBUTED_IS_VIOLATION).
   */
  readonly attribution: AttributionJudgement;
  /** The expanded configuration of the run. */
  readonly configuration: RunSpec;
}

/** The oracles that apply to `result` (see the file comment). */
export function applicableOracles(result: RunResult, options: JudgeOptions = {}): OracleName[] {
  const mode = result.spec.checkpoint.mode;
  const expect = options.expect ?? (mode === 'at-least-once' || mode === 'none' ? 'at-least-once' : 'exactly-once');
  const stop = stopOutcome(result);
  // A latest run refused at its submission: the history ended FINISHED with the stop before it.
  const finished = result.jobStatus === 'FINISHED' || judgedAtSavepointOnly(stop) || endedByCancel(result)
    || (restoreRefused(result) !== undefined && stop?.kind === 'finished');
  const oracles: OracleName[] = [];
  // First, so that explore and replay, which take the first violation, report the assertion.
  if (result.engineAssertion !== undefined) oracles.push('engine-assertion');
  if (mode === 'aligned') oracles.push('consistent-cut');
  if (result.engineAssertion !== undefined) return withoutSkipped(oracles, options);
  if (finished) oracles.push(expect === 'exactly-once' ? 'end-to-end-exactly-once' : 'at-least-once');
  oracles.push('protocol-invariants');
  if (mode !== 'none') oracles.push('failure-handling', 'prompt-abort');
  oracles.push('storage-invariants', 'liveness');
  if (operatorStateOperators(result.graph).length > 0) oracles.push('operator-state');
  if (UNATTRIBUTED_IS_VIOLATION) oracles.push('attribution');
  return withoutSkipped(oracles, options);
}

function withoutSkipped(oracles: readonly OracleName[], options: JudgeOptions): OracleName[] {
  const skip = new Set(options.skip ?? []);
  return oracles.filter((o) => !skip.has(o));
}

/**
 * Runs the applicable oracles on `result`.
 * @throws Error when the result's trace was capped (`traceDropped`), or when F cannot run on the job.
 */
export function judgeRun(input: RunResult, options: JudgeOptions = {}): RunVerdict {
  // A run that stopped with a savepoint is judged against its input cut at the savepoint.
  const result = judgedAtStop(input);
  // The oracles read the trace (deletes, restores, transactions): judged on a capped one, a
  // checkpoint deleted after the cap looks retained and missing (a false storage violation).
  if (result.traceDropped !== undefined) {
    throw new Error(`judgeRun needs the whole trace: ${result.traceDropped} event(s) were not stored (simulate's traceLimit)`);
  }
  const maxListed = options.maxListed ?? 20;
  const judging = options.judging ?? result.judging;
  const resolved = judging === undefined ? undefined : resolveJudging(result.graph, judging);
  const oracles = applicableOracles(result, options);
  const violations: Violation[] = [];
  let keyedState = unjudgedWithout(result);
  let opState: OperatorStateJudgement = operatorStateOperators(result.graph).length === 0
    ? operatorStateUnjudged('no-operator-state', 'the job has no operator with traced operator state').judgement
    : operatorStateUnjudged('oracle-skipped', 'the operator-state oracle did not run').judgement;
  const stop = stopOutcome(result);
  let outputJudged = false;
  let stateRan = false;
  for (const oracle of oracles) {
    if (judgedAtSavepointOnly(stop) && (oracle === 'at-least-once' || oracle === 'end-to-end-exactly-once')) {
      violations.push(...outputAtFailedStop(result, stop.savepoint, oracle, maxListed, resolved));
      outputJudged = true;
      keyedState = stateUnjudged('job-not-finished', `${stop.kind === 'stuck' ? 'the stop-with-savepoint is stuck after its savepoint'
        : 'the job FAILED after its stop-with-savepoint\'s savepoint'}: its output was judged at the savepoint, its final state cannot be`);
    } else if (endedByCancel(result) && (oracle === 'at-least-once' || oracle === 'end-to-end-exactly-once')) {
      violations.push(...outputAtCancel(result, oracle, maxListed, resolved));
      outputJudged = true;
      keyedState = stateUnjudged('job-not-finished', 'the history ended with a cancel: its output was judged for surplus only, its final state cannot be');
    } else if (oracle === 'attribution') {
      // Judged for every run below (the verdict carries it, and its violations).
    } else if (oracle === 'operator-state') {
      const verdict = operatorState(result, { maxListed });
      violations.push(...verdict.violations);
      opState = verdict.judgement;
    } else if (oracle === 'at-least-once') {
      const verdict = judgeAtLeastOnce(result, { maxListed, ...(resolved === undefined ? {} : { judging: resolved }) });
      violations.push(...verdict.violations);
      keyedState = verdict.state;
      outputJudged = true;
      stateRan = true;
    } else {
      violations.push(...run(oracle, result, maxListed, resolved));
      if (oracle === 'end-to-end-exactly-once') {
        keyedState = allStateOff(resolved) ? judgingOff() : STATE_JUDGED;
        outputJudged = true;
      }
      if (oracle === 'end-to-end-exactly-once' || oracle === 'consistent-cut') stateRan = true;
    }
  }
  const count = options.decisiveEvents ?? 10;
  const attributed = attribution(result);
  if (oracles.includes('attribution')) violations.push(...attributionViolations(attributed));
  return {
    ok: violations.length === 0,
    oracles,
    keyedState,
    outputUnjudged: outputJudged ? resolved?.outputUnjudged ?? [] : [],
    stateUnjudgedOperators: stateRan && resolved !== undefined ? resolved.keyed.filter((k) => resolved.stateOff.has(k)) : [],
    operatorState: opState,
    knownStuck: oracles.includes('liveness') && isKnownStuck(result),
    attribution: attributed,
    violations: violations.map((v) => ({ ...v, decisiveEvents: decisiveEvents(result.trace, v.timeMs, count) })),
    configuration: result.spec,
  };
}

/** The state judgement before any output oracle runs: why none may (it is replaced if one does). */
function unjudgedWithout(result: RunResult): StateJudgement {
  if (result.jobStatus !== 'FINISHED') {
    return stateUnjudged('job-not-finished', `the job was ${result.jobStatus} at the end of the run, not FINISHED: no output oracle ran`);
  }
  if (result.engineAssertion !== undefined) {
    return stateUnjudged('oracle-skipped', 'an engine assertion ended the run: no output oracle ran');
  }
  return stateUnjudged('oracle-skipped', 'the output oracle was skipped');
}

/** The state judgement when the job's judging says state off for every keyed operator. */
function judgingOff(): StateJudgement {
  return stateUnjudged('judging-off', 'the job\'s judging says state off for every keyed operator');
}

/** Runs every oracle but at-least-once, operator-state and attribution (judgeRun reads their judgements too). */
function run(oracle: Exclude<OracleName, 'at-least-once' | 'operator-state' | 'attribution'>, result: RunResult, maxListed: number,
  resolved: ResolvedJudging | undefined): Violation[] {
  switch (oracle) {
    case 'consistent-cut':
      return consistentCut(result, { maxListed, ...(resolved === undefined ? {} : { stateOff: resolved.stateOff }) });
    case 'end-to-end-exactly-once':
      return endToEnd(result, maxListed, resolved);
    case 'protocol-invariants':
      return perJobRun(result, protocolInvariants);
    case 'failure-handling':
      return perJobRun(result, failureHandling);
    case 'prompt-abort':
      // Per job run on its own (it walks cause links through the whole trace).
      return promptAbort(result);
    case 'storage-invariants':
      return storageInvariants(result, { maxListed });
    case 'liveness':
      return liveness(result);
    case 'engine-assertion':
      return engineAssertion(result);
  }
}

/**
 * Runs a trace oracle of one job run's protocol (5, and 5/7 failure handling) on each job run of
 * the history: checkpoint ids, the coordinator and its failure manager are per run, so each run is
 * judged on its own events (JobRun.ts tags them with `jobRun`); a violation says its run.
 */
function perJobRun(result: RunResult, oracle: (r: RunResult) => Violation[]): Violation[] {
  if (result.jobRuns.length <= 1) return oracle(result);
  return result.jobRuns.flatMap((run) => {
    const trace = result.trace.filter((e) => jobRunOf(e.attrs) === run.index);
    return oracle({ ...result, trace }).map((v) => ({ ...v, summary: `job run ${run.index}: ${v.summary}`, details: { ...(v.details as object), jobRun: run.index } }));
  });
}

/**
 * The output oracle after a stop whose job failed once its savepoint existed: the committed
 * records plus those left pre-committed inside the savepoint must equal F(prefixes(savepoint))
 * (`result` has the cut graph): exactly once for `end-to-end-exactly-once`, each at least once
 * for `at-least-once`. No final state exists to judge.
 */
function outputAtFailedStop(result: RunResult, savepoint: DecodedCheckpoint,
  oracle: 'at-least-once' | 'end-to-end-exactly-once', maxListed: number, resolved: ResolvedJudging | undefined): Violation[] {
  const stored = outputAtStop(result, savepoint);
  const output = stored.map((c) => c.record as CommittedRecord);
  const timeMs = result.jobEndMs ?? result.outcome.timeMs;
  const at = `committed plus pre-committed in savepoint ${savepoint.checkpointId}`;
  const fold = sharedReferenceFold(result.graph);
  if (oracle === 'end-to-end-exactly-once') {
    const verdict = endToEndExactlyOnce({
      graph: result.graph, expected: fold, committed: output, finalState: {}, judgeState: false, maxListed,
      ...(resolved === undefined ? {} : { judging: resolved, stores: stored.map((c) => c.txn.sink) }),
    });
    return verdict.ok ? [] : [{ property: verdict.property, summary: `${verdict.summary} (${at})`, details: verdict.details, timeMs }];
  }
  const sequenced = detectSequenced(result.graph);
  const judged = resolved === undefined ? undefined : compareSinkOutputs(result.graph, sinkOutputs(resolved, fold, stored), maxListed, false);
  const outputs = judged?.outputs ?? compareOutputs({
    expected: fold.outputs, actual: output, maxListed,
    ...(sequenced === null ? {} : { project: sequenced.project }),
  });
  if (outputs.missingCount === 0) return [];
  const left = unjudgedSuffix(resolved);
  return [{
    property: 'at-least-once',
    summary: `${outputs.missingCount} record(s) of F(prefixes(savepoint ${savepoint.checkpointId})) missing from the ${at}`
      + `${left === '' ? '' : `; ${left}`}`,
    details: {
      expectedCount: judged?.expectedCount ?? fold.outputs.length, committedCount: judged?.committedCount ?? output.length,
      missing: outputs.missing,
      ...(resolved === undefined || resolved.outputUnjudged.length === 0 ? {} : { outputUnjudged: resolved.outputUnjudged }),
    },
    timeMs,
  }];
}

/** Oracle 3 on a RunResult. */
function endToEnd(result: RunResult, maxListed: number, resolved: ResolvedJudging | undefined): Violation[] {
  const verdict = endToEndExactlyOnce({
    graph: result.graph,
    expected: sharedReferenceFold(result.graph),
    committed: result.committed.map((c) => c.record as CommittedRecord),
    finalState: result.finalState as Parameters<typeof endToEndExactlyOnce>[0]['finalState'],
    maxListed,
    ...(resolved === undefined ? {} : { judging: resolved, stores: result.committed.map((c) => c.txn.sink) }),
  });
  if (verdict.ok) return [];
  return [{
    property: verdict.property,
    summary: verdict.summary,
    details: verdict.details,
    timeMs: result.jobEndMs ?? result.outcome.timeMs,
  }];
}
