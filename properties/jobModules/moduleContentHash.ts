/**
 * moduleContentHash: a content hash of a job module and the local files it imports, recorded in
 * repro files so that a repro of a module edited since is refused rather than replayed against
 * other code (and a repro replays from any directory, since the hash does not depend on where
 * the module sits).
 *
 * Local imports are the module's static `import ... from`, `export ... from`, side-effect
 * `import '...'` and literal dynamic `import('...')` specifiers that start with `./`, `../` or
 * `/`, followed transitively; packages (bare specifiers, `node:`) are not hashed (they are the
 * project's dependencies, pinned by its lockfile). A specifier resolves as Node and TypeScript
 * resolve it: the exact file, then `.js`/`.mjs`/`.cjs` mapped to `.ts`/`.mts`/`.cts`, then the
 * extensions `.ts .mts .cts .tsx .js .mjs .cjs .json`, then `/index.ts` and `/index.js`. A
 * specifier naming no file is hashed as missing.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';

const IMPORT = /(?:^|[^\w$.])(?:import|export)\s[^'"`;]*?\bfrom\s*(['"])([^'"\n]+)\1|(?:^|[^\w$.])import\s*(['"])([^'"\n]+)\3|(?:^|[^\w$.])import\s*\(\s*(['"])([^'"\n]+)\5\s*\)/g;

const EXTENSIONS = ['.ts', '.mts', '.cts', '.tsx', '.js', '.mjs', '.cjs', '.json'];

/** The local import specifiers of `source` (see the file comment), in order of appearance. */
export function localImports(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(IMPORT)) {
    const spec = m[2] ?? m[4] ?? m[6];
    if (spec !== undefined && (spec.startsWith('./') || spec.startsWith('../') || spec.startsWith('/'))) out.push(spec);
  }
  return out;
}

/** The file a local specifier names from `fromDir`, or undefined. */
export function resolveLocalImport(fromDir: string, specifier: string): string | undefined {
  const base = resolve(fromDir, specifier);
  const isFile = (p: string): boolean => existsSync(p) && statSync(p).isFile();
  if (isFile(base)) return base;
  const mapped = base.replace(/\.(m|c)?js$/, (_x, m: string | undefined) => `.${m ?? ''}ts`);
  if (mapped !== base && isFile(mapped)) return mapped;
  for (const ext of EXTENSIONS) if (isFile(base + ext)) return base + ext;
  for (const index of ['index.ts', 'index.js']) {
    const p = resolve(base, index);
    if (isFile(p)) return p;
  }
  return undefined;
}

/**
 * The hash (sha-256, hex) of the module at absolute path `modulePath` and its local imports:
 * each file as its path relative to the module's directory and its bytes, in path order.
 * @throws Error when the module itself cannot be read.
 */
export function moduleContentHash(modulePath: string): string {
  const root = dirname(modulePath);
  const seen = new Map<string, Buffer | null>();
  const queue = [modulePath];
  seen.set(modulePath, readFileSync(modulePath));
  while (queue.length > 0) {
    const file = queue.shift() as string;
    const content = seen.get(file);
    if (content === null || content === undefined || file.endsWith('.json')) continue;
    for (const spec of localImports(content.toString('utf8'))) {
      const target = resolveLocalImport(dirname(file), spec) ?? `${resolve(dirname(file), spec)}\u0000missing`;
      if (seen.has(target)) continue;
      const bytes = target.endsWith('\u0000missing') ? null : readFileSync(target);
      seen.set(target, bytes);
      if (bytes !== null) queue.push(target);
    }
  }
  const hash = createHash('sha256');
  const entries = [...seen.entries()].map(([p, b]) => [relative(root, p).split(sep).join('/'), b] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [p, b] of entries) {
    hash.update(`${p}\u0000${b === null ? 'missing' : b.length}\u0000`);
    if (b !== null) hash.update(b);
  }
  return hash.digest('hex');
}
