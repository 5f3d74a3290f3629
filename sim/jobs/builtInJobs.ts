/**
 * The built-in jobs as JobDefinitions, so that flights, wordcount and generated jobs take the
 * same path through simulate and the oracles as a user's job module. Each is made from its
 * RunSpec job (the selection, lines, splits or shape) and builds exactly the graph its workload
 * builder builds (sim/workloads/*.ts; a test compares them).
 */
import { consecutiveSplits, twoPhaseCommitSink } from '../../engine/index.ts';
import type { SplitData } from '../../engine/index.ts';
import {
  buildFlightsPipeline, FLIGHTS_UIDS, selectFlights, type Flight,
} from '../workloads/flights.ts';
import {
  buildGeneratedPipeline, generatedSplits, validateGeneratedJobSpec, type GeneratedJobSpec,
} from '../workloads/generatedJob.ts';
import {
  buildWordcountPipeline, WORDCOUNT_DEFAULT_SPLITS, WORDCOUNT_TEXT, WORDCOUNT_UIDS,
} from '../workloads/wordcount.ts';
import { FLIGHTS_JUDGING, WORDCOUNT_JUDGING } from './builtInOutputComparisons.ts';
import type { JobDefinition } from './JobDefinition.ts';

/** Default parallelism of the flights job (DESIGN.md: the main job at parallelism 4). */
export const FLIGHTS_DEFAULT_PARALLELISM = 4;
/** Default number of flights splits. */
export const FLIGHTS_DEFAULT_SPLITS = 16;
/** Default parallelism of the wordcount job. */
export const WORDCOUNT_DEFAULT_PARALLELISM = 1;

/**
 * The flights job over the records `selection` (to exclusive) in `splits` splits (default 16).
 * @throws Error for an invalid selection or split count.
 */
export function flightsDefinition(selection: { readonly from: number; readonly to: number }, splits?: number): JobDefinition<Flight> {
  return {
    name: 'flights',
    parallelism: FLIGHTS_DEFAULT_PARALLELISM,
    input: consecutiveSplits(selectFlights(selection), splits ?? FLIGHTS_DEFAULT_SPLITS),
    build: (env, input) => buildFlightsPipeline(env, input, twoPhaseCommitSink(FLIGHTS_UIDS.sink)),
    judge: FLIGHTS_JUDGING,
  };
}

/**
 * The wordcount job over the first `lines` lines of the built-in text (default all) in
 * `splits` splits (default 4).
 * @throws Error for a bad split count.
 */
export function wordcountDefinition(lines?: number, splits?: number): JobDefinition<string> {
  return {
    name: 'wordcount',
    parallelism: WORDCOUNT_DEFAULT_PARALLELISM,
    input: consecutiveSplits(WORDCOUNT_TEXT.slice(0, lines ?? WORDCOUNT_TEXT.length), splits ?? WORDCOUNT_DEFAULT_SPLITS),
    build: (env, input) => buildWordcountPipeline(env, input, twoPhaseCommitSink(WORDCOUNT_UIDS.sink)),
    judge: WORDCOUNT_JUDGING,
  };
}

/**
 * A generated job of shape `spec` (every stage at the shape's own parallelism: apply a run's
 * parallelism to the shape first, RunJob's generatedShape).
 * @throws InvalidGeneratedJobError for an invalid shape.
 */
export function generatedDefinition(spec: GeneratedJobSpec): JobDefinition<number> {
  validateGeneratedJobSpec(spec);
  return {
    name: 'generated',
    parallelism: spec.sourceParallelism,
    input: generatedSplits(spec),
    build: (env, input: readonly SplitData<number>[]) => buildGeneratedPipeline(env, spec, input, twoPhaseCommitSink('gen-sink')),
  };
}
