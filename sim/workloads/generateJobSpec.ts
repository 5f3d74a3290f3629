/**
 * Draws a random, valid {@link GeneratedJobSpec} from a random function, for seeded loops in
 * tests and for anything that wants a job without fast-check. (The property suites write their
 * own fast-check arbitraries over the same spec, so they can shrink it.)
 *
 * Invariant: every spec it returns passes validateGeneratedJobSpec.
 */
import {
  FILTER_MENU, FLAT_MAP_MENU, KEY_MENU, KEYED_MENU, MAP_MENU,
} from './generatedFunctions.ts';
import { GENERATED_JOB_LIMITS, validateGeneratedJobSpec } from './generatedJob.ts';
import type { GeneratedJobSpec, GeneratedStage } from './generatedJob.ts';

/** Bounds of the drawn spec (each at most the matching GENERATED_JOB_LIMITS bound). */
export interface GenerateJobSpecOptions {
  /** Default 16. */
  readonly maxSplits?: number;
  /** Default 50. */
  readonly maxRecordsPerSplit?: number;
  /** Default 1000. */
  readonly maxAbsValue?: number;
  /** Default 4. */
  readonly maxStages?: number;
  /** Default 4. */
  readonly maxParallelism?: number;
}

/**
 * A random valid spec. `random` returns numbers in [0, 1) (a seeded stream; the function never
 * reads any other randomness), so the same stream gives the same spec.
 * @throws Error if an option exceeds GENERATED_JOB_LIMITS or is below 1.
 */
export function generateJobSpec(
  random: () => number,
  options: GenerateJobSpecOptions = {},
): GeneratedJobSpec {
  const L = GENERATED_JOB_LIMITS;
  const maxSplits = bound(options.maxSplits ?? L.maxSplits, L.maxSplits, 'maxSplits');
  const maxRecords = bound(
    options.maxRecordsPerSplit ?? 50, L.maxRecordsPerSplit, 'maxRecordsPerSplit',
  );
  const maxAbs = bound(options.maxAbsValue ?? 1000, L.maxAbsValue, 'maxAbsValue');
  const maxStages = bound(options.maxStages ?? 4, L.maxStages, 'maxStages');
  const maxP = bound(options.maxParallelism ?? 4, L.maxParallelism, 'maxParallelism');
  const int = (lo: number, hi: number): number =>
    lo + Math.min(hi - lo, Math.floor(random() * (hi - lo + 1)));
  const index = (menu: readonly unknown[]): number => int(0, menu.length - 1);

  const records = Array.from({ length: int(1, maxSplits) }, () =>
    Array.from({ length: int(0, maxRecords) }, () => int(-maxAbs, maxAbs) + 0));
  const stages: GeneratedStage[] = [];
  let keyed = 0;
  let flatMaps = 0;
  for (let i = int(0, maxStages); i > 0; i--) {
    const parallelism = int(1, maxP);
    const roll = int(0, 3);
    if (roll === 0 && keyed < L.maxKeyedStages) {
      keyed++;
      stages.push({ kind: 'keyed', key: index(KEY_MENU), fn: index(KEYED_MENU), parallelism });
      continue;
    }
    const rebalance = int(0, 3) === 0;
    if (roll === 1 && flatMaps < L.maxFlatMapStages) {
      flatMaps++;
      stages.push({ kind: 'flatMap', fn: index(FLAT_MAP_MENU), parallelism, rebalance });
    } else if (roll === 2) {
      stages.push({ kind: 'filter', fn: index(FILTER_MENU), parallelism, rebalance });
    } else {
      stages.push({ kind: 'map', fn: index(MAP_MENU), parallelism, rebalance });
    }
  }
  const sourceParallelism = int(1, maxP);
  const sinkParallelism = int(1, maxP);
  const top = Math.max(sourceParallelism, sinkParallelism, ...stages.map((st) => st.parallelism));
  const maxParallelism = [top, 128, int(top, 4 * top)][int(0, 2)] ?? 128;
  const spec = { records, stages, sourceParallelism, sinkParallelism, maxParallelism };
  validateGeneratedJobSpec(spec);
  return spec;
}

function bound(value: number, limit: number, what: string): number {
  if (!Number.isInteger(value) || value < 1 || value > limit) {
    throw new Error(`${what} must be an integer in 1..${limit}, got ${value}`);
  }
  return value;
}
