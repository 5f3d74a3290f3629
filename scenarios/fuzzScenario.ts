/**
 * fuzzScenario: `scenario run NAME --fuzz N`. Keeps the scenario's steps (faults and actions on
 * the job alike: a savepoint step stays in the spec's `actions`, at its point or time) and its
 * configuration (`config.faults` included), and explores N schedules around them: each run draws another world
 * seed (`<seed>/fuzz-<k>`) and a few decision overrides (delays at their extremes, other orders
 * of simultaneous events, other fates), and no extra faults. The standing oracles judge each run
 * under the scenario's promise; the scenario's expectations do not (they describe the one
 * default schedule), and a step that did not fire is counted, not a failure (another schedule
 * can miss a point: a checkpoint aborted before its ack).
 *
 * The first violation is written as a repro at once (unshrunk), fast-check shrinks the schedule
 * (fewer overrides, smaller decisions and seed index) and the shrunk repro replaces it. Fuzz
 * repros carry no `scenario` field: `replay` judges them with the standing oracles, as the fuzz
 * run did. Deterministic: the same scenario, N and fast-check seed give the same report.
 *
 * @throws SimInputError for a bad scenario; whatever simulate or the judge throw (a harness
 *   failure) stops the search and is rethrown, never shrunk.
 */
import fc from 'fast-check';
import { defaultJudge } from '../properties/explore/defaultJudge.ts';
import { nameSeed } from '../properties/explore/nameSeed.ts';
import type { Judge, Simulate } from '../properties/explore/explore.ts';
import type { RunResult, Violation } from '../sim/run/RunResult.ts';
import type { RunSpec } from '../sim/run/RunSpec.ts';
import { compileScenario } from './compileScenario.ts';
import { stepUnfired } from './judgeScenario.ts';
import { promiseOf, scenarioRepro, simulateScenario, writeScenarioRepro } from './runScenario.ts';
import type { Scenario } from './Scenario.ts';
import { scenarioFacts } from './scenarioFacts.ts';

export interface FuzzOptions {
  readonly runs: number;
  /** fast-check's seed; default a hash of the scenario's name (so a plain rerun repeats). */
  readonly seed?: number;
  /** Where the repro goes; default `reports/out`. */
  readonly outDir?: string;
  readonly simulate?: Simulate;
  readonly judge?: Judge;
  /** Called after each run (not the shrinking ones). */
  readonly progress?: (done: number, total: number) => void;
}

export interface FuzzReport {
  readonly name: string;
  readonly seed: number;
  readonly runs: number;
  readonly violations: number;
  /** Runs in which at least one step did not fire, and the unfired steps summed over runs. */
  readonly runsWithUnfiredSteps: number;
  readonly stepsUnfired: number;
  readonly counterexample?: {
    readonly property: string;
    readonly summary: string;
    readonly timeMs: number;
    readonly traceHash: string;
    readonly seed: string;
    readonly overrides: RunSpec['overrides'];
    readonly reproPath: string;
    readonly replayCommand: string;
  };
}

/** A schedule: which world seed, and which decisions go another way. */
interface Schedule {
  readonly seedIndex: number;
  readonly overrides: readonly { readonly decision: number; readonly alternative: number }[];
}

const schedule: fc.Arbitrary<Schedule> = fc.record({
  seedIndex: fc.nat(1_000_000),
  overrides: fc.uniqueArray(fc.record({ decision: fc.nat(4000), alternative: fc.nat(3) }),
    { maxLength: 6, selector: (o) => o.decision }),
});

export function fuzzScenario(scenario: Scenario, o: FuzzOptions): FuzzReport {
  const { spec: base, steps, targets } = compileScenario(scenario);
  const promise = promiseOf(scenario, base);
  const judge = o.judge ?? defaultJudge;
  const seed = o.seed ?? nameSeed(scenario.name);
  const outDir = o.outDir ?? 'reports/out';
  const file = `repro-scenario-${scenario.name}-fuzz-${seed}.json`;
  const facts = scenarioFacts(scenario);
  const specOf = (s: Schedule): RunSpec => ({
    ...base,
    seed: s.seedIndex === 0 ? base.seed : `${base.seed}/fuzz-${s.seedIndex}`,
    overrides: [...s.overrides].sort((a, b) => a.decision - b.decision),
  });
  let runs = 0;
  let violations = 0;
  let runsWithUnfiredSteps = 0;
  let stepsUnfired = 0;
  let failed = false;
  let harness: { error: unknown } | undefined;
  let last: { spec: RunSpec; result: RunResult; violation: Violation } | undefined;
  const evaluate = (s: Schedule): { spec: RunSpec; result: RunResult; violation: Violation | undefined } => {
    const spec = specOf(s);
    const result = simulateScenario(spec, targets, scenario.input !== undefined, o.simulate);
    return { spec, result, violation: judge(result, promise).violations[0] };
  };
  const property = fc.property(schedule, (s) => {
    if (harness !== undefined) return true;
    let e;
    try {
      e = evaluate(s);
    } catch (error) {
      harness = { error };
      return true;
    }
    if (!failed) {
      runs++;
      let unfired = 0;
      for (let i = 0; i < steps; i++) if (stepUnfired(facts, e.result, i)) unfired++;
      stepsUnfired += unfired;
      if (unfired > 0) runsWithUnfiredSteps++;
      o.progress?.(runs, o.runs);
    }
    if (e.violation === undefined) return true;
    // A fuzz repro has no scenario field: the oracles judged it, and replay judges it so.
    const repro = { ...scenarioRepro(facts, e.spec, e.result, e.violation, promise), stage: 'unshrunk' as const };
    const { scenario: _s, ...plain } = repro;
    if (!failed) {
      failed = true;
      violations++;
      writeScenarioRepro(outDir, file, plain);
    }
    last = { spec: e.spec, result: e.result, violation: e.violation };
    return false;
  });
  const details = fc.check(property, { seed, numRuns: o.runs });
  if (harness !== undefined) throw harness.error;
  const report = { name: scenario.name, seed, runs, violations, runsWithUnfiredSteps, stepsUnfired };
  if (!details.failed || details.counterexample === null) return report;
  const shrunk = evaluate(details.counterexample[0]);
  const kept = shrunk.violation === undefined ? last : { spec: shrunk.spec, result: shrunk.result, violation: shrunk.violation };
  if (kept === undefined) return report;
  const { scenario: _s, ...plain } = scenarioRepro(facts, kept.spec, kept.result, kept.violation, promise);
  const reproPath = writeScenarioRepro(outDir, file, plain);
  return {
    ...report,
    counterexample: {
      property: kept.violation.property,
      summary: kept.violation.summary,
      timeMs: kept.violation.timeMs,
      traceHash: kept.result.traceHash,
      seed: kept.spec.seed,
      overrides: kept.spec.overrides,
      reproPath,
      replayCommand: `npx checkpoint-sim replay ${reproPath}`,
    },
  };
}
