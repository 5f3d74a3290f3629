/**
 * The body of a property suite: fast-check generates RunSpecs, each is simulated and judged with
 * the oracles of ORACLES.md (defaultJudge), and the first violation fails the suite with the
 * violated property, its summary and details and the decisive events (fast-check adds the spec,
 * seed and path). Afterwards oracle 9: every mark the suite targets must have appeared in some
 * run, or the suite fails as vacuous; and the final keyed state must have been judged in all but
 * at most {@link CheckRunsOptions.maxStateUnjudgedShare} of the runs, or the suite fails: a run
 * whose state no oracle judged is no pass of it (stateJudgement.ts).
 *
 * A failure is not shrunk here (`endOnFailure`): a simulated run costs up to seconds, so
 * shrinking belongs to `checkpoint-sim explore`, and `FC_SEED`/`FC_PATH` replay the failing run.
 */
import fc from 'fast-check';
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';
import type { RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import type { TraceEvent } from '../../sim/Trace.ts';
import { defaultJudge } from '../explore/defaultJudge.ts';
import type { Expectation, Judge } from '../explore/explore.ts';
import { requireMarks } from '../oracles/requireMarks.ts';
import { propertyParameters, replaysOnePath } from './propertyParameters.ts';

/** Options of {@link checkRuns}. */
export interface CheckRunsOptions {
  readonly arbitrary: fc.Arbitrary<RunSpec>;
  readonly expect: Expectation;
  /** Marks (ORACLES.md, 9) that must appear in at least one run. */
  readonly marks: readonly string[];
  /** Runs when `FC_NUM_RUNS` is not set. */
  readonly defaultRuns: number;
  /** Every k-th run also checks the engine's invariants after every event. Default 10; 0 off. */
  readonly invariantsEvery?: number;
  /** Largest share of runs whose keyed state may go unjudged; default 0.05. */
  readonly maxStateUnjudgedShare?: number;
  /** The judge; default defaultJudge (tests of this function replace it). */
  readonly judge?: Judge;
}

/** The default of {@link CheckRunsOptions.maxStateUnjudgedShare}. */
export const MAX_STATE_UNJUDGED_SHARE = 0.05;

/** What the suite saw, for its log line. */
export interface CheckRunsSummary {
  readonly runs: number;
  readonly restores: number;
  readonly checkpointsCompleted: number;
  /** Runs whose final keyed state no oracle judged, per reason. */
  readonly stateUnjudged: Readonly<Record<string, number>>;
  readonly marks: Readonly<Record<string, number>>;
}

/**
 * Runs the suite; see the file comment.
 * @throws Error (from fast-check) on the first violating run, or on a vacuous suite.
 */
export function checkRuns(o: CheckRunsOptions): CheckRunsSummary {
  const seen: Pick<RunResult, 'marks'>[] = [];
  const every = o.invariantsEvery ?? 10;
  let runs = 0;
  let restores = 0;
  let checkpointsCompleted = 0;
  const unjudged: Record<string, number> = {};
  const judge = o.judge ?? defaultJudge;
  fc.assert(fc.property(o.arbitrary, (spec) => {
    const checkInvariants = every > 0 && runs % every === 0;
    runs++;
    const result = simulate(spec, { checkInvariants });
    seen.push({ marks: result.marks });
    restores += result.restores;
    checkpointsCompleted += result.checkpoints.completed.filter((c) => c.kind === 'checkpoint').length;
    const verdict = judge(result, o.expect);
    const first = verdict.violations[0];
    if (first !== undefined) throw new Error(describeViolation(first));
    if (!verdict.keyedState.judged) unjudged[verdict.keyedState.reason] = (unjudged[verdict.keyedState.reason] ?? 0) + 1;
  }), { ...propertyParameters<[RunSpec]>(o.defaultRuns), endOnFailure: true });
  const marks: Record<string, number> = {};
  for (const s of seen) for (const [k, n] of Object.entries(s.marks)) marks[k] = (marks[k] ?? 0) + n;
  // A replayed path is one run: it reproduces a failure, it is not meant to reach every mark.
  const vacuous = replaysOnePath() ? [] : requireMarks(seen, o.marks);
  if (vacuous.length > 0) throw new Error(vacuous.map((v) => v.summary).join('; '));
  const unjudgedRuns = Object.values(unjudged).reduce((n, k) => n + k, 0);
  const maxShare = o.maxStateUnjudgedShare ?? MAX_STATE_UNJUDGED_SHARE;
  if (!replaysOnePath() && unjudgedRuns > maxShare * runs) {
    throw new Error(`the final keyed state went unjudged in ${unjudgedRuns} of ${runs} run(s), more than `
      + `${maxShare * 100}% (${Object.entries(unjudged).map(([k, n]) => `${n} ${k}`).join(', ')})`);
  }
  return { runs, restores, checkpointsCompleted, stateUnjudged: unjudged, marks };
}

/** A violation for people: property, summary, details and the decisive events. */
export function describeViolation(v: Violation): string {
  const decisive = (v as Violation & { decisiveEvents?: readonly TraceEvent[] }).decisiveEvents ?? [];
  const lines = [
    `${v.property}: ${v.summary} (at ${v.timeMs} ms)`,
    `details: ${JSON.stringify(v.details).slice(0, 2000)}`,
    ...(decisive.length === 0 ? [] : ['decisive events:']),
    ...decisive.map((e) => `  ${(e.timeUs / 1000).toFixed(3)} ms ${e.host} ${e.type} ${JSON.stringify(e.attrs)}`),
  ];
  return lines.join('\n');
}
