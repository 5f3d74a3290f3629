/**
 * loadJobModule: loads a user's job module (a file exporting a JobDefinition, docs/jobs.md) into
 * this process and registers it (sim/jobs/jobModuleRegistry.ts), so that `simulate`, explore and
 * the oracles run it like a built-in job.
 *
 * TypeScript modules load through tsx's loader: `register()` from `tsx/esm/api` installs it into
 * Node's module hooks and then a plain `import()` loads the file. (tsx's `tsImport` would give the
 * module a private module graph, and with it its own copy of this package's classes.) A
 * resolve hook installed beside it maps the module's `import ... from 'checkpoint-sim'` to this
 * very package instance, wherever the module sits: in a project that has checkpoint-sim
 * installed, in `examples/`, or in a directory with no node_modules at all.
 *
 * The module is imported with its content hash in the URL, so a process that loads an edited
 * module again gets the new code.
 */
import { existsSync, statSync } from 'node:fs';
import Module, { register as registerHooks } from 'node:module';
import { extname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isJobDefinition, type JobDefinition } from '../../sim/jobs/JobDefinition.ts';
import {
  absoluteModulePath, registerJobModule, type LoadedJobModule,
} from '../../sim/jobs/jobModuleRegistry.ts';
import { SimInputError } from '../../sim/SimInputError.ts';
import { moduleContentHash } from './moduleContentHash.ts';

/** The extensions a job module may have. */
export const JOB_MODULE_EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'] as const;

let hooksInstalled = false;

/**
 * The URL of this package's root module (index.ts when running from source under tsx or
 * vitest, dist/index.js when installed): the one `checkpoint-sim` must mean inside a job module.
 */
export function packageRootUrl(): string {
  const here = import.meta.url;
  return new URL(`../../index${extname(new URL(here).pathname)}`, here).href;
}

/** Source of the resolve hook (run in Node's hooks thread, so it is plain JavaScript). */
const RESOLVE_HOOK = `
let root;
export async function initialize(data) { root = data.root; }
export async function resolve(specifier, context, next) {
  if (specifier === 'checkpoint-sim') return { url: root, shortCircuit: true };
  return next(specifier, context);
}
`;

async function installHooks(): Promise<void> {
  if (hooksInstalled) return;
  hooksInstalled = true;
  const { register } = await import('tsx/esm/api');
  register();
  registerHooks(`data:text/javascript,${encodeURIComponent(RESOLVE_HOOK)}`, { data: { root: packageRootUrl() } });
  // A .ts module outside any `"type": "module"` package is CommonJS to tsx, and its imports are
  // require() calls, which Node's module hooks do not see: map the package name there too
  // (require of the ES module root works on Node >= 20.19 and gives the same instance).
  const cjs = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const original = cjs._resolveFilename;
  const root = fileURLToPath(packageRootUrl());
  cjs._resolveFilename = function resolveCheckpointSim(this: unknown, request: string, ...rest: unknown[]): string {
    return request === 'checkpoint-sim' ? root : original.call(this, request, ...rest);
  };
}

/** How messages name a module: the path as given, with `#export` when one was named. */
export function moduleLabel(path: string, exportName: string | undefined): string {
  return `${path}${exportName === undefined ? '' : `#${exportName}`}`;
}

/**
 * Loads the job module at `path` (relative to the working directory, or absolute) and registers
 * the JobDefinition it exports as `exportName` (absent: the default export, or else the module's
 * only JobDefinition export).
 * @returns the registered module (absolute path, export, definition, content hash, label).
 * @throws SimInputError (one line, exit 2 at the CLI) for a missing file, an extension other
 *   than .ts .mts .cts .js .mjs .cjs, a module that fails to load (its error's first line), or
 *   no such export / an export that is not a JobDefinition.
 */
export async function loadJobModule(path: string, exportName?: string, label = moduleLabel(path, exportName)): Promise<LoadedJobModule> {
  const abs = absoluteModulePath(path);
  if (!existsSync(abs) || !statSync(abs).isFile()) throw new SimInputError(`job module ${label}: no such file (${abs})`);
  if (!(JOB_MODULE_EXTENSIONS as readonly string[]).includes(extname(abs))) {
    throw new SimInputError(`job module ${label}: must be a ${JOB_MODULE_EXTENSIONS.join(', ')} file`);
  }
  const hash = moduleContentHash(abs);
  await installHooks();
  let namespace: Record<string, unknown>;
  try {
    namespace = await import(`${pathToFileURL(abs).href}?content=${hash.slice(0, 16)}`) as Record<string, unknown>;
  } catch (e) {
    const message = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    throw new SimInputError(`job module ${label}: failed to load: ${message}`, { cause: e });
  }
  const { definition, name } = pickExport(namespace, exportName, label);
  const module: LoadedJobModule = { path: abs, exportName: name, definition, hash, label };
  registerJobModule(module, exportName);
  return module;
}

function pickExport(ns: Record<string, unknown>, exportName: string | undefined, label: string): { definition: JobDefinition; name: string } {
  const names = Object.keys(ns).sort();
  const listed = names.length === 0 ? 'none' : names.join(', ');
  if (exportName !== undefined) {
    if (!(exportName in ns)) throw new SimInputError(`job module ${label}: no export '${exportName}' (exports: ${listed})`);
    const value = ns[exportName];
    if (!isJobDefinition(value)) {
      throw new SimInputError(`job module ${label}: export '${exportName}' is not a JobDefinition (an object with name, input and build)`);
    }
    return { definition: value, name: exportName };
  }
  if (isJobDefinition(ns['default'])) return { definition: ns['default'], name: 'default' };
  const jobs = names.filter((n) => isJobDefinition(ns[n]));
  const only = jobs[0];
  if (jobs.length === 1 && only !== undefined) return { definition: ns[only] as JobDefinition, name: only };
  if (jobs.length === 0) {
    throw new SimInputError(`job module ${label}: exports no JobDefinition (an object with name, input and build; exports: ${listed})`);
  }
  throw new SimInputError(`job module ${label}: exports several JobDefinitions (${jobs.join(', ')}); name one with #<export>`);
}
