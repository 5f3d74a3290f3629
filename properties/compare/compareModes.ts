/**
 * compareModes: the checkpointing modes side by side on the same runs (`checkpoint-sim compare`,
 * docs/compare.md). For each seed index it draws one mode-neutral RunSpec, runs it in every mode
 * with only `checkpoint.mode` changed, judges each run against its own mode's promise
 * (expectationOf), and gathers per run the RunMetrics (runMetrics.ts) and the faults that acted,
 * per mode their distributions, per mode after the first its paired differences per seed index
 * against the first (pairedDifferences.ts), and per mode one seed's run as a checkpoint timeline
 * (representativeSeedIndex).
 *
 * Mode-neutral generation: the specs are explore's (runSpecArbitrary, its swarm strategy), drawn
 * with fast-check's `seed` in one fixed mode, the i-th spec being explore's run i at that seed
 * under `--strategy swarm` (so `replay --seed S --path i --mode M --strategy swarm` regenerates
 * the run of seed index i in mode M). In runSpecArbitrary the mode
 * is no draw: it is copied into `checkpoint.mode` and read nowhere else. The job, parallelism,
 * checkpoint settings, buffer timeout, fault plan and overrides are drawn from streams that never
 * see it; the source pacing (withSourcePacing) and the aiming of faults at tasks and operators
 * (fitToJob) read the job's StreamGraph and JobGraph, whose vertices, chaining and parallelism do
 * not depend on the mode; the expectation is not part of a spec (it is the judge's, per mode);
 * and protocol-point faults are drawn the same in every mode, so a point a mode never reaches
 * (an `aligned` phase in at-least-once mode, say) stays in the plan and shows as a fault that
 * never fired in that mode, which is what compare reports. That is an argument about today's
 * arbitrary; to hold whatever it becomes, {@link compareSpecs} also draws the specs in each
 * compared mode and throws a HarnessError if any differs from the neutral one in more than the
 * mode.
 *
 * Pure and deterministic: the same options give the same report (no clock, no file).
 */
import fc from 'fast-check';
import type { RunMode, RunSpec } from '../../sim/run/RunSpec.ts';
import { exploreJobName, runSpecArbitrary, type ExploreJob } from '../arbitraries/runSpecArbitrary.ts';
import { canonicalString } from '../canonicalString.ts';
import { describeFault } from '../describeFault.ts';
import { expectationOf, HarnessError, type Judge, type Simulate } from '../explore/explore.ts';
import {
  COMPARE_FORMAT, COMPARE_FORMAT_VERSION, type CompareReport, type CompareRun, type Distribution, type MetricKey,
  type ModeFigures, type Timeline,
} from './CompareReport.ts';
import { COMPARE_METRICS } from './compareMetrics.ts';
import { distributionOf } from './distributionOf.ts';
import { actedFaultsOf, differentFaultSeeds, pairedComparisons } from './pairedDifferences.ts';
import { runMetrics } from './runMetrics.ts';
import { timelineOf } from './timelineOf.ts';

export interface CompareOptions {
  readonly job: ExploreJob;
  /** The modes to compare, in report order (distinct). */
  readonly modes: readonly RunMode[];
  /** Seed indexes: runs per mode (a positive integer). */
  readonly seeds: number;
  /** fast-check seed of the whole comparison (a 32-bit signed integer). */
  readonly seed: number;
  /** Largest input and parallelism per run, as explore's (runSpecArbitrary defaults: 2000 and 4). */
  readonly maxRecords?: number;
  readonly maxParallelism?: number;
  readonly simulate: Simulate;
  readonly judge: Judge;
  /** checkpoint-sim's version, written into the report. */
  readonly version: string;
  /** Called after each run with the runs done and the total (seeds x modes). */
  readonly progress?: (done: number, total: number) => void;
}

/** The mode the neutral specs are drawn in; each run then takes its own. Any fixed mode would do. */
export const GENERATION_MODE: RunMode = 'aligned';

/** `spec` in `mode`: the same spec with `checkpoint.mode` changed (and, in mode none, without its rescales). */
export function specInMode(spec: RunSpec, mode: RunMode): RunSpec {
  if (mode !== 'none') return { ...spec, checkpoint: { ...spec.checkpoint, mode } };
  // Without checkpointing there is no snapshot to restore a new job run from: the history keeps
  // its one run (the arbitrary draws it so in mode none, too).
  const { retention: _retention, ...checkpoint } = spec.checkpoint;
  const actions = (spec.actions ?? []).filter((a) => a.type !== 'rescale');
  const { actions: _actions, ...rest } = spec;
  return { ...rest, ...(actions.length === 0 ? {} : { actions }), checkpoint: { ...checkpoint, mode } };
}

/**
 * The mode-neutral spec of every seed index (in GENERATION_MODE; see the file comment).
 * @throws HarnessError when the arbitrary draws another spec in one of `o.modes` than the neutral
 * one in that mode (it no longer keeps the mode out of its draws).
 */
export function compareSpecs(o: Pick<CompareOptions, 'job' | 'modes' | 'seeds' | 'seed' | 'maxRecords' | 'maxParallelism'>): RunSpec[] {
  // Drawn as explore's swarm strategy draws (what explore drew before strategies, so that a
  // comparison at a seed stays what it was): `replay --seed --path --strategy swarm` regenerates a run.
  const draw = (mode: RunMode): RunSpec[] => fc.sample(runSpecArbitrary({
    job: o.job, mode, strategy: 'swarm',
    ...(o.maxRecords === undefined ? {} : { maxRecords: o.maxRecords }),
    ...(o.maxParallelism === undefined ? {} : { maxParallelism: o.maxParallelism }),
  }), { seed: o.seed, numRuns: o.seeds });
  const neutral = draw(GENERATION_MODE);
  for (const mode of o.modes) {
    if (mode === GENERATION_MODE) continue;
    draw(mode).forEach((own, i) => {
      const base = neutral[i] as RunSpec;
      if (canonicalString(own) !== canonicalString(specInMode(base, mode))) {
        throw new HarnessError(`compare: the spec of seed index ${i} drawn in mode ${mode} differs from the one drawn `
          + `in ${GENERATION_MODE} in more than the mode (runSpecArbitrary draws something from the mode)`);
      }
    });
  }
  return neutral;
}

/**
 * Runs the comparison; see the file comment.
 * @throws RangeError when `seeds` is not a positive integer or `modes` is empty or repeats a mode;
 * HarnessError (compareSpecs); whatever simulate or the judge throw, as it is.
 */
export function compareModes(o: CompareOptions): CompareReport {
  if (!Number.isInteger(o.seeds) || o.seeds < 1) throw new RangeError(`seeds must be a positive integer, got ${o.seeds}`);
  if (o.modes.length === 0 || new Set(o.modes).size !== o.modes.length) {
    throw new RangeError(`modes must be one or more distinct modes, got [${o.modes.join(', ')}]`);
  }
  const specs = compareSpecs(o);
  const total = o.seeds * o.modes.length;
  const runs: CompareRun[] = [];
  /** Per seed index, each mode's timeline (small: a few checkpoints, faults and restores). */
  const timelinesBySeed: Record<string, Timeline>[] = [];
  specs.forEach((neutral, seedIndex) => {
    for (const mode of o.modes) {
      const spec = specInMode(neutral, mode);
      const expect = expectationOf(mode);
      const result = o.simulate(spec);
      const judgement = o.judge(result, expect);
      runs.push({
        seedIndex,
        runSeed: spec.seed,
        mode,
        traceHash: result.traceHash,
        expect,
        violations: judgement.violations.map((v) => ({ property: v.property, summary: v.summary })),
        unfiredFaults: [...result.unfiredFaults],
        unfiredFaultTexts: result.unfiredFaults.map((i) => {
          const f = spec.faults[i];
          return f === undefined ? `fault ${i}` : describeFault(f);
        }),
        actedFaults: actedFaultsOf(result),
        firedActions: (spec.actions ?? []).flatMap((_a, i) => (result.unfiredActions.includes(i) ? [] : [i])),
        metrics: runMetrics(result, judgement),
      });
      (timelinesBySeed[seedIndex] ??= {})[mode] = timelineOf(spec, result);
      o.progress?.(runs.length, total);
    }
  });
  const differentFaults = differentFaultSeeds(o.modes, runs);
  const shown = representativeSeedIndex(o.modes, timelinesBySeed, differentFaults);
  const byMode: Record<string, ModeFigures> = {};
  for (const mode of o.modes) byMode[mode] = modeFigures(runs.filter((r) => r.mode === mode));
  return {
    format: COMPARE_FORMAT,
    formatVersion: COMPARE_FORMAT_VERSION,
    checkpointSimVersion: o.version,
    job: exploreJobName(o.job),
    seed: o.seed,
    seeds: o.seeds,
    modes: [...o.modes],
    runs,
    byMode,
    differentFaults,
    paired: pairedComparisons(o.modes, runs),
    timelines: timelinesBySeed[shown] ?? {},
  };
}

/**
 * The seed index whose runs the report draws as timelines, the same for every mode so the
 * timelines are of one spec. Runs in which the same faults acted in every mode come first (else
 * the timelines would show one mode meeting a fault the other never met); among those, the first
 * at which every mode's run restored from a checkpoint (a failure, a restore and the recovery to
 * the next checkpoint show what the modes do differently), else the first at which a fault acted.
 * Without such a seed index, the first where every mode restored, else the first where a fault
 * acted in every mode, else 0. `differentFaults`: the seed indexes where the modes met different
 * faults (the report's, differentFaultSeeds).
 */
export function representativeSeedIndex(modes: readonly RunMode[], bySeed: readonly Record<string, Timeline>[],
  differentFaults: readonly number[]): number {
  const every = (p: (t: Timeline) => boolean) => (ts: Record<string, Timeline>): boolean => modes.every((m) => {
    const t = ts[m];
    return t !== undefined && p(t);
  });
  const different = new Set(differentFaults);
  const restored = every((t) => t.restores.length > 0);
  const faulted = every((t) => t.faults.length > 0);
  for (const p of [
    (ts: Record<string, Timeline>, i: number) => !different.has(i) && restored(ts),
    (ts: Record<string, Timeline>, i: number) => !different.has(i) && faulted(ts),
    restored,
    faulted,
  ]) {
    const i = bySeed.findIndex(p);
    if (i >= 0) return i;
  }
  return 0;
}

/** One mode's figures over its runs (seed order). */
export function modeFigures(runs: readonly CompareRun[]): ModeFigures {
  const distributions = {} as Record<MetricKey, Distribution>;
  for (const m of COMPARE_METRICS) distributions[m.key] = distributionOf(runs.map((r) => r.metrics[m.key]));
  return {
    runs: runs.length,
    violations: runs.filter((r) => r.violations.length > 0).length,
    unfiredFaults: runs.reduce((n, r) => n + r.unfiredFaults.length, 0),
    distributions,
  };
}
