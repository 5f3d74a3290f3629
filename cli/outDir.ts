/**
 * The output directory of explore and start, made ready before any run: a violation found
 * after minutes of search must never be lost because its repro file cannot be written.
 */
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from './UsageError.ts';

/**
 * Creates `dir` (and its missing parents) if needed and proves it writable by writing and
 * removing a probe file; returns its absolute path.
 *
 * Missing components are created one at a time with a plain `mkdirSync`, never with
 * `{ recursive: true }`: Node 20's recursive mkdir loops forever on some paths (under /proc,
 * e.g. `/proc/nope`), and one component at a time also lets the error name the component that
 * is in the way (a file, as in `/dev/null/x`).
 *
 * @param what how the error names the directory, e.g. `--out reports/x`.
 * @throws UsageError with a one-line reason when it cannot be created or written.
 */
export function prepareOutDir(dir: string, what: string): string {
  // resolve('') is the working directory: an empty name would scatter files there unasked.
  if (dir.trim() === '') throw new UsageError(`${what}: the directory name is empty`);
  const abs = resolve(dir);
  const missing: string[] = [];
  let existing = abs;
  while (kindOf(existing).kind === 'missing') {
    missing.unshift(existing);
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  const found = kindOf(existing);
  if (found.kind === 'other') throw new UsageError(`${what}: ${existing} is not a directory`);
  if (found.kind === 'unusable') throw new UsageError(`${what}: cannot use ${existing} (${found.code})`);
  for (const d of missing) {
    try {
      mkdirSync(d);
    } catch (e) {
      throw new UsageError(`${what}: cannot create directory ${d} (${errorCode(e)})`);
    }
  }
  // A probe rather than access(W_OK): root passes access() on read-only or virtual file
  // systems (/proc) where writing still fails.
  const probe = join(abs, `.checkpoint-sim-write-probe-${process.pid}`);
  try {
    writeFileSync(probe, '', { flag: 'wx' });
  } catch (e) {
    throw new UsageError(`${what}: cannot write into ${abs} (${errorCode(e)})`);
  }
  rmSync(probe, { force: true });
  return abs;
}

/** What is at `p`; ENOTDIR (a file on the way) counts as missing so the walk reaches that file. */
function kindOf(p: string): { kind: 'missing' | 'directory' | 'other' | 'unusable'; code?: string } {
  try {
    return { kind: statSync(p).isDirectory() ? 'directory' : 'other' };
  } catch (e) {
    const code = errorCode(e);
    return { kind: code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : 'unusable', code };
  }
}

function errorCode(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : String(e);
}
