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
 * Job modules are ES modules: .mts or .mjs anywhere, .ts or .js under a package.json with
 * `"type": "module"`.
 *
 * The module is imported with its content hash in the URL, so a process that loads an edited
 * module again gets the new code.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { register as registerHooks } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isJobDefinition, type JobDefinition } from '../../sim/jobs/JobDefinition.ts';
import {
  absoluteModulePath, registerJobModule, type LoadedJobModule,
} from '../../sim/jobs/jobModuleRegistry.ts';
import { SimInputError } from '../../sim/SimInputError.ts';
import { moduleContentHash } from './moduleContentHash.ts';

/** The extensions a job module may have. */
export const JOB_MODULE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'] as const;

/**
 * Whether Node treats the file at `abs` (.ts or .js) as an ES module: the nearest package.json
 * above it says `"type": "module"`. (.mts and .mjs always are.)
 */
function isEsmByPackage(abs: string): boolean {
  for (let dir = dirname(abs); ; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        return (JSON.parse(readFileSync(pkg, 'utf8')) as { type?: unknown }).type === 'module';
      } catch {
        return false;
      }
    }
    if (dirname(dir) === dir) return false;
  }
}

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
  // Resolved through the rest of the chain (tsx's resolve sets what its load needs for a .ts root).
  if (specifier === 'checkpoint-sim') return next(root, context);
  return next(specifier, context);
}
`;

async function installHooks(): Promise<void> {
  if (hooksInstalled) return;
  hooksInstalled = true;
  const { register } = await import('tsx/esm/api');
  register();
  registerHooks(`data:text/javascript,${encodeURIComponent(RESOLVE_HOOK)}`, { data: { root: packageRootUrl() } });
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
 *   than .ts .mts .js .mjs, a .ts or .js file that would load as CommonJS, a module that fails to load (its error's first line), or
 *   no such export / an export that is not a JobDefinition.
 */
export async function loadJobModule(path: string, exportName?: string, label = moduleLabel(path, exportName)): Promise<LoadedJobModule> {
  const abs = absoluteModulePath(path);
  if (!existsSync(abs) || !statSync(abs).isFile()) throw new SimInputError(`job module ${label}: no such file (${abs})`);
  if (!(JOB_MODULE_EXTENSIONS as readonly string[]).includes(extname(abs))) {
    throw new SimInputError(`job module ${label}: must be a ${JOB_MODULE_EXTENSIONS.join(', ')} file`);
  }
  // A CommonJS module's imports are require() calls, which Node's module hooks (and so the
  // mapping of 'checkpoint-sim' to this package) do not reach: job modules are ES modules.
  const ext = extname(abs);
  if ((ext === '.ts' || ext === '.js') && !isEsmByPackage(abs)) {
    throw new SimInputError(`job module ${label}: would load as CommonJS (no package.json with "type": "module" above it); `
      + `name it ${ext === '.ts' ? '.mts' : '.mjs'} or add a package.json with {"type": "module"}`);
  }
  const hash = moduleContentHash(abs);
  await installHooks();
  let namespace: Record<string, unknown>;
  try {
    namespace = await import(`${pathToFileURL(abs).href}?content=${hash.slice(0, 16)}`) as Record<string, unknown>;
  } catch (e) {
    // esbuild (through tsx) says "Transform failed with 1 error:" and puts the error, with its
    // file, line and column, on the lines after: keep those, on one line.
    const message = (e instanceof Error ? e.message : String(e)).split('\n').map((l) => l.trim()).filter((l) => l !== '')
      .slice(0, 3).join(' ');
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
    if (!(exportName in ns)) {
      const jobs = names.filter((n) => isJobDefinition(ns[n]));
      throw new SimInputError(`job module ${label}: no export '${exportName}' (its JobDefinition exports: ${jobs.length === 0 ? 'none' : jobs.join(', ')})`);
    }
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
