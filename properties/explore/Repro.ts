/**
 * A repro file: a RunSpec plus the violated property, the trace hash, and the versions of
 * checkpoint-sim and of this format (DESIGN.md "A repro file is a RunSpec plus ..."). `replay`
 * reads it back; a malformed file is refused with a one-line reason.
 */
import { ORACLE_NAMES } from '../oracles/judgeRun.ts';
import type { RunSpec } from '../../sim/run/RunSpec.ts';

export const REPRO_FORMAT_VERSION = 1;

/** Every field a repro file may have; another is refused (a misspelt one would be ignored). */
const REPRO_FIELDS: readonly string[] = [
  'format', 'formatVersion', 'checkpointSimVersion', 'property', 'expect', 'summary', 'traceHash',
  'stage', 'fastCheck', 'spec',
];

export interface Repro {
  readonly format: 'checkpoint-sim-repro';
  readonly formatVersion: number;
  /** checkpoint-sim's version that wrote it. */
  readonly checkpointSimVersion: string;
  /** The violated property, e.g. `end-to-end-exactly-once`. */
  readonly property: string;
  /** The promise the run was judged against (`--expect`), so replay judges it the same way. */
  readonly expect: 'exactly-once' | 'at-least-once';
  /** One line: what was violated. */
  readonly summary: string;
  readonly traceHash: string;
  /** `unshrunk` while shrinking is under way, `shrunk` when it is done. */
  readonly stage: 'unshrunk' | 'shrunk';
  /** fast-check's seed and path of the counterexample, for `replay --seed --path`. */
  readonly fastCheck?: { readonly seed: number; readonly path: string };
  readonly spec: RunSpec;
}

/** A repro file that cannot be used. */
export class ReproFormatError extends Error {
  override readonly name = 'ReproFormatError';
}

/**
 * Checks a parsed repro file's shape (not the spec itself; simulate validates that).
 * @throws ReproFormatError with a one-line reason.
 */
export function parseRepro(value: unknown): Repro {
  if (value === null || typeof value !== 'object') throw new ReproFormatError('repro file is not a JSON object');
  const r = value as Record<string, unknown>;
  if (r['format'] !== 'checkpoint-sim-repro') {
    throw new ReproFormatError(r['format'] === undefined
      ? 'not a checkpoint-sim repro file (format field missing)'
      : `not a checkpoint-sim repro file (format is ${JSON.stringify(r['format'])}, not "checkpoint-sim-repro")`);
  }
  const unknown = Object.keys(r).filter((k) => !REPRO_FIELDS.includes(k));
  if (unknown.length > 0) {
    throw new ReproFormatError(`unknown repro field "${unknown[0] ?? ''}" (fields: ${REPRO_FIELDS.join(', ')})`);
  }
  if (r['formatVersion'] !== REPRO_FORMAT_VERSION) {
    throw new ReproFormatError(`repro format version ${String(r['formatVersion'])} is not supported (expected ${REPRO_FORMAT_VERSION})`);
  }
  for (const k of ['property', 'summary', 'traceHash', 'checkpointSimVersion'] as const) {
    if (typeof r[k] !== 'string') throw new ReproFormatError(`repro field ${k} must be a string`);
  }
  if (!(ORACLE_NAMES as readonly string[]).includes(r['property'] as string)) {
    throw new ReproFormatError(`repro field property must name an oracle (${ORACLE_NAMES.join(', ')}), got '${String(r['property'])}'`);
  }
  if (r['spec'] === null || typeof r['spec'] !== 'object') throw new ReproFormatError('repro field spec must be an object');
  if (r['expect'] !== 'exactly-once' && r['expect'] !== 'at-least-once') {
    throw new ReproFormatError('repro field expect must be exactly-once or at-least-once');
  }
  return value as Repro;
}
