/**
 * The job modules this process has loaded: `simulate` is synchronous and a module is loaded
 * asynchronously (TypeScript through tsx, then `import()`), so the loader
 * (properties/jobModules/loadJobModule.ts) registers each definition here first and every run
 * of it looks it up by absolute path and export.
 *
 * Invariant: one entry per (absolute path, export name as the spec gives it, absent included);
 * registering a path again replaces its entries (a module edited and reloaded by a long-lived
 * process).
 */
import { isAbsolute, resolve } from 'node:path';
import { SimInputError } from '../SimInputError.ts';
import type { JobDefinition } from './JobDefinition.ts';

/** A loaded job module. */
export interface LoadedJobModule {
  /** Absolute path of the module file. */
  readonly path: string;
  /** The export the definition came from (`default` for a default export). */
  readonly exportName: string;
  readonly definition: JobDefinition;
  /** Content hash of the module and its local imports (hex), as repro files record it. */
  readonly hash: string;
  /** How messages name it: the path as the user gave it, with `#export` when one was named. */
  readonly label: string;
}

const modules = new Map<string, LoadedJobModule>();

function key(path: string, exportName: string | undefined): string {
  return `${path}\u0000${exportName ?? ''}`;
}

/** Absolute form of a spec's module path (relative paths against the working directory). */
export function absoluteModulePath(path: string): string {
  return isAbsolute(path) ? path : resolve(path);
}

/**
 * Records `module` for lookups by its path with `asked` (the export the spec names; undefined
 * when it named none) and with its own export name.
 */
export function registerJobModule(module: LoadedJobModule, asked: string | undefined): void {
  modules.set(key(module.path, asked), module);
  modules.set(key(module.path, module.exportName), module);
}

/** The loaded module a spec names, or undefined. */
export function findJobModule(path: string, exportName: string | undefined): LoadedJobModule | undefined {
  return modules.get(key(absoluteModulePath(path), exportName));
}

/**
 * The loaded module a spec names.
 * @throws SimInputError when it was not loaded first (the CLI and the library's `explore` load
 *   a spec's module before running it; a caller of `simulate` awaits `loadJobModule` first).
 */
export function loadedJobModule(path: string, exportName: string | undefined): LoadedJobModule {
  const found = findJobModule(path, exportName);
  if (found !== undefined) return found;
  throw new SimInputError(`job module ${path}${exportName === undefined ? '' : `#${exportName}`} is not loaded: `
    + 'await loadJobModule(path) before simulating a spec that names it');
}
