/**
 * resolveJob: a RunSpec's `job` as the JobDefinition that runs and the input it runs on. The
 * built-in kinds make their definition from the spec (sim/jobs/builtInJobs.ts); a `module` job
 * is looked up among the loaded job modules (jobModuleRegistry.ts), its input generated or cut
 * to the spec's size.
 */
import type { SplitData } from '../../engine/index.ts';
import type { JobSpec } from '../run/RunSpec.ts';
import { SimInputError } from '../SimInputError.ts';
import { flightsDefinition, generatedDefinition, wordcountDefinition } from './builtInJobs.ts';
import { FLIGHTS_JUDGING, WORDCOUNT_JUDGING } from './builtInOutputComparisons.ts';
import type { JobDefinition, JobInputGenerator } from './JobDefinition.ts';
import { loadedJobModule, type LoadedJobModule } from './jobModuleRegistry.ts';
import { UserCodeGuard } from './userCodeGuard.ts';

/** A spec's job, ready to build. */
export interface ResolvedJob {
  readonly definition: JobDefinition;
  /** How messages name the job: `flights`, `wordcount`, `generated` or the module's label. */
  readonly label: string;
  /** The loaded module, for a `module` job. */
  readonly module?: LoadedJobModule;
  /** The source splits the job runs on (generated, or cut to the spec's size). */
  readonly splits: readonly SplitData<unknown>[];
}

/**
 * Resolves `job` (a generated job's shape as it runs: its parallelism already applied).
 * @throws SimInputError for a module that is not loaded, a size outside the input's range, or
 *   splits that are not `{ id, records }` with unique integer ids; Error from the built-in
 *   workloads for inputs validateRunSpec refuses.
 */
export function resolveJob(job: JobSpec): ResolvedJob {
  switch (job.kind) {
    case 'flights': {
      const definition = flightsDefinition(job.selection, job.splits);
      return { definition, label: 'flights', splits: definition.input as readonly SplitData<unknown>[] };
    }
    case 'wordcount': {
      const definition = wordcountDefinition(job.lines, job.splits);
      return { definition, label: 'wordcount', splits: definition.input as readonly SplitData<unknown>[] };
    }
    case 'generated': {
      const definition = generatedDefinition(job.spec);
      return { definition, label: 'generated', splits: definition.input as readonly SplitData<unknown>[] };
    }
    case 'module': {
      const module = loadedJobModule(job.path, job.export);
      return { definition: module.definition, label: module.label, module, splits: moduleSplits(module, job.size) };
    }
  }
}

const guards = new WeakMap<LoadedJobModule, UserCodeGuard>();

/**
 * The guard of a loaded module (userCodeGuard.ts): its build function, input generator and
 * every function of its graph run under it, so real time or randomness read there is caught
 * and kept (the engine turns an exception in a user function into a task failure).
 */
export function moduleGuard(module: LoadedJobModule): UserCodeGuard {
  let guard = guards.get(module);
  if (guard === undefined) {
    guard = new UserCodeGuard(module.label);
    guards.set(module, guard);
  }
  return guard;
}

/**
 * Throws the first real-time or randomness read of `job`'s module code, if there was one: it is
 * the user's job that is at fault (exit 2), not a violation and not the harness.
 * @throws UserCodeNondeterminismError (a SimInputError).
 */
export function throwUserCodeViolation(job: JobSpec): void {
  if (job.kind !== 'module') return;
  const violation = moduleGuard(loadedJobModule(job.path, job.export)).violation;
  if (violation !== undefined) throw violation;
}

/**
 * How the oracles judge `job` (its definition's `judge`), without building its input: read once
 * per run, after it, so flights' data need not be selected and split again for it.
 */
export function jobJudgingOf(job: JobSpec): JobDefinition['judge'] {
  switch (job.kind) {
    case 'flights': return FLIGHTS_JUDGING;
    case 'wordcount': return WORDCOUNT_JUDGING;
    case 'generated': return undefined;
    case 'module': return loadedJobModule(job.path, job.export).definition.judge;
  }
}

/** Whether a definition's input is a generator. */
export function isInputGenerator(input: JobDefinition['input']): input is JobInputGenerator {
  return !Array.isArray(input) && typeof (input as JobInputGenerator).generate === 'function';
}

/**
 * The range of sizes a definition's input takes: a generator's minSize..maxSize, or
 * 0..(records of the fixed splits); `initial` is the size a spec without one runs.
 * @throws SimInputError for a malformed input.
 */
export function inputSizeRange(definition: JobDefinition, label: string): { min: number; max: number; initial: number } {
  const input = definition.input;
  if (isInputGenerator(input)) {
    const min = input.minSize ?? 1;
    const max = input.maxSize;
    if (!Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max < min) {
      fail(label, `input: minSize and maxSize must be integers with 0 <= minSize <= maxSize, got ${min} and ${max}`);
    }
    const initial = input.defaultSize ?? max;
    if (!Number.isInteger(initial) || initial < min || initial > max) {
      fail(label, `input.defaultSize must be an integer in ${min}..${max}, got ${initial}`);
    }
    return { min, max, initial };
  }
  if (!Array.isArray(input)) fail(label, 'input must be an array of splits { id, records } or a generator { generate(size), maxSize }');
  const total = checkSplits(input as readonly SplitData<unknown>[], label);
  return { min: 0, max: total, initial: total };
}

function moduleSplits(module: LoadedJobModule, size: number | undefined): readonly SplitData<unknown>[] {
  const { definition, label } = module;
  const range = inputSizeRange(definition, label);
  const n = size ?? range.initial;
  if (n < range.min || n > range.max) fail(label, `job.size must be in ${range.min}..${range.max} for this module's input, got ${n}`);
  const input = definition.input;
  if (isInputGenerator(input)) {
    const splits = moduleGuard(module).run('input generator', () => input.generate(n));
    if (!Array.isArray(splits)) fail(label, `input.generate(${n}) must return an array of splits { id, records }`);
    checkSplits(splits, label);
    return splits;
  }
  return cutSplits(input as readonly SplitData<unknown>[], n);
}

/** The first `n` records of `splits` in split order; later splits keep their ids, empty. */
function cutSplits(splits: readonly SplitData<unknown>[], n: number): readonly SplitData<unknown>[] {
  let left = n;
  return splits.map((s) => {
    const take = Math.min(left, s.records.length);
    left -= take;
    return take === s.records.length ? s : { id: s.id, records: s.records.slice(0, take) };
  });
}

/** Checks the shape of splits; returns their number of records. */
function checkSplits(splits: readonly SplitData<unknown>[], label: string): number {
  const ids = new Set<number>();
  let total = 0;
  splits.forEach((s, i) => {
    if (typeof s !== 'object' || s === null || !Number.isInteger(s.id) || s.id < 0 || !Array.isArray(s.records)) {
      fail(label, `input split ${i} must be { id: a non-negative integer, records: an array }`);
    }
    if (ids.has(s.id)) fail(label, `input split ids must be unique, split id ${s.id} appears twice`);
    ids.add(s.id);
    total += s.records.length;
  });
  if (splits.length === 0) fail(label, 'input has no splits');
  return total;
}

function fail(label: string, message: string): never {
  throw new SimInputError(`job module ${label}: ${message}`);
}
