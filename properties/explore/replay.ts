/**
 * replay: runs a repro's RunSpec again (or regenerates a RunSpec from fast-check's seed and
 * path) and says whether the trace hash is still the same, whether the property still fails,
 * and which of its faults never fired (their trigger was never reached), whatever the verdict:
 * a fault that never fired explains nothing in the run, and a reader should not look for it.
 */
import fc from 'fast-check';
import type { TraceEvent } from '../../sim/Trace.ts';
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';
import type { Fault, RunMode, RunSpec } from '../../sim/run/RunSpec.ts';
import type { ExploreJob } from '../arbitraries/runSpecArbitrary.ts';
import { drawnRunArbitrary, type DrawnRun } from '../arbitraries/drawnRunArbitrary.ts';
import type { ExploreStrategy } from '../arbitraries/ExploreStrategy.ts';
import { describeFault } from '../describeFault.ts';
import { decisiveEvents } from '../oracles/decisiveEvents.ts';
import { explainRun, type Explanation } from '../explain/explainRun.ts';
import type { Expectation, Judge, Judgement, Simulate } from './explore.ts';
import type { Repro } from './Repro.ts';

/** A fault of the replayed spec that never fired. */
export interface UnfiredFault {
  /** Its index in `spec.faults`. */
  readonly index: number;
  readonly fault: Fault;
  /** describeFault's phrase, e.g. `crash taskmanager-1 at checkpoint 9 acked on v1#0`. */
  readonly description: string;
}

export interface ReplayOutcome {
  readonly spec: RunSpec;
  readonly traceHash: string;
  /** Undefined when there was no recorded hash to compare with. */
  readonly sameTraceHash: boolean | undefined;
  readonly stillFails: boolean;
  readonly violation: Violation | undefined;
  /**
   * For people: the decisive events (the latest faults, failovers and restores, then the last
   * events; oracles/decisiveEvents.ts) before the violation, or before the run's end when it
   * holds (so a run that holds still shows what its faults did).
   */
  readonly excerpt: readonly TraceEvent[];
  /** Why it failed (or, when it holds, what its restores went back to): properties/explain. */
  readonly explanation: Explanation;
  /** The spec's faults that never fired in this run, in index order. */
  readonly unfiredFaults: readonly UnfiredFault[];
  /** The spec's overrides of decisions this run never reached (they changed nothing). */
  readonly unusedOverrides: RunResult['unusedOverrides'];
  readonly result: RunResult;
  /** What the judge said: also what it could not judge (the final state, a stuck stop). */
  readonly judgement: Judgement;
}

/** Replays `spec`, comparing with `recordedHash` when given. */
export function replaySpec(
  spec: RunSpec, expect: Expectation, deps: { simulate: Simulate; judge: Judge }, recordedHash?: string,
): ReplayOutcome {
  const result = deps.simulate(spec);
  const judgement = deps.judge(result, expect);
  const violation = judgement.violations[0];
  return {
    spec,
    traceHash: result.traceHash,
    sameTraceHash: recordedHash === undefined ? undefined : recordedHash === result.traceHash,
    stillFails: violation !== undefined,
    violation,
    excerpt: decisiveEvents(result.trace, violation === undefined ? result.outcome.timeMs : violation.timeMs, 20),
    explanation: explainRun(result, violation),
    unfiredFaults: result.unfiredFaults.map((index) => {
      const fault = spec.faults[index] as Fault;
      return { index, fault, description: describeFault(fault) };
    }),
    unusedOverrides: result.unusedOverrides,
    result,
    judgement,
  };
}

/** Replays a repro file's run, judged as its mode expects. */
export function replayRepro(repro: Repro, deps: { simulate: Simulate; judge: Judge }, expect?: Expectation): ReplayOutcome {
  return replaySpec(repro.spec, expect ?? repro.expect, deps, repro.traceHash);
}

/** A fast-check path that does not lead to a run of the given seed and flags (bad input). */
export class ReplayPathError extends Error {
  override readonly name = 'ReplayPathError';
}

/**
 * The run explore generated at fast-check `seed` and `path` with these flags (the first segment
 * of the path is the run index; the rest, if any, the shrink steps): its RunSpec and the
 * strategy that drew it (under `mixed`, one of the others).
 * @throws ReplayPathError when the path leads nowhere (a shrink step past the last shrink).
 */
export function regenerateSpec(o: {
  job: ExploreJob; mode: RunMode; strategy: ExploreStrategy; mutants: readonly string[]; seed: number; path: string;
  maxRecords?: number; maxParallelism?: number;
}): DrawnRun {
  const arb = drawnRunArbitrary({
    job: o.job, mode: o.mode, strategy: o.strategy, mutations: o.mutants,
    ...(o.maxRecords === undefined ? {} : { maxRecords: o.maxRecords }),
    ...(o.maxParallelism === undefined ? {} : { maxParallelism: o.maxParallelism }),
  });
  let captured: DrawnRun | undefined;
  const nowhere = `--path ${o.path} does not lead to a run of seed ${o.seed} with these flags`;
  try {
    fc.check(fc.property(arb, (drawn) => {
      captured = drawn;
      return false;
    }), { seed: o.seed, path: o.path, endOnFailure: true, numRuns: 1 });
  } catch (e) {
    // fast-check throws a plain Error when a shrink step of the path does not exist: the
    // path is wrong, not the harness. Its message is the only thing that tells it apart.
    if (e instanceof Error && e.message.startsWith('Unable to replay')) throw new ReplayPathError(nowhere, { cause: e });
    throw e;
  }
  if (captured === undefined) throw new ReplayPathError(nowhere);
  return captured;
}
