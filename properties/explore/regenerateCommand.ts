/**
 * The `replay --seed S --path P ...` command explore prints for a counterexample, and the check
 * that it really regenerates fast-check's counterexample (explore prints it only then).
 */
import { exploreJobName, type ExploreJob } from '../arbitraries/runSpecArbitrary.ts';
import { DEFAULT_EXPLORE_STRATEGY, type ExploreStrategy } from '../arbitraries/ExploreStrategy.ts';
import type { RunMode, RunSpec } from '../../sim/run/RunSpec.ts';
import { applyFork, type ForkRef } from './restoreFork.ts';
import { regenerateSpec } from './replay.ts';

/** The explore flags that decide which run a seed and path lead to. */
export interface RegenerateFlags {
  readonly job: ExploreJob;
  readonly strategy?: ExploreStrategy;
  readonly expect?: string;
  readonly mutants?: readonly string[];
  readonly maxRecords?: number;
  readonly maxParallelism?: number;
}

/** fast-check's seed and path of a run. */
export interface FastCheckRef {
  readonly seed: number;
  readonly path: string;
}

/**
 * `npx checkpoint-sim replay --seed S --path P --mode M --strategy X ...` with every flag explore
 * ran with that decides the run (job, strategy, expectation, mutants, record and parallelism
 * limits), so it regenerates fast-check's counterexample exactly. The strategy is always said,
 * the default too, so the command stays right if the default changes.
 */
export function regenerateCommand(o: RegenerateFlags, mode: RunMode, fc: FastCheckRef, fork?: ForkRef): string {
  const flags = [`--seed ${fc.seed}`, `--path ${fc.path}`, `--mode ${mode}`, `--job ${exploreJobName(o.job)}`,
    `--strategy ${o.strategy ?? DEFAULT_EXPLORE_STRATEGY}`];
  if (fork !== undefined) flags.push(`--fork ${fork.checkpointId}${fork.rescale === true ? ' --fork-rescale' : ''}`);
  if (o.expect !== undefined) flags.push(`--expect ${o.expect}`);
  if (o.mutants !== undefined && o.mutants.length > 0) flags.push(`--mutant ${o.mutants.join(',')}`);
  if (o.maxRecords !== undefined) flags.push(`--max-records ${o.maxRecords}`);
  if (o.maxParallelism !== undefined) flags.push(`--max-parallelism ${o.maxParallelism}`);
  return `npx checkpoint-sim replay ${flags.join(' ')}`;
}

/**
 * Whether `replay --seed --path` (with `--fork` for a fork's counterexample) would regenerate
 * exactly `spec` (fast-check's counterexample).
 */
export function regenerates(o: RegenerateFlags, mode: RunMode, fc: FastCheckRef, spec: RunSpec, fork?: ForkRef): boolean {
  try {
    const main = regenerateSpec({
      job: o.job, mode, strategy: o.strategy ?? DEFAULT_EXPLORE_STRATEGY, mutants: o.mutants ?? [], seed: fc.seed, path: fc.path,
      ...(o.maxRecords === undefined ? {} : { maxRecords: o.maxRecords }),
      ...(o.maxParallelism === undefined ? {} : { maxParallelism: o.maxParallelism }),
    }).spec;
    const again = fork === undefined ? main : applyFork(main, fork);
    return JSON.stringify(again) === JSON.stringify(spec);
  } catch {
    return false;
  }
}
