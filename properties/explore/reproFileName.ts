/**
 * reproFileName: the name explore gives a counterexample's repro file, shared by the command
 * (`checkpoint-sim explore`) and the library `explore`, so a repro found either way has the same
 * name in its directory.
 */
import { createHash } from 'node:crypto';
import type { RunMode } from '../../sim/run/RunSpec.ts';
import { exploreJobFileName, type ExploreJob } from '../arbitraries/runSpecArbitrary.ts';
import { expectationOf, type Expectation } from './explore.ts';
import { DEFAULT_EXPLORE_STRATEGY, type ExploreStrategy } from '../arbitraries/ExploreStrategy.ts';

/** What the name is made of: the search's settings that tell one search's repros from another's. */
export interface ReproNaming {
  readonly job: ExploreJob;
  readonly seed: number;
  readonly expect: Expectation | undefined;
  readonly maxRecords: number | undefined;
  readonly maxParallelism: number | undefined;
  readonly mutants: readonly string[];
  /** explore's strategy; absent or the default (mixed) adds nothing to the name. */
  readonly strategy?: ExploreStrategy | undefined;
}

/**
 * The repro file's name: `repro-<job>-<mode>-<seed>`, then whatever else changes the search, so
 * runs with different flags in one --out directory keep their own files: `-expect-<promise>`
 * unless it is the mode's own, `-strategy-<s>` unless it is the default (mixed), `-max-records-<n>`,
 * `-max-parallelism-<n>`, and
 * `-mutant-<id>+<id>` (sorted, so the order given does not matter). Ids outside [a-z0-9-] or a
 * long list become `-mutants-<8 hex digits of their sha256>`, so the name stays a short,
 * safe file name and still tells different lists apart.
 */
export function reproFileName(
  s: ReproNaming,
  mode: RunMode,
): string {
  let name = `repro-${exploreJobFileName(s.job)}-${mode}-${s.seed}`;
  if (s.expect !== undefined && s.expect !== expectationOf(mode)) name += `-expect-${s.expect}`;
  if (s.strategy !== undefined && s.strategy !== DEFAULT_EXPLORE_STRATEGY) name += `-strategy-${s.strategy}`;
  if (s.maxRecords !== undefined) name += `-max-records-${s.maxRecords}`;
  if (s.maxParallelism !== undefined) name += `-max-parallelism-${s.maxParallelism}`;
  const mutants = [...new Set(s.mutants)].sort();
  if (mutants.length > 0) {
    const plain = mutants.join('+');
    name += /^[a-z0-9-]+(\+[a-z0-9-]+)*$/.test(plain) && plain.length <= 120 ? `-mutant-${plain}`
      : `-mutants-${createHash('sha256').update(mutants.join(',')).digest('hex').slice(0, 8)}`;
  }
  return `${name}.json`;
}

