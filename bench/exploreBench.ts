/**
 * Explore benchmark (issue 5, `bench --json` field `explore`): how many generated runs per real
 * second one explore worker simulates and judges. The work per run is what explore does for a
 * run that is neither sampled for the restore fan-out (oracle 2) nor for the determinism rerun
 * (oracle 8): `simulate` storing the whole trace, as explore does (the oracles read all of it),
 * then the default judge, i.e. every oracle judgeRun applies (consistent cut, end-to-end
 * exactly-once, protocol, storage, liveness) plus the duplicate count against the reference fold.
 *
 * The runs are a fixed list of {@link SPEC_COUNT} RunSpecs drawn once with fast-check from a
 * fixed seed: a generated job shape (generatedJobArbitrary) fed exactly {@link RECORDS} records
 * in two to four splits, every operator at parallelism 2 (one TaskManager with two slots),
 * aligned checkpoints every {@link INTERVAL_MS} ms, and exactly one fault: taskmanager-1
 * crashes at a time mid-run and restarts {@link DOWN_MS} ms later, before the heal time.
 *
 * Every run must end FINISHED without violations (a violation is a bug and fails the bench),
 * and at least {@link MIN_RESTORED_SHARE} of the runs must restore from a checkpoint, so the
 * figure always measures crash recovery that actually happened.
 *
 * "On one core": the benchmark runs in this one thread, one run after another (explore's
 * workers are separate processes, one per core); nothing here runs in parallel.
 * The figure is the median of 5 repetitions after {@link WARM_UP_PASSES} warm-up passes.
 */
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { generatedJobArbitrary } from '../properties/arbitraries/generatedJobArbitrary.ts';
import { defaultJudge } from '../properties/explore/defaultJudge.ts';
import { RUN_SPEC_VERSION, type RunSpec } from '../sim/run/RunSpec.ts';
import { simulate } from '../sim/run/simulate.ts';
import { median } from './median.ts';

export interface ExploreBenchResult {
  /** Generated runs simulated and judged per real second (one thread). */
  readonly runsPerSec: number;
}

/** How many specs one repetition runs. */
const SPEC_COUNT = 50;
/** Records per generated job. */
const RECORDS = 200;
const PARALLELISM = 2;
/** Per-record cost of the source, ms: 100 records per subtask span about 100 ms virtual. */
const SOURCE_COST_MS = 1;
const INTERVAL_MS = 20;
/** The crash fires in [CRASH_FROM_MS, CRASH_TO_MS], mid-run and after the first checkpoints. */
const CRASH_FROM_MS = 60;
const CRASH_TO_MS = 110;
const DOWN_MS = 30;
const HEAL_TIME_MS = 180;
/** The least share of runs that must restore from a checkpoint. */
const MIN_RESTORED_SHARE = 0.8;
const SEED = 5;
/**
 * Passes over the specs before anything is measured. One pass was not enough: V8 keeps
 * optimizing this workload for about fifteen passes (750 runs). Measured in a fresh process with
 * NODE_FLAGS, runs/s per pass: 50, 109, 89, 114, 145, 149, 143, 155, 171, 206, 210, 220, 225,
 * 216, 242, 255, then 190-265; another process: 59, 107, ..., 169, 172, 173, 149, 166, 167, 196,
 * 254, 241. So a short warm-up measured the JIT at work, not the steady rate that explore runs
 * at for nearly all of its time budget (a 60 s explore of such jobs simulates thousands of
 * runs). As in the engine bench, warm-up costs time (about 4 s here), not fidelity.
 */
const WARM_UP_PASSES = 16;

/** The fixed list of specs (the same on every call). */
export function exploreBenchSpecs(): RunSpec[] {
  const arbitrary = fc.record({
    shape: generatedJobArbitrary({ maxRecords: RECORDS, maxParallelism: PARALLELISM }),
    values: fc.array(fc.integer({ min: -1000, max: 1000 }),
      { minLength: RECORDS, maxLength: RECORDS }),
    splits: fc.integer({ min: 2, max: 4 }),
    crashAtMs: fc.integer({ min: CRASH_FROM_MS, max: CRASH_TO_MS }),
    seed: fc.integer({ min: 0, max: 0x7fffffff }),
  });
  return fc.sample(arbitrary, { seed: SEED, numRuns: SPEC_COUNT }).map((d): RunSpec => {
    const per = Math.ceil(RECORDS / d.splits);
    const records = Array.from({ length: d.splits },
      (_x, i) => d.values.slice(i * per, (i + 1) * per));
    return {
      version: RUN_SPEC_VERSION,
      seed: `s${d.seed}`,
      job: { kind: 'generated', spec: { ...d.shape, records } },
      parallelism: PARALLELISM,
      maxParallelism: Math.max(PARALLELISM, d.shape.maxParallelism),
      costsMs: { 'gen-source': SOURCE_COST_MS },
      checkpoint: { mode: 'aligned', intervalMs: INTERVAL_MS },
      restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
      faults: [
        { type: 'crash', host: 'taskmanager-1', when: { atMs: d.crashAtMs }, downMs: DOWN_MS },
      ],
      healTimeMs: HEAL_TIME_MS,
      budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 },
      overrides: [],
      mutations: [],
    };
  });
}

/**
 * Simulates and judges every spec once; returns the real seconds it took.
 * @throws Error when a run does not finish, a run has a violation, or too few runs restore.
 */
function exploreOnce(specs: readonly RunSpec[]): number {
  let restored = 0;
  const t0 = performance.now();
  for (const spec of specs) {
    const result = simulate(spec);
    const judgement = defaultJudge(result, 'exactly-once');
    if (result.jobStatus !== 'FINISHED') {
      throw new Error(`explore bench run ${spec.seed} ended ${result.jobStatus}`);
    }
    const violation = judgement.violations[0];
    if (violation !== undefined) {
      throw new Error(
        `explore bench run ${spec.seed} violates ${violation.property}: ${violation.summary}`,
      );
    }
    if (result.restores > 0) restored++;
  }
  const seconds = (performance.now() - t0) / 1000;
  if (restored < MIN_RESTORED_SHARE * specs.length) {
    throw new Error(
      `explore bench: only ${restored} of ${specs.length} runs restored from a checkpoint`,
    );
  }
  return seconds;
}

/** Runs per second, the median of 5 repetitions after {@link WARM_UP_PASSES} warm-up passes. */
export function benchExplore(): ExploreBenchResult {
  const specs = exploreBenchSpecs();
  for (let i = 0; i < WARM_UP_PASSES; i++) exploreOnce(specs);
  const rates = Array.from({ length: 5 }, () => specs.length / exploreOnce(specs));
  return { runsPerSec: median(rates) };
}
