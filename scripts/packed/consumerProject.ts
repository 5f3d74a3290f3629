/**
 * A temporary project that uses checkpoint-sim as a user's would: the packed tarball (packTarball.ts)
 * and test tools installed with `npm install --prefer-offline` from the npm cache, in a folder
 * under the OS temp folder. Never inside the repository: its vitest config would collect the
 * project's test files, and its node_modules would shadow the project's.
 *
 * The install is served from the cache `npm ci` filled (consumerLockfile.ts says how), so it
 * needs no network on a machine that ran `npm ci` here, and takes the versions this repository
 * tests with.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { consumerLockfile, type Lockfile } from './consumerLockfile.ts';
import { cleanEnv } from './cleanEnv.ts';
import { npm, type PackedTarball } from './packTarball.ts';

/** What a command run in the project printed, and how it exited. */
export interface Exec {
  /** The exit code; null when a signal or the timeout ended it. */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ConsumerProject {
  /** The project's folder (absolute, under the OS temp folder). */
  readonly dir: string;
  /** Writes files into the project, paths relative to it. */
  write(files: Readonly<Record<string, string>>): void;
  /** Runs `node <args>` in the project, with the environment of a plain shell (see cleanEnv). */
  node(args: readonly string[], timeoutMs?: number): Promise<Exec>;
  /** Deletes the project. */
  remove(): void;
}

/** Options of {@link consumerProject}. */
export interface ConsumerOptions {
  /** The repository root (its package.json and package-lock.json give the versions). */
  readonly repoRoot: string;
  readonly packed: PackedTarball;
  /** Packages besides checkpoint-sim, by name: devDependencies of this repository (exact versions). */
  readonly tools: readonly string[];
}

/**
 * Makes the project and installs checkpoint-sim and `tools` into it.
 * @throws Error when a tool is not an exact-version devDependency here, or npm fails (its output).
 */
export async function consumerProject(o: ConsumerOptions): Promise<ConsumerProject> {
  const repoPackage = JSON.parse(readFileSync(join(o.repoRoot, 'package.json'), 'utf8')) as
    { devDependencies: Record<string, string> };
  const packages: Record<string, string> = {};
  for (const tool of o.tools) {
    const version = repoPackage.devDependencies[tool];
    if (version === undefined || !/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(version)) {
      throw new Error(`consumerProject: ${tool} is not an exact-version devDependency of checkpoint-sim (${version ?? 'absent'})`);
    }
    packages[tool] = version;
  }
  const repoLock = JSON.parse(readFileSync(join(o.repoRoot, 'package-lock.json'), 'utf8')) as Lockfile;
  const dir = mkdtempSync(join(tmpdir(), 'checkpoint-sim-consumer-'));
  try {
    const tarball = basename(o.packed.tarball);
    copyFileSync(o.packed.tarball, join(dir, tarball));
    const name = 'checkpoint-sim-consumer';
    const { devDependencies, lockfile } = consumerLockfile(repoLock, name, {
      tarball, integrity: o.packed.integrity, packages,
    });
    writeJson(join(dir, 'package.json'), { name, private: true, type: 'module', devDependencies });
    writeJson(join(dir, 'package-lock.json'), lockfile);
    await npm(dir, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], 300_000);
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    dir,
    write(files) {
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
    },
    node: (args, timeoutMs = 120_000) => exec(process.execPath, args, dir, timeoutMs),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

function writeJson(path: string, value: unknown): void {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

function exec(file: string, args: readonly string[], cwd: string, timeoutMs: number): Promise<Exec> {
  return new Promise((resolve) => {
    execFile(file, [...args], { cwd, env: cleanEnv(), encoding: 'utf8', maxBuffer: 64 << 20, timeout: timeoutMs },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, stdout, stderr });
      });
  });
}

/** One test's outcome in the JSON report of a consumer's vitest run. */
export interface VitestTestResult {
  readonly title: string;
  readonly status: string;
  readonly failureMessages: readonly string[];
}

/**
 * The tests of the consumer's vitest run `run`, from the JSON report it wrote to `reportFile`.
 * @throws AssertionError (expect.fail) with the run's output when no report was written.
 */
export function vitestResults(reportFile: string, run: Exec, fail: (message: string) => never): VitestTestResult[] {
  if (!existsSync(reportFile)) fail(`the consumer's vitest wrote no report (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as { testResults: Array<{ assertionResults: VitestTestResult[] }> };
  return report.testResults.flatMap((f) => f.assertionResults);
}
