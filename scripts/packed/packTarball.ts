/**
 * Packs checkpoint-sim as `npm pack` does, once per set of build inputs, for tests that install
 * the package as a user would (this packed-package test, and the user-jobs issue's).
 *
 * The tarball is cached in the OS temp folder under a hash of everything that goes into it (the
 * sources the build compiles, package.json, the lockfile, the tsconfigs, README, docs, schemas),
 * so a test run packs at most once, however many test files ask, and a run with nothing changed
 * packs not at all. A lock folder beside the cache entry keeps two callers (two test files of one
 * run, or two runs) from building at the same time; the entry appears by rename, complete or not
 * at all.
 *
 * It builds only when `dist/` is older than an input (right after `npm ci`, as in CI, it is not).
 * Building writes the repository's `dist/` (what `npm pack` ships); nothing in the test suite
 * reads `dist/` while it runs.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { cleanEnv } from './cleanEnv.ts';

const run = promisify(execFile);

/** A packed tarball and what `npm pack --json` said about it. */
export interface PackedTarball {
  /** Absolute path of the `.tgz`, in the OS temp folder. */
  readonly tarball: string;
  /** Its `sha512-...` integrity, as a lockfile records it. */
  readonly integrity: string;
  /** Every file in it, paths relative to the package root (`dist/index.js`, `README.md`, ...). */
  readonly files: readonly string[];
  /** The hash of the build inputs that names the cache entry. */
  readonly inputsHash: string;
}

/** Files at the repository root that go into the tarball or decide its contents. */
const ROOT_INPUTS = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'LICENSE', 'index.ts'];
/** Folders shipped as they are, besides the ones the build compiles. */
const SHIPPED_FOLDERS = ['docs', 'schemas'];
/** How long a lock may be held before it is taken as left by a killed process, ms. */
const STALE_LOCK_MS = 10 * 60_000;

/**
 * The packed tarball of the repository at `repoRoot`: from the cache when its inputs are
 * unchanged, else built (`npm run build`) and packed (`npm pack --json`) into the cache.
 * @throws Error with npm's output when the build or the pack fails.
 */
export async function packTarball(repoRoot: string): Promise<PackedTarball> {
  const inputsHash = hashBuildInputs(repoRoot);
  const cacheRoot = join(tmpdir(), 'checkpoint-sim-packed');
  const entry = join(cacheRoot, inputsHash);
  mkdirSync(cacheRoot, { recursive: true });
  for (;;) {
    const cached = readEntry(entry, inputsHash);
    if (cached !== undefined) return cached;
    const lock = `${entry}.lock`;
    if (tryLock(lock)) {
      try {
        return readEntry(entry, inputsHash) ?? await pack(repoRoot, cacheRoot, entry, inputsHash);
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function pack(repoRoot: string, cacheRoot: string, entry: string, inputsHash: string): Promise<PackedTarball> {
  const staging = mkdtempSync(join(cacheRoot, 'staging-'));
  try {
    // `npm ci` has just built dist/ on a fresh clone (prepare): building again would only cost.
    if (!distIsFresh(repoRoot)) await npm(repoRoot, ['run', 'build']);
    // --ignore-scripts: dist/ is built; prepare would build it again.
    const out = await npm(repoRoot, ['pack', '--json', '--ignore-scripts', '--pack-destination', staging]);
    const [report] = JSON.parse(out) as Array<{ filename: string; integrity: string; files: Array<{ path: string }> }>;
    if (report === undefined) throw new Error(`npm pack printed no report: ${out}`);
    writeFileSync(join(staging, 'pack.json'), JSON.stringify({
      filename: report.filename, integrity: report.integrity, files: report.files.map((f) => f.path),
    }));
    rmSync(entry, { recursive: true, force: true }); // an entry whose tarball the OS cleaned away
    renameSync(staging, entry);
    const packed = readEntry(entry, inputsHash);
    if (packed === undefined) throw new Error(`packTarball: ${entry} is incomplete after packing`);
    return packed;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function readEntry(entry: string, inputsHash: string): PackedTarball | undefined {
  const report = join(entry, 'pack.json');
  if (!existsSync(report)) return undefined;
  const { filename, integrity, files } = JSON.parse(readFileSync(report, 'utf8')) as
    { filename: string; integrity: string; files: string[] };
  const tarball = join(entry, filename);
  return existsSync(tarball) ? { tarball, integrity, files, inputsHash } : undefined;
}

function tryLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
    return false;
  }
}

/** Runs npm in `cwd` and returns its stdout. @throws Error with npm's stdout and stderr. */
export async function npm(cwd: string, args: readonly string[], timeoutMs = 300_000): Promise<string> {
  // Inside `npm test`, npm_execpath names the npm that runs us; use the same one.
  const cli = process.env['npm_execpath'];
  const [file, argv] = cli !== undefined && cli.endsWith('.js')
    ? [process.execPath, [cli, ...args]] : ['npm', [...args]];
  try {
    const { stdout } = await run(file, argv, { cwd, env: cleanEnv(), encoding: 'utf8', maxBuffer: 64 << 20, timeout: timeoutMs });
    return stdout;
  } catch (e) {
    const { stdout, stderr } = e as { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(' ')} failed in ${cwd}: ${(e as Error).message}\n${stdout ?? ''}\n${stderr ?? ''}`, { cause: e });
  }
}

/**
 * Every file that decides the tarball, absolute paths, sorted: the root inputs, the folders
 * tsconfig.build.json compiles (test files left out: they are not built) and the folders shipped
 * as they are.
 */
export function buildInputs(repoRoot: string): string[] {
  const build = JSON.parse(readFileSync(join(repoRoot, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
  const files = new Set<string>();
  const walk = (path: string): void => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path)) {
        if (name !== 'node_modules' && name !== 'dist') walk(join(path, name));
      }
    } else if (!path.endsWith('.test.ts')) {
      files.add(path);
    }
  };
  for (const p of [...ROOT_INPUTS, ...build.include, ...SHIPPED_FOLDERS]) walk(join(repoRoot, p));
  return [...files].sort();
}

/** A hash of {@link buildInputs}: their paths and contents. */
export function hashBuildInputs(repoRoot: string): string {
  const h = createHash('sha256');
  for (const f of buildInputs(repoRoot)) {
    h.update(relative(repoRoot, f)).update('\0').update(readFileSync(f)).update('\0');
  }
  return h.digest('hex').slice(0, 16);
}

/**
 * Whether `dist/` was built after every build input last changed: its oldest emitted file is
 * newer than the newest input. tsc writes every output on each build, so this holds right after
 * `npm ci` (whose prepare builds) and fails after any edit; a file left in dist/ by a deleted
 * source keeps it failing (one build more, never a stale tarball).
 */
export function distIsFresh(repoRoot: string): boolean {
  const dist = join(repoRoot, 'dist');
  if (!existsSync(join(dist, 'index.js'))) return false;
  let oldestOutput = Infinity;
  for (const f of readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
    const st = statSync(join(dist, f));
    if (st.isFile()) oldestOutput = Math.min(oldestOutput, st.mtimeMs);
  }
  const newestInput = Math.max(...buildInputs(repoRoot).map((f) => statSync(f).mtimeMs));
  return newestInput < oldestOutput;
}
