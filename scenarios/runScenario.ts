/**
 * runScenario: runs one scenario and judges it (docs/scenarios.md).
 *
 * It compiles the scenario into a RunSpec (compileScenario.ts; bad input throws a one-line
 * SimInputError naming the scenario's field), simulates it, and judges the run
 * (judgeScenario.ts): the standing oracles under the scenario's promise (default by mode:
 * aligned exactly-once, at-least-once and none at-least-once), every step fired, then the
 * expectations. A failure writes a repro file first (properties/explore/Repro.ts, with a
 * `scenario` field so `checkpoint-sim replay <file>` judges the same thing), before anything
 * else can go wrong, then builds the message: what failed, the virtual time, a few events around
 * it, and the replay command.
 *
 * Returns `{ name, passed, traceHash, stepsFired, stepsTotal, failure?, reproPath?,
 * replayCommand? }`; `failure.kind` is `oracle` (a standing oracle's property), `step` or
 * `expectation`.
 */
import { mkdirSync } from 'node:fs';
import { writePortableRepro } from '../properties/jobModules/portableRepro.ts';
import { join, relative, resolve } from 'node:path';
import { expectationOf, type Judge, type Simulate } from '../properties/explore/explore.ts';
import { REPRO_FORMAT_VERSION, type Repro } from '../properties/explore/Repro.ts';
import { decisiveEvents } from '../properties/oracles/decisiveEvents.ts';
import type { RunResult, Violation } from '../sim/run/RunResult.ts';
import type { RunSpec } from '../sim/run/RunSpec.ts';
import { simulate } from '../sim/run/simulate.ts';
import { SimInputError } from '../sim/SimInputError.ts';
import type { TraceEvent } from '../sim/Trace.ts';
import { checkpointSimVersion } from './checkpointSimVersion.ts';
import { compileScenario, type StepTarget } from './compileScenario.ts';
import { judgeScenario, type ScenarioFacts, type ScenarioViolationDetails } from './judgeScenario.ts';
import type { Scenario, ScenarioPromise } from './Scenario.ts';
import { scenarioFacts } from './scenarioFacts.ts';
import { specErrorPath } from './specErrorPath.ts';

export interface RunScenarioOptions {
  /** Where a failure's repro is written (created if missing); default `reports/out` under the working directory. */
  readonly outDir?: string;
  /** Default simulate (tests inject their own). */
  readonly simulate?: Simulate;
  /** The standing oracles; default defaultJudge. */
  readonly judge?: Judge;
}

export interface ScenarioFailure {
  readonly kind: 'oracle' | 'step' | 'expectation';
  /** The oracle's property, `scenario-step` or `scenario-expectation`. */
  readonly property: string;
  /** For people: what failed, the time, events around it, the replay command. */
  readonly message: string;
  /** The one-line summary (the message's first line without the scenario's name). */
  readonly summary: string;
  readonly timeMs?: number;
  readonly events?: readonly { readonly timeMs: number; readonly host: string; readonly type: string; readonly attrs: unknown }[];
}

export interface ScenarioResult {
  readonly name: string;
  readonly passed: boolean;
  readonly traceHash: string;
  readonly stepsFired: number;
  readonly stepsTotal: number;
  readonly failure?: ScenarioFailure;
  readonly reproPath?: string;
  readonly replayCommand?: string;
  /**
   * The run's stop-with-savepoint waits forever (a lost confirmation or abort): liveness did not
   * judge it, a known Flink 1.20 outcome the scenario's own expectations speak for.
   */
  readonly knownStuck?: true;
  /**
   * The job runs of a history of several (a rescale step): each run's index, parallelism by
   * operator uid, what it was restored from and the status it ended in. Absent for one run.
   */
  readonly jobRuns?: readonly {
    readonly index: number; readonly parallelism: Readonly<Record<string, number>>; readonly status: string;
    readonly restoredFrom?: { readonly jobRun: number; readonly checkpointId: number; readonly claimMode: string; readonly savepoint: boolean };
  }[];
}

/** The promise a scenario is judged against. */
export function promiseOf(s: Scenario, spec: RunSpec): ScenarioPromise {
  return s.promise ?? expectationOf(spec.checkpoint.mode);
}

/** Simulates `spec`, its errors named with the scenario's paths (`targets`: where each step went). */
export function simulateScenario(spec: RunSpec, targets: readonly StepTarget[], input: boolean,
  sim: Simulate = (x) => simulate(x)): RunResult {
  try {
    return sim(spec);
  } catch (e) {
    if (e instanceof SimInputError) throw new SimInputError(specErrorPath(e.message, { targets, input }), { cause: e });
    throw e;
  }
}

/** The repro of a failed scenario run. */
export function scenarioRepro(facts: ScenarioFacts, spec: RunSpec, result: RunResult, v: Violation,
  promise: ScenarioPromise, fastCheck?: Repro['fastCheck']): Repro {
  return {
    format: 'checkpoint-sim-repro',
    formatVersion: REPRO_FORMAT_VERSION,
    checkpointSimVersion: checkpointSimVersion(),
    property: v.property,
    expect: promise,
    summary: v.summary,
    traceHash: result.traceHash,
    stage: 'shrunk',
    ...(fastCheck === undefined ? {} : { fastCheck }),
    spec,
    scenario: {
      name: facts.name, steps: facts.steps, points: facts.points.map((p) => p ?? null),
      ...(facts.targets === undefined ? {} : { targets: facts.targets }), expect: facts.expect,
    },
  };
}

/** Writes `repro` as `<outDir>/<file>`; returns the path as a person would type it. */
export function writeScenarioRepro(outDir: string, file: string, repro: Repro): string {
  const dir = resolve(outDir);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, file);
  writePortableRepro(path, repro);
  const rel = relative(process.cwd(), path);
  return rel.startsWith('..') ? path : rel;
}

const line = (e: TraceEvent): string => `  ${(e.timeUs / 1000).toFixed(3)} ms ${e.host} ${e.type} ${JSON.stringify(e.attrs)}`;

/** The events a failure shows: those its verdict rests on, else the decisive events before it. */
function eventsOf(v: Violation, result: RunResult): readonly TraceEvent[] {
  const own = (v.details as Partial<ScenarioViolationDetails> | null)?.events;
  if (own !== undefined && own.length > 0) return own;
  return decisiveEvents(result.trace, v.timeMs, 8);
}

/** Runs and judges `scenario`; see the file comment. @throws SimInputError for a bad scenario. */
export function runScenario(scenario: Scenario, options: RunScenarioOptions = {}): ScenarioResult {
  const { spec, steps, targets } = compileScenario(scenario);
  const result = simulateScenario(spec, targets, scenario.input !== undefined, options.simulate);
  const promise = promiseOf(scenario, spec);
  const facts = scenarioFacts(scenario);
  const verdict = judgeScenario(facts, result, promise, options.judge);
  const base = {
    name: scenario.name, traceHash: result.traceHash, stepsFired: verdict.stepsFired, stepsTotal: steps,
    ...(verdict.judgement.knownStuck === true ? { knownStuck: true as const } : {}),
    ...(result.jobRuns.length > 1 ? {
      jobRuns: result.jobRuns.map((r) => ({
        index: r.index, parallelism: r.parallelism, status: r.status,
        ...(r.restoredFrom === undefined ? {} : { restoredFrom: {
          jobRun: r.restoredFrom.jobRun, checkpointId: r.restoredFrom.checkpointId, claimMode: r.restoredFrom.claimMode, savepoint: r.restoredFrom.savepoint,
        } }),
      })),
    } : {}),
  };
  const v = verdict.violations[0];
  if (v === undefined) return { ...base, passed: true };
  const reproPath = writeScenarioRepro(options.outDir ?? 'reports/out', `repro-scenario-${scenario.name}.json`,
    scenarioRepro(facts, spec, result, v, promise));
  const replayCommand = `npx checkpoint-sim replay ${reproPath}`;
  const kind = v.property === 'scenario-step' ? 'step' : v.property === 'scenario-expectation' ? 'expectation' : 'oracle';
  const events = eventsOf(v, result);
  const summary = kind === 'oracle' ? `${v.property} violated at ${v.timeMs} ms: ${v.summary}` : v.summary;
  const message = [
    `scenario ${scenario.name} failed: ${summary}`,
    ...(events.length === 0 ? [] : ['events around it:', ...events.map(line)]),
    `replay: ${replayCommand}`,
  ].join('\n');
  return {
    ...base,
    passed: false,
    failure: {
      kind, property: v.property, summary, message, timeMs: v.timeMs,
      events: events.map((e) => ({ timeMs: e.timeUs / 1000, host: e.host, type: e.type, attrs: e.attrs })),
    },
    reproPath,
    replayCommand,
  };
}
