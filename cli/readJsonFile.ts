/**
 * readJsonFile: reads a file a person gave on the command line (a RunSpec, a repro, a scenario)
 * and parses it as JSON, so every command says the same thing about a file it cannot use.
 * @param path the file, as the user wrote it.
 * @param kind what the command expected, for the message (`spec`, `repro`, `scenario`).
 * @returns the parsed value (not yet checked against any schema).
 * @throws UsageError `cannot read <kind> file <path>`, or `<path>: not valid JSON (<why>)`.
 */
import { readFileSync } from 'node:fs';
import { UsageError } from './program.ts';

export function readJsonFile(path: string, kind: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new UsageError(`cannot read ${kind} file ${path}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new UsageError(`${path}: not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
}
