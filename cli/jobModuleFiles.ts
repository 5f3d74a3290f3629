/**
 * Job modules named on the command line (`--job ./job.ts[#export]`) or in a file (a RunSpec,
 * repro or scenario file whose `job` is `{ kind: 'module', path }`, the path relative to that
 * file). The commands run synchronously, so each action first loads the modules its run needs
 * (properties/jobModules/loadJobModule.ts); readJsonFile then rewrites a file's module path to
 * the absolute one the loaded module is registered under.
 *
 * A repro records the module's content hash; one whose module changed since is refused before
 * anything runs (exit 2), since replaying other code would not reproduce anything.
 */
import { readFileSync } from 'node:fs';
import { dirname, extname, isAbsolute, resolve } from 'node:path';
import type { ExploreJob } from '../properties/arbitraries/runSpecArbitrary.ts';
import { loadJobModule } from '../properties/jobModules/loadJobModule.ts';
import { moduleContentHash } from '../properties/jobModules/moduleContentHash.ts';
import { SimInputError } from '../sim/SimInputError.ts';
import { UsageError } from './UsageError.ts';

/** The built-in jobs a `--job` may name. */
export const BUILT_IN_JOBS = ['flights', 'wordcount', 'generated'] as const;

/** What `--job` takes, for help and messages. */
export const JOB_FLAG_HELP = `the job: ${BUILT_IN_JOBS.join(', ')}, or a job module ./path/to/job.ts[#export]`;

/**
 * The job a `--job` value names: a built-in job, or a job module (a value with a `/` or a
 * module extension; `#export` names its export), its path made absolute against the working
 * directory. Not loaded yet: see {@link loadJobFlag}.
 * @throws UsageError for anything else.
 */
export function parseJobFlag(value: string | undefined): ExploreJob {
  const v = value ?? 'flights';
  if ((BUILT_IN_JOBS as readonly string[]).includes(v)) return v as ExploreJob;
  const { file, exportName } = splitModuleExport(v);
  if (file.includes('/') || file.includes('\\') || /\.(m|c)?(t|j)s$/.test(extname(file))) {
    if (exportName === '') throw new UsageError(`--job ${v}: name the export after #`);
    return { kind: 'module', path: resolve(file), ...(exportName === undefined ? {} : { export: exportName }) };
  }
  throw new UsageError(`unknown job '${v}' (jobs: ${BUILT_IN_JOBS.join(', ')}, or a path to a job module such as ./job.ts)`);
}

/**
 * `path#export` split at its last `#` (one at the start is part of the path); `exportName` is
 * undefined without a `#`, and '' for a `#` with nothing after it (the caller refuses that).
 */
export function splitModuleExport(value: string): { readonly file: string; readonly exportName: string | undefined } {
  const hash = value.lastIndexOf('#');
  return hash > 0 ? { file: value.slice(0, hash), exportName: value.slice(hash + 1) } : { file: value, exportName: undefined };
}

/**
 * Loads the module a `--job` value names (nothing for a built-in job).
 * @throws UsageError (one line) when it cannot be loaded.
 */
export async function loadJobFlag(value: string | undefined): Promise<void> {
  const job = parseJobFlag(value);
  if (typeof job === 'string') return;
  const given = value ?? '';
  const label = given.includes('#') ? given.slice(0, given.lastIndexOf('#')) : given;
  await loadOrRefuse(job.path, job.export, label, '');
}

/** Where the `job` of a file of `kind` sits. */
function jobOf(value: unknown, kind: string): Record<string, unknown> | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const o = value as Record<string, unknown>;
  const holder = kind === 'repro' ? o['spec'] : o;
  if (holder === null || typeof holder !== 'object') return undefined;
  const job = (holder as Record<string, unknown>)['job'];
  if (job === null || typeof job !== 'object') return undefined;
  const j = job as Record<string, unknown>;
  return j['kind'] === 'module' && typeof j['path'] === 'string' ? j : undefined;
}

/**
 * `value` (a parsed file of `kind`: spec, repro or scenario, at `file`) with its job module's
 * path made absolute against the file's directory; any other value unchanged.
 */
export function withAbsoluteModulePath(value: unknown, file: string, kind: string): unknown {
  const job = jobOf(value, kind);
  if (job === undefined || isAbsolute(job['path'] as string)) return value;
  const path = resolve(dirname(file), job['path'] as string);
  const o = value as Record<string, unknown>;
  if (kind !== 'repro') return { ...o, job: { ...job, path } };
  return { ...o, spec: { ...(o['spec'] as Record<string, unknown>), job: { ...job, path } } };
}

/**
 * Loads the job module the file at `file` (a `kind` file) names, checking a repro's recorded
 * content hash first. A file that cannot be read or parsed, or names no module, is left to
 * the command, which reports it.
 * @throws UsageError naming the file: the module changed since the repro was written, or
 *   cannot be loaded.
 */
export async function loadFileJobModule(file: string, kind: 'spec' | 'repro' | 'scenario'): Promise<void> {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    return;
  }
  const job = jobOf(value, kind);
  if (job === undefined) return;
  const given = job['path'] as string;
  const path = resolve(dirname(file), given);
  const exportName = typeof job['export'] === 'string' ? job['export'] : undefined;
  if (kind === 'repro') {
    const recorded = (value as { jobModule?: { hash?: unknown } }).jobModule?.hash;
    if (typeof recorded === 'string') {
      let now: string;
      try {
        now = moduleContentHash(path);
      } catch {
        throw new UsageError(`${file}: job module ${given}: no such file (${path}); a repro names its module relative to its `
          + 'own folder: keep the two where they were to each other, or move them together');
      }
      if (now !== recorded) {
        throw new UsageError(`${file}: job module changed since this repro was written (${given}: content hash ${recorded.slice(0, 12)}, now ${now.slice(0, 12)})`);
      }
    }
  }
  await loadOrRefuse(path, exportName, given, `${file}: `);
}

async function loadOrRefuse(path: string, exportName: string | undefined, label: string, where: string): Promise<void> {
  try {
    await loadJobModule(path, exportName, `${label}${exportName === undefined ? '' : `#${exportName}`}`);
  } catch (e) {
    if (e instanceof SimInputError) throw new UsageError(`${where}${e.message}`, { cause: e });
    throw e;
  }
}
