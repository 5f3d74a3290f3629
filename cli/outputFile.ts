/**
 * A file a command writes besides its output (`replay --trace`, `--mermaid`): checked before the
 * run (its missing parent directories made, not a directory), written after it, with one-line
 * errors naming the flag.
 */
import { statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { prepareOutDir } from './outDir.ts';
import { UsageError } from './UsageError.ts';

export class OutputFile {
  private constructor(readonly flag: string, readonly given: string, readonly abs: string) {}

  /**
   * The file `path` names for `flag`, or undefined without one. Makes its missing parent
   * directories. @throws UsageError (one line) when the name is empty, is a directory, or its
   * directory cannot be made or written.
   */
  static of(flag: string, path: string | undefined): OutputFile | undefined {
    if (path === undefined) return undefined;
    if (path.trim() === '') throw new UsageError(`${flag}: the file name is empty`);
    const abs = resolve(path);
    let isDir = false;
    try {
      isDir = statSync(abs).isDirectory();
    } catch {
      // Missing is fine: it is written after the run.
    }
    if (isDir) throw new UsageError(`${flag} ${path}: ${abs} is a directory`);
    prepareOutDir(dirname(abs), `${flag} ${path}`);
    return new OutputFile(flag, path, abs);
  }

  /** Writes `text`. @throws UsageError when the file cannot be written. */
  write(text: string): void {
    try {
      writeFileSync(this.abs, text);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException | undefined)?.code ?? String(e);
      throw new UsageError(`${this.flag} ${this.given}: cannot write ${this.abs} (${code})`);
    }
  }
}
