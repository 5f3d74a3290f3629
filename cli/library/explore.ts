/**
 * The library `explore`: `import { explore } from 'checkpoint-sim'` in a user's vitest (or any
 * test runner's) file. It runs the search `checkpoint-sim explore` runs, on a job module, and is
 * used as an assertion in the manner of fast-check's `fc.assert`: it resolves with the report
 * when no run violated a property, and rejects with an {@link ExploreFailure} when one did, whose
 * message has the property, the violation's summary, the causal events (properties/explain), the
 * fast-check seed and path, the repro file and the command that replays it. The repro is on disk
 * before the promise rejects (explore writes the unshrunk one at the first violation, then the
 * shrunk one over it), so a failure found in CI is never lost to what follows.
 *
 * The job is a module path (and export), never a JobDefinition object: a repro must name a
 * module that `checkpoint-sim replay` can load in another process, and a job defined inline in a
 * test file is not one (importing the test file would run the tests).
 *
 * Real time is read here (the time budget, the report's wall time), as in cli/: the search itself
 * stays deterministic, the same options giving the same runs.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExploreJob } from '../../properties/arbitraries/runSpecArbitrary.ts';
import { exploreJobName } from '../../properties/arbitraries/runSpecArbitrary.ts';
import { formatExplanation } from '../../properties/explain/formatExplanation.ts';
import { defaultJudge } from '../../properties/explore/defaultJudge.ts';
import { formatDetails } from '../../properties/explore/formatDetails.ts';
import {
  BUILT_MODES, explore as search, type Counterexample, type Expectation, type ExploreReport,
} from '../../properties/explore/explore.ts';
import { nameSeed } from '../../properties/explore/nameSeed.ts';
import { EXPLORE_STRATEGIES, isExploreStrategy, type ExploreStrategy } from '../../properties/arbitraries/ExploreStrategy.ts';
import { reproFileName } from '../../properties/explore/reproFileName.ts';
import { loadJobModule } from '../../properties/jobModules/loadJobModule.ts';
import { writePortableRepro } from '../../properties/jobModules/portableRepro.ts';
import { PLANTED_BUG_IDS } from '../../engine/index.ts';
import { isJobDefinition } from '../../sim/jobs/JobDefinition.ts';
import { AVAILABLE_MODES, type RunMode } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { MAX_RUN_PARALLELISM } from '../../sim/run/validateRunSpec.ts';
import { SimInputError } from '../../sim/SimInputError.ts';
import { checkpointSimVersion } from '../../scenarios/checkpointSimVersion.ts';
import { BUILT_IN_JOBS, splitModuleExport } from '../jobModuleFiles.ts';
import { prepareOutDir } from '../outDir.ts';
import { UsageError } from '../UsageError.ts';

/** Runs per mode when neither `runs` nor `timeBudgetMs` is given: a CI-sized default. */
export const LIBRARY_DEFAULT_RUNS = 100;

/** The job given to the library explore: a module's path or file URL (`#export` allowed), or both parts. */
export type ExploreJobModule = string | URL | { readonly path: string | URL; readonly export?: string };

/** Options of the library {@link explore}. */
export interface ExploreJobOptions {
  /**
   * The job module: a path (relative to the working directory, or absolute) or a `file:` URL,
   * either with `#exportName` to pick a named export (`new URL('./ledger.ts#buggy',
   * import.meta.url)` names a module beside the test file); or `{ path, export }`. A built-in
   * job's name (`flights`, `wordcount`, `generated`) is taken too.
   */
  readonly job: ExploreJobModule;
  /** The modes to explore, each with its own runs: a list, or `'all'` (default: aligned and at-least-once). */
  readonly modes?: readonly RunMode[] | 'all';
  /** Runs per mode (default {@link LIBRARY_DEFAULT_RUNS}); a mode stops at its first violation. */
  readonly runs?: number;
  /** A wall-clock budget in ms shared by all modes, instead of `runs` (at least 1000). */
  readonly timeBudgetMs?: number;
  /**
   * fast-check's seed, a 32-bit signed integer. Default: a hash of the job's name, so a test
   * explores the same runs every time it runs (pass a seed to explore others).
   */
  readonly seed?: number;
  /** The promise judged; default what each mode promises (exactly-once for aligned). */
  readonly expect?: Expectation;
  /** Planted bugs of the engine to switch on (`checkpoint-sim mutants list`). */
  readonly mutants?: readonly string[];
  /** The largest input size a run draws (default: the module's `maxSize`). */
  readonly maxRecords?: number;
  /** The largest parallelism a run draws (at most MAX_RUN_PARALLELISM, 64). */
  readonly maxParallelism?: number;
  /**
   * How runs are drawn: `mixed` (default: per run one of the others), `uniform`, `swarm`, `pct`
   * or `targeted` (docs/strategies.md).
   */
  readonly strategy?: ExploreStrategy;
  /** Where repros are written, relative to the working directory; default `reports/out`. */
  readonly outDir?: string;
  /** Called after each run: the mode, runs done, and the mode's total (undefined under a time budget). */
  readonly progress?: (mode: RunMode, done: number, total: number | undefined) => void;
}

/**
 * A violation found by the library explore. Its message is what a person needs (see the file
 * comment); the fields are the same facts as data.
 */
export class ExploreFailure extends Error {
  override readonly name = 'ExploreFailure';
  constructor(
    message: string,
    /** The whole report (every mode's figures). */
    readonly report: ExploreReport,
  ) {
    super(message);
  }

  /** The counterexamples, one per mode that found one; the first is in the message's first line. */
  get counterexamples(): readonly Counterexample[] {
    return this.report.counterexamples;
  }
}

/**
 * Explores the job module `o.job` under generated faults and schedules and judges every run with
 * the oracles, as `checkpoint-sim explore --job <module>` does.
 *
 * @returns the report (per mode: runs, checkpoints, restores, unjudged and unfired counts), when
 *   no run violated a property.
 * @throws ExploreFailure when a run did, after its shrunk repro was written.
 * @throws SimInputError (one line) for bad options, a JobDefinition given instead of a module,
 *   a module that cannot be loaded, or user code that read real time or randomness.
 * @throws HarnessError when the harness itself broke (a determinism self-check failed).
 */
export async function explore(o: ExploreJobOptions): Promise<ExploreReport> {
  const job = await loadJob(o.job);
  const modes = modesOf(o.modes);
  const runs = positive('runs', o.runs);
  const timeBudgetMs = positive('timeBudgetMs', o.timeBudgetMs);
  if (runs !== undefined && timeBudgetMs !== undefined) throw new SimInputError('explore: give runs or timeBudgetMs, not both');
  if (timeBudgetMs !== undefined && timeBudgetMs < 1000) throw new SimInputError(`explore: timeBudgetMs must be at least 1000, got ${timeBudgetMs}`);
  const seed = o.seed ?? nameSeed(exploreJobName(job));
  if (!Number.isInteger(seed) || seed < -(2 ** 31) || seed > 2 ** 31 - 1) {
    throw new SimInputError(`explore: seed must be a 32-bit signed integer, got ${String(o.seed)}`);
  }
  if (o.expect !== undefined && o.expect !== 'exactly-once' && o.expect !== 'at-least-once') {
    throw new SimInputError(`explore: expect must be exactly-once or at-least-once, got '${String(o.expect)}'`);
  }
  const mutants = [...(o.mutants ?? [])];
  const unknown = mutants.find((m) => !PLANTED_BUG_IDS.includes(m));
  if (unknown !== undefined) throw new SimInputError(`explore: unknown planted bug '${unknown}' (planted bugs: ${PLANTED_BUG_IDS.join(', ')})`);
  if (o.strategy !== undefined && !isExploreStrategy(o.strategy)) {
    throw new SimInputError(`explore: strategy must be one of ${EXPLORE_STRATEGIES.join(', ')}, got ${describe(o.strategy)}`);
  }
  const maxRecords = positive('maxRecords', o.maxRecords);
  const maxParallelism = positive('maxParallelism', o.maxParallelism);
  if (maxParallelism !== undefined && maxParallelism > MAX_RUN_PARALLELISM) {
    throw new SimInputError(`explore: maxParallelism must be at most ${MAX_RUN_PARALLELISM}, got ${maxParallelism}`);
  }
  const out = o.outDir ?? 'reports/out';
  let outDir: string;
  try {
    // Before any run: a violation found later must not be lost to an unusable directory.
    outDir = prepareOutDir(out, `outDir ${out}`);
  } catch (e) {
    if (e instanceof UsageError) throw new SimInputError(`explore: ${e.message}`, { cause: e });
    throw e;
  }
  const naming = { job, seed, expect: o.expect, maxRecords, maxParallelism, mutants, strategy: o.strategy };
  const report = search({
    job, modes, seed, mutants,
    ...(o.strategy === undefined ? {} : { strategy: o.strategy }),
    ...(o.expect === undefined ? {} : { expect: o.expect }),
    ...(runs === undefined && timeBudgetMs === undefined ? { runs: LIBRARY_DEFAULT_RUNS } : {}),
    ...(runs === undefined ? {} : { runs }),
    ...(timeBudgetMs === undefined ? {} : { timeBudgetMs }),
    ...(maxRecords === undefined ? {} : { maxRecords }),
    ...(maxParallelism === undefined ? {} : { maxParallelism }),
    simulate: (spec) => simulate(spec),
    judge: defaultJudge,
    clock: () => performance.now(),
    version: checkpointSimVersion(),
    writeRepro: (mode, repro) => {
      const path = join(outDir, reproFileName(naming, mode));
      writePortableRepro(path, repro);
      return path;
    },
    ...(o.progress === undefined ? {} : { progress: o.progress }),
  });
  if (report.counterexamples.length > 0) throw new ExploreFailure(failureMessage(report), report);
  return report;
}

/** The job `given` names, its module loaded. @throws SimInputError. */
async function loadJob(given: unknown): Promise<ExploreJob> {
  if (typeof given === 'string' && (BUILT_IN_JOBS as readonly string[]).includes(given)) return given as ExploreJob;
  if (isJobDefinition(given)) {
    throw new SimInputError('explore: job must be a job module\'s path (and export), not a JobDefinition: a repro names the module '
      + 'so that checkpoint-sim replay can load it in another process; move the defineJob(...) into its own file and pass '
      + "{ job: new URL('./job.ts', import.meta.url) } or { job: { path: './job.ts', export: 'name' } }");
  }
  let path: string;
  let exportName: string | undefined;
  if (typeof given === 'string' || given instanceof URL) {
    [path, exportName] = splitExport(given);
  } else if (given !== null && typeof given === 'object' && (typeof (given as { path?: unknown }).path === 'string'
    || (given as { path?: unknown }).path instanceof URL)) {
    const g = given as { path: string | URL; export?: unknown };
    if (g.export !== undefined && (typeof g.export !== 'string' || g.export === '')) {
      throw new SimInputError(`explore: job.export must be a non-empty string, got ${JSON.stringify(g.export)}`);
    }
    [path] = splitExport(g.path);
    exportName = g.export as string | undefined;
  } else {
    throw new SimInputError(`explore: job must be a job module's path or file URL (or ${BUILT_IN_JOBS.join(', ')}), got ${describe(given)}`);
  }
  const abs = isAbsolute(path) ? path : resolve(path);
  await loadJobModule(abs, exportName, `${path}${exportName === undefined ? '' : `#${exportName}`}`);
  return { kind: 'module', path: abs, ...(exportName === undefined ? {} : { export: exportName }) };
}

/** A path or file URL and the export after its `#`. @throws SimInputError for a URL that is not a file's. */
function splitExport(p: string | URL): [string, string | undefined] {
  if (p instanceof URL) {
    if (p.protocol !== 'file:') throw new SimInputError(`explore: a job module URL must be a file: URL, got ${p.href}`);
    const exportName = p.hash.length > 1 ? decodeURIComponent(p.hash.slice(1)) : undefined;
    const file = new URL(p.href);
    file.hash = '';
    return [fileURLToPath(file), exportName];
  }
  const { file, exportName } = splitModuleExport(p);
  if (exportName === '') throw new SimInputError(`explore: job ${p}: name the export after #`);
  return [file, exportName];
}

function modesOf(m: readonly RunMode[] | 'all' | undefined): RunMode[] {
  if (m === undefined || m === 'all') return [...BUILT_MODES];
  if (!Array.isArray(m) || m.length === 0) throw new SimInputError(`explore: modes must be 'all' or a non-empty list of modes, got ${describe(m)}`);
  for (const mode of m) {
    if (!AVAILABLE_MODES.includes(mode)) {
      throw new SimInputError(`explore: unknown or unavailable mode '${String(mode)}' (modes: ${AVAILABLE_MODES.join(', ')}, or 'all')`);
    }
  }
  const repeated = m.find((x, i) => m.indexOf(x) !== i);
  if (repeated !== undefined) throw new SimInputError(`explore: modes names ${repeated} twice`);
  return [...m];
}

function positive(name: string, v: number | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!Number.isInteger(v) || v < 1) throw new SimInputError(`explore: ${name} must be a positive integer, got ${String(v)}`);
  return v;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'object') return Array.isArray(v) ? 'an array' : 'an object';
  return JSON.stringify(v) ?? typeof v;
}

/** The failure's message: the first counterexample in full, the others by a line each. */
export function failureMessage(r: ExploreReport): string {
  const [first, ...rest] = r.counterexamples;
  if (first === undefined) return `explore ${r.job}: no violation`;
  const details = formatDetails(first.violation.details, { indent: '    ' });
  const lines = [
    `explore ${r.job}: ${first.property} violated in mode ${first.mode}`,
    `  ${first.summary}`,
    `  shrunk to ${first.faults} fault(s), ${first.actions} action(s) and ${first.overrides} override(s)`
      + `${first.fork === undefined ? '' : `; found in the restore fan-out fork at checkpoint ${first.fork.checkpointId}`}`,
    `  drawn by the ${first.strategy.run} strategy (explore's strategy: ${first.strategy.explore})`,
    ...(details.length === 0 ? [] : ['  details:', ...details]),
    ...formatExplanation(first.explanation, '    ').map((l) => `  ${l}`),
    `  repro: ${first.repro}`,
    `  replay: ${first.replay}`,
    `  fast-check: seed ${first.fastCheck.seed}, path ${first.fastCheck.path}`,
  ];
  for (const c of rest) lines.push(`also in mode ${c.mode}: ${c.property}: ${c.summary} (repro ${c.repro})`);
  return lines.join('\n');
}
