/**
 * readJsonFile: reads a file a person gave on the command line (a RunSpec, a repro, a scenario)
 * and parses it as JSON, so every command says the same thing about a file it cannot use.
 * @param path the file, as the user wrote it.
 * @param kind what the command expected, for the message (`spec`, `repro`, `scenario`).
 * @returns the parsed value (not yet checked against any schema), a job module's path made
 *   absolute against the file's directory (cli/jobModuleFiles.ts).
 * @throws UsageError `cannot read <kind> file <path> (<why>)`, or `<path>: not valid JSON (<why>)`.
 */
import { readFileSync } from 'node:fs';
import { withAbsoluteModulePath } from './jobModuleFiles.ts';
import { UsageError } from './UsageError.ts';

export function readJsonFile(path: string, kind: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${kind} file ${path} (${whyUnreadable(e)})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (e) {
    throw new UsageError(`${path}: not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  return withAbsoluteModulePath(value, path, kind);
}

/** Why a file could not be read, in words: the common cases by their code, else the error's message. */
function whyUnreadable(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'a directory, not a file';
  if (code === 'EACCES') return 'permission denied';
  return e instanceof Error ? e.message : String(e);
}
