/**
 * explore: fast-check searches the world. For each mode it generates RunSpecs, simulates them,
 * judges each with the oracles, and on the first violation writes the unshrunk repro at once,
 * lets fast-check shrink it, and replaces the file with the shrunk repro. A shrink step of an
 * engine assertion counts as failing only if it ends in an engine assertion at the same location
 * (another assertion is another bug). A sample of runs is simulated twice to prove determinism
 * (a mismatch is a harness failure, exit code 3; so is anything simulate or the judge throw,
 * which stops the search at once instead of being shrunk), and a sample of completed checkpoints
 * is forked into restore fan-out runs (oracle 2), which do not count in the per-mode figures.
 * Runs are drawn by a search strategy (ExploreStrategy.ts, default mixed): the report counts per
 * mode the runs each strategy drew and says which run found the first violation, how long after
 * the mode's start, and which strategy drew it; a counterexample and its repro name the strategy.
 *
 * The wall clock and file writing are handed in (STYLE.md: only cli/ and bench/ read real time),
 * as are simulate and the judge, so tests can inject a nondeterministic fake.
 */
import fc from 'fast-check';
import { canonicalFaults } from './canonicalFaults.ts';
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';
import type { RunMode, RunSpec } from '../../sim/run/RunSpec.ts';
import { exploreJobName, type ExploreJob } from '../arbitraries/runSpecArbitrary.ts';
import { drawnRunArbitrary } from '../arbitraries/drawnRunArbitrary.ts';
import { DEFAULT_EXPLORE_STRATEGY, type ExploreStrategy, type RunStrategy } from '../arbitraries/ExploreStrategy.ts';
import { forkSpec, rescaleForkSpec, type ForkRef } from './restoreFork.ts';
import { regenerateCommand, regenerates } from './regenerateCommand.ts';
import { ENGINE_ASSERTION, sameFailure } from '../oracles/engineAssertion.ts';
import { REPRO_FORMAT_VERSION, type Repro } from './Repro.ts';
import type { StateJudgement } from '../oracles/stateJudgement.ts';
import type { OperatorStateJudgement } from '../oracles/operatorState.ts';
import type { OutputUnjudged } from '../oracles/jobJudging.ts';
import { explainRun, type Explanation } from '../explain/explainRun.ts';
import type { AttributionJudgement } from '../oracles/attribution.ts';
import { recordRun } from './recordRun.ts';
import type { UnattributedSummary } from './unattributedSummary.ts';

export { applyFork, forkSpec, rescaleForkSpec, type ForkRef } from './restoreFork.ts';

export type Expectation = 'exactly-once' | 'at-least-once';

/** What a judge says of one run. */
export interface Judgement {
  readonly violations: readonly Violation[];
  /**
   * Surplus records: committed copies beyond the reference fold's count per record identity
   * (a FINISHED job; 0 otherwise).
   */
  readonly duplicates: number;
  /** Records of the reference fold never committed (a FINISHED job; 0 otherwise). */
  readonly missing: number;
  /** Whether the final keyed state was judged, and if not, why. */
  readonly keyedState: StateJudgement;
  /** Liveness could not judge the run: a stop-with-savepoint known to wait forever (judgeRun). */
  readonly knownStuck?: boolean;
  /** Whether the operator-state oracle judged a restore, and if not, why (judgeRun). */
  readonly operatorState?: OperatorStateJudgement;
  /** Sinks whose output an output oracle did not judge, with why (judgeRun; jobJudging.ts). */
  readonly outputUnjudged?: readonly OutputUnjudged[];
  /** Keyed operators whose state the job's judging left out (judgeRun). */
  readonly stateUnjudgedOperators?: readonly string[];
  /** What explains each abort and failover, and what nothing does (judgeRun; attribution.ts). */
  readonly attribution?: AttributionJudgement;
}

export type Simulate = (spec: RunSpec) => RunResult;
export type Judge = (result: RunResult, expect: Expectation) => Judgement;
/** The determinism self-check failed: the harness itself is broken (exit code 3). */
export class HarnessError extends Error {
  override readonly name = 'HarnessError';
}

export interface ExploreOptions {
  readonly job: ExploreJob;
  readonly modes: readonly RunMode[];
  /** Default: exactly-once for the exactly-once modes, at-least-once for at-least-once and none. */
  readonly expect?: Expectation;
  readonly mutants?: readonly string[];
  /** Runs per mode (default DEFAULT_RUNS_PER_MODE), or a wall-clock budget for all modes together. */
  readonly runs?: number;
  readonly timeBudgetMs?: number;
  /** fast-check seed (an integer). */
  readonly seed: number;
  readonly maxRecords?: number;
  readonly maxParallelism?: number;
  /** Every k-th run is simulated twice; 0 turns the check off. Default 10. */
  readonly determinismEvery?: number;
  /** Every k-th run is forked at a completed checkpoint (every mode); 0 off. Default 10. */
  readonly fanOutEvery?: number;
  readonly simulate: Simulate;
  readonly judge: Judge;
  /** How runs are drawn (ExploreStrategy.ts); default `mixed`. */
  readonly strategy?: ExploreStrategy;
  /**
   * Whether a counterexample is shrunk (default true). Off, the first violating run is reported as
   * it was drawn: for measuring how fast a search finds a bug (`mutants run --compare-strategies`),
   * where shrinking would only cost time.
   */
  readonly shrink?: boolean;
  /** Real milliseconds, from cli/. */
  readonly clock: () => number;
  /** Writes (or overwrites) the repro of `mode`'s counterexample; returns its path. */
  readonly writeRepro: (mode: RunMode, repro: Repro) => string;
  readonly version: string;
  readonly progress?: (mode: RunMode, done: number, total: number | undefined) => void;
}

export interface ModeSummary {
  runs: number;
  violations: number;
  checkpointsCompleted: number;
  restores: number;
  duplicatesAfterRestore: number;
  /** Records the reference fold produces that were never committed (finished jobs only). */
  missingRecords: number;
  /**
   * Faults that never fired (RunResult.unfiredFaults): their trigger was never reached, or a
   * message fault never met its message.
   */
  unfiredFaults: number;
  /** Actions (savepoints) whose time or point never came (RunResult.unfiredActions). */
  unfiredActions: number;
  /**
   * Runs whose stop-with-savepoint waits forever for a lost confirmation or abort (a known
   * Flink 1.20 outcome, mark `stop-with-savepoint-stuck`): liveness did not judge them, and they
   * are no passes of it.
   */
  knownStuck: number;
  /** Runs whose final keyed state no oracle judged (never counted as passes of it). */
  stateUnjudged: number;
  /** Those runs per reason code (stateJudgement.ts). */
  stateUnjudgedReasons: Record<string, number>;
  /**
   * Runs with at least one sink whose output the job's judging left unjudged (`off`), never
   * counted as passes of it; present only when there was one (jobs with a JobJudging).
   */
  outputUnjudged?: number;
  /** Those runs per reason code (jobJudging.ts OUTPUT_UNJUDGED_REASONS); with outputUnjudged. */
  outputUnjudgedReasons?: Record<string, number>;
  /**
   * Runs whose state was judged for some keyed operators and left out for others by the job's
   * judging (all of them left out: stateUnjudgedReasons `judging-off`); present only when there was one.
   */
  statePartlyUnjudged?: number;
  /** Runs whose operator-state oracle judged at least one restore (operatorState.ts). */
  operatorStateJudged?: number;
  /**
   * Runs whose job has an operator with operator state that the oracle could not judge, per
   * reason (`no-restore`, ...): never counted as passes of it.
   */
  operatorStateUnjudgedReasons?: Record<string, number>;
  /**
   * The rescale actions that fired (optional: summaries written before job runs lack it):
   * `restored` started a new job run, `failed` did not (its stop failed, or no checkpoint was
   * retained to restore), `refused` started one whose restore Flink refused at submission
   * (jm.restoreFailed).
   */
  rescales?: { fired: number; restored: number; failed: number; refused: number };
  /** Aborts and failovers no cause explains, with examples (unattributedSummary.ts); when judged. */
  unattributed?: UnattributedSummary;
  marks: Record<string, number>;
  /**
   * Runs per strategy that drew them (one key under a single strategy; four under `mixed`).
   * Optional, like `schedule`, for summaries written before strategies; explore always sets both.
   */
  runsByStrategy?: Partial<Record<RunStrategy, number>>;
  /**
   * The order decisions of the runs (summed), and of the runs with a PCT schedule: how many
   * there were, and at how many order decisions the schedule proposed another candidate than the
   * seeded draw (RunResult.schedule).
   */
  schedule?: { orderDecisions: number; pctRuns: number; pctOrderDecisions: number; pctDiffered: number };
  /**
   * The mode's first violation, before shrinking: which run found it (1 for the first), the
   * wall time from the mode's start to the end of that run's judgement (ms), and the strategy
   * that drew it. Absent when no run violated a property. What a runs-to-kill table reads.
   */
  firstViolation?: { run: number; ms: number; strategy: RunStrategy };
}

export interface Counterexample {
  readonly mode: RunMode;
  readonly property: string;
  readonly summary: string;
  readonly repro: string;
  readonly replay: string;
  readonly traceHash: string;
  readonly spec: RunSpec;
  /** The shrunk run's spec with every default filled in (what the run really used). */
  readonly configuration: RunResult['spec'];
  readonly faults: number;
  /** Actions (savepoints) of the shrunk run. */
  readonly actions: number;
  readonly overrides: number;
  readonly violation: Violation;
  /** Why it failed: the cause chains of the counterexample's run (properties/explain). */
  readonly explanation: Explanation;
  /** explore's strategy, and the one that drew this run (under `mixed`, one of the others). */
  readonly strategy: { readonly explore: ExploreStrategy; readonly run: RunStrategy };
  /**
   * When the failing run is a restore fan-out fork (ORACLES.md 2) of fast-check's run: the
   * checkpoint it forked at, and whether it was the rescale fork (`replay --seed --path --fork N
   * [--fork-rescale]`).
   */
  readonly fork?: ForkRef;
  /** fast-check's seed and path of the counterexample (before explore dropped unfired faults). */
  readonly fastCheck: { readonly seed: number; readonly path: string };
  /**
   * The command that regenerates fast-check's counterexample from them (`replay --seed --path`),
   * present only when regenerating that path here gives the very spec fast-check reported
   * (checked, so the printed command is never one that regenerates another run).
   */
  readonly regenerate?: string;
}

/**
 * The restore fan-out forks (oracle 2): forks run, forks that violated a property, and forks
 * whose "fail globally when c completes" fault never fired (they tested no restore from c).
 */
export interface FanOutSummary {
  runs: number;
  violations: number;
  unfired: number;
  /** The forks across a rescale (rescaleForkSpec): run, violated, whose rescale never fired. */
  rescaleRuns: number;
  rescaleViolations: number;
  rescaleUnfired: number;
}

export interface ExploreReport {
  readonly job: string; // as `--job` names it (exploreJobName)
  readonly seed: number;
  /** How runs were drawn (ExploreStrategy.ts). */
  readonly strategy: ExploreStrategy;
  readonly runsPerMode: number | null;
  /** The planted bugs switched on (sorted, distinct; empty for the correct engine). */
  readonly mutants: readonly string[];
  readonly modes: Record<string, ModeSummary>;
  readonly counterexamples: Counterexample[];
  readonly fanOut: FanOutSummary;
  readonly timing: { wallMs: number };
}

/** The checkpointing modes built so far, what `all` means (unaligned and aligned-with-timeout come with a later issue). */
export const BUILT_MODES: readonly RunMode[] = ['aligned', 'at-least-once'];

/** Runs per mode when neither `runs` nor `timeBudgetMs` is given. */
export const DEFAULT_RUNS_PER_MODE = 100;

/** The default expectation of a mode. */
export function expectationOf(mode: RunMode): Expectation {
  // Without checkpoints a failover restarts from scratch, and a sink subtask that reached its
  // end of input committed already: its records are committed again. Only at-least-once holds.
  return mode === 'at-least-once' || mode === 'none' ? 'at-least-once' : 'exactly-once';
}

/**
 * Runs the exploration; see the file comment.
 * @throws HarnessError on a determinism mismatch; whatever simulate or the judge throw, as it is.
 */
export function explore(o: ExploreOptions): ExploreReport {
  const started = o.clock();
  const deadline = o.timeBudgetMs === undefined ? Number.POSITIVE_INFINITY : started + o.timeBudgetMs;
  const modes: Record<string, ModeSummary> = {};
  const counterexamples: Counterexample[] = [];
  const fanOut: FanOutSummary = { runs: 0, violations: 0, unfired: 0, rescaleRuns: 0, rescaleViolations: 0, rescaleUnfired: 0 };
  o.modes.forEach((mode, i) => {
    const remainingModes = o.modes.length - i;
    const modeDeadline = started + (deadline === Number.POSITIVE_INFINITY ? Number.POSITIVE_INFINITY
      : ((deadline - o.clock()) / remainingModes) + (o.clock() - started));
    const { summary, counterexample } = exploreMode(o, mode, modeDeadline, fanOut);
    modes[mode] = summary;
    if (counterexample !== undefined) counterexamples.push(counterexample);
  });
  return {
    job: exploreJobName(o.job),
    seed: o.seed,
    strategy: o.strategy ?? DEFAULT_EXPLORE_STRATEGY,
    runsPerMode: o.timeBudgetMs === undefined ? (o.runs ?? DEFAULT_RUNS_PER_MODE) : null,
    mutants: [...new Set(o.mutants ?? [])].sort(),
    modes,
    counterexamples,
    fanOut,
    timing: { wallMs: Math.round(o.clock() - started) },
  };
}

function emptySummary(): ModeSummary {
  return {
    runs: 0, violations: 0, checkpointsCompleted: 0, restores: 0, duplicatesAfterRestore: 0, missingRecords: 0,
    unfiredFaults: 0, unfiredActions: 0, knownStuck: 0, stateUnjudged: 0, stateUnjudgedReasons: {},
    operatorStateJudged: 0, operatorStateUnjudgedReasons: {}, marks: {}, runsByStrategy: {},
    schedule: { orderDecisions: 0, pctRuns: 0, pctOrderDecisions: 0, pctDiffered: 0 },
  };
}

function exploreMode(
  o: ExploreOptions,
  mode: RunMode,
  deadline: number,
  fanOut: FanOutSummary,
): { summary: ModeSummary; counterexample: Counterexample | undefined } {
  const started = o.clock();
  const expect = o.expect ?? expectationOf(mode);
  const summary = emptySummary();
  const arb = drawnRunArbitrary({
    job: o.job,
    mode,
    strategy: o.strategy ?? DEFAULT_EXPLORE_STRATEGY,
    ...(o.maxRecords === undefined ? {} : { maxRecords: o.maxRecords }),
    ...(o.maxParallelism === undefined ? {} : { maxParallelism: o.maxParallelism }),
    mutations: o.mutants ?? [],
  });
  let failedOnce = false;
  let first: Violation | undefined;
  let reproPath: string | undefined;
  // A determinism mismatch, or anything simulate or the judge throw (a harness assertion), stops
  // the search: thrown inside the property, fast-check would take it for a counterexample and
  // shrink it. The remaining runs pass at once and it is rethrown.
  let harnessFailure: { readonly error: unknown } | undefined;
  const runs = o.timeBudgetMs === undefined ? (o.runs ?? DEFAULT_RUNS_PER_MODE) : 1_000_000;
  const property = fc.property(arb, ({ spec, strategy }) => {
    if (harnessFailure !== undefined) return true;
    let e: Evaluation;
    try {
      e = evaluate(o, spec, expect, !failedOnce ? fanOut : undefined);
    } catch (error) {
      harnessFailure = { error };
      return true;
    }
    if (!failedOnce) {
      summary.runs++;
      recordRun(summary, e.main, e.mainVerdict, strategy);
      o.progress?.(mode, summary.runs, o.timeBudgetMs === undefined ? runs : undefined);
      const mismatch = checkDeterminism(o, spec, e.main, summary.runs);
      if (mismatch !== undefined) {
        harnessFailure = { error: mismatch };
        return true;
      }
    }
    if (e.violation === undefined) return true;
    if (!failedOnce) {
      failedOnce = true;
      first = e.violation;
      summary.violations++;
      summary.firstViolation = { run: summary.runs, ms: Math.round(o.clock() - started), strategy };
      reproPath = o.writeRepro(mode, repro(o, { spec: e.spec, strategy }, e.result, e.violation, 'unshrunk', e.fork));
      return false;
    }
    // Shrinking: any violation still fails, except that an engine assertion must stay the same.
    return first?.property === ENGINE_ASSERTION && !sameFailure(first, e.violation);
  });
  const details = fc.check(property, {
    seed: o.seed,
    numRuns: runs,
    ...(deadline === Number.POSITIVE_INFINITY ? {} : { interruptAfterTimeLimit: Math.max(1, deadline - o.clock()) }),
    ...(o.shrink === false ? { endOnFailure: true } : {}),
  });
  if (harnessFailure !== undefined) throw harnessFailure.error;
  if (!details.failed || details.counterexample === null) return { summary, counterexample: undefined };
  const drawn = details.counterexample[0];
  const e0 = evaluate(o, drawn.spec, expect, undefined);
  if (e0.violation === undefined) {
    throw new HarnessError('the shrunk counterexample no longer fails when simulated again (nondeterminism?)');
  }
  const fastCheck = { seed: details.seed, path: details.counterexamplePath ?? '' };
  // Written before the runs below, so what fast-check shrank is on disk whatever they do.
  const stage = o.shrink === false ? 'unshrunk' : 'shrunk';
  reproPath = o.writeRepro(mode, { ...repro(o, { spec: e0.spec, strategy: drawn.strategy }, e0.result, e0.violation, stage, e0.fork), fastCheck });
  const e = o.shrink === false ? e0 : smallerCounterexample(o, e0, expect);
  const { violation, result, spec: shrunk } = e;
  if (violation === undefined) throw new HarnessError('unreachable: the kept counterexample holds');
  // Made smaller, a fork's spec still ends with the fork's fault (it fired): still the fork.
  if (e !== e0) {
    reproPath = o.writeRepro(mode, { ...repro(o, { spec: shrunk, strategy: drawn.strategy }, result, violation, 'shrunk', e.fork ?? e0.fork), fastCheck });
  }
  return {
    summary,
    counterexample: {
      mode,
      property: violation.property,
      summary: violation.summary,
      repro: reproPath,
      replay: `npx checkpoint-sim replay ${reproPath}`,
      traceHash: result.traceHash,
      spec: shrunk,
      configuration: result.spec,
      faults: shrunk.faults.length,
      actions: shrunk.actions?.length ?? 0,
      overrides: shrunk.overrides.length,
      violation,
      explanation: explainRun(result, violation),
      strategy: { explore: o.strategy ?? DEFAULT_EXPLORE_STRATEGY, run: drawn.strategy },
      ...((e.fork ?? e0.fork) === undefined ? {} : { fork: e.fork ?? e0.fork }),
      fastCheck,
      ...(regenerates(o, mode, fastCheck, e0.spec, e0.fork) ? { regenerate: regenerateCommand(o, mode, fastCheck, e0.fork) } : {}),
    },
  };
}

/**
 * The shrunk counterexample made smaller where fast-check cannot: without the faults that never
 * fired in its run, then with its world-setting faults merged (canonicalFaults), then again
 * without the faults that never fired. Each step is kept only if the same property still fails
 * (an engine assertion: at the same location, sameFailure).
 */
function smallerCounterexample(o: ExploreOptions, e0: Evaluation, expect: Expectation): Evaluation {
  let e = withoutUnfiredFaults(o, e0, expect);
  // Several world-setting faults of one kind act as one: merged, the repro is smaller.
  const canonical = canonicalFaults(e.spec);
  if (canonical !== e.spec) {
    const merged = evaluate(o, canonical, expect, undefined);
    if (stillFails(e0, merged)) e = withoutUnfiredFaults(o, merged, expect);
  }
  return e;
}

/** Whether `next` fails as `e` does (the same property; an engine assertion at the same place). */
function stillFails(e: Evaluation, next: Evaluation): boolean {
  return e.violation !== undefined && sameFailure(e.violation, next.violation);
}

/**
 * `e` without the faults (and actions) that never fired in its failing run (their trigger was never reached,
 * or a message fault never met its message), as long as the same property still fails. Such a fault did nothing in this run, yet fast-check
 * may have kept it: it drops faults one family or one element at a time, each step only if the
 * property still fails after it. The run without them can differ (the faults after them are
 * renumbered), hence the check, and it can leave other faults unfired, hence the loop; each pass
 * drops at least one fault, so it ends.
 */
function withoutUnfiredFaults(o: ExploreOptions, e: Evaluation, expect: Expectation): Evaluation {
  let best = e;
  while (best.result.unfiredFaults.length > 0 || best.result.unfiredActions.length > 0) {
    const unfired = new Set(best.result.unfiredFaults);
    const unfiredActions = new Set(best.result.unfiredActions);
    const actions = (best.spec.actions ?? []).filter((_a, i) => !unfiredActions.has(i));
    const faults = best.spec.faults.filter((_f, i) => !unfired.has(i));
    // Fields stay in their order (a repro reads as before); `actions` goes when none is left.
    const { actions: _dropped, ...rest } = best.spec;
    const spec: RunSpec = unfiredActions.size === 0 ? { ...best.spec, faults }
      : actions.length === 0 ? { ...rest, faults } : { ...best.spec, faults, actions };
    const next = evaluate(o, spec, expect, undefined);
    if (!stillFails(best, next)) return best;
    best = next;
  }
  return best;
}

/** The repro of a drawn run's `spec` (its `strategy` the one that drew it) that violated `v`. */
function repro(
  o: ExploreOptions, drawn: { spec: RunSpec; strategy: RunStrategy }, result: RunResult, v: Violation,
  stage: 'unshrunk' | 'shrunk', fork?: ForkRef,
): Repro {
  const spec = drawn.spec;
  return {
    format: 'checkpoint-sim-repro',
    formatVersion: REPRO_FORMAT_VERSION,
    checkpointSimVersion: o.version,
    property: v.property,
    expect: o.expect ?? expectationOf(spec.checkpoint.mode),
    summary: v.summary,
    traceHash: result.traceHash,
    stage,
    ...(fork === undefined ? {} : { fork: { checkpointId: fork.checkpointId, ...(fork.rescale === true ? { rescale: true } : {}) } }),
    strategy: { explore: o.strategy ?? DEFAULT_EXPLORE_STRATEGY, run: drawn.strategy },
    spec,
  };
}

/** Oracle 8: a sample of runs simulated twice must give the same trace hash; the mismatch. */
function checkDeterminism(o: ExploreOptions, spec: RunSpec, result: RunResult, n: number): HarnessError | undefined {
  const every = o.determinismEvery ?? 10;
  if (every <= 0 || n % every !== 1 % every) return undefined;
  const again = o.simulate(spec);
  if (again.traceHash === result.traceHash) return undefined;
  return new HarnessError(`determinism self-check failed for seed ${spec.seed}: trace hash ${result.traceHash} then ${again.traceHash}`);
}

interface Evaluation {
  readonly main: RunResult;
  readonly mainVerdict: Judgement;
  /** The run that failed (the main run, or its fork), its spec and first violation. */
  readonly result: RunResult;
  readonly spec: RunSpec;
  readonly violation: Violation | undefined;
  /** When the violation is a restore fan-out fork's: which fork. */
  readonly fork?: ForkRef;
}

/**
 * Simulates and judges `spec`; when it holds and the spec is sampled for oracle 2 (restore
 * fan-out), also its fork: the same spec with one more fault, "fail the job globally when c
 * completes", for the middle completed checkpoint c, judged with the same expectation. Sampling
 * depends on the spec's seed (which never shrinks), so a shrunk spec is forked the same way.
 */
function evaluate(o: ExploreOptions, spec: RunSpec, expect: Expectation, fanOut: FanOutSummary | undefined): Evaluation {
  const main = o.simulate(spec);
  const mainVerdict = o.judge(main, expect);
  const first = mainVerdict.violations[0];
  const base = { main, mainVerdict, result: main, spec, violation: first };
  const every = o.fanOutEvery ?? 10;
  if (first !== undefined || every <= 0 || seedNumber(spec.seed) % every !== 0) return base;
  // Only checkpoints that completed before the heal time: a fault reached later never fires.
  const healUs = main.spec.healTimeMs * 1000;
  // A restore comes only from a checkpoint (savepoints never join the store).
  const completed = main.checkpoints.completed.filter((cp) => cp.kind === 'checkpoint' && cp.completionTimestampUs < healUs);
  const c = completed[Math.floor(completed.length / 2)];
  if (c === undefined) return base;
  const forkedSpec = forkSpec(spec, c.checkpointId);
  const forked = o.simulate(forkedSpec);
  // ORACLES.md 2: the fork is judged like the run (at-least-once mode: oracle 4).
  const violation = o.judge(forked, expect).violations[0];
  if (fanOut !== undefined) {
    fanOut.runs++;
    if (violation !== undefined) fanOut.violations++;
    // The fork's schedule can differ from the main run's (c may complete at or after the heal
    // time there, or not at all): then it tested no restore from c, and says so.
    if (forked.unfiredFaults.includes(forkedSpec.faults.length - 1)) fanOut.unfired++;
  }
  if (violation !== undefined) return { main, mainVerdict, result: forked, spec: forkedSpec, violation, fork: { checkpointId: c.checkpointId } };
  // And across a rescale: cancel with c retained, a new run from c at another parallelism.
  const rescaledSpec = rescaleForkSpec(spec, c.checkpointId);
  const rescaled = o.simulate(rescaledSpec);
  const rescaleViolation = o.judge(rescaled, expect).violations[0];
  if (fanOut !== undefined) {
    fanOut.rescaleRuns++;
    if (rescaleViolation !== undefined) fanOut.rescaleViolations++;
    if (rescaled.unfiredActions.includes((rescaledSpec.actions ?? []).length - 1)) fanOut.rescaleUnfired++;
  }
  return rescaleViolation === undefined ? base
    : { main, mainVerdict, result: rescaled, spec: rescaledSpec, violation: rescaleViolation, fork: { checkpointId: c.checkpointId, rescale: true } };
}

function seedNumber(seed: string): number {
  let h = 0;
  for (let i = 0; i < seed.length; i++) h = (Math.imul(h, 31) + seed.charCodeAt(i)) | 0;
  return Math.abs(h);
}
