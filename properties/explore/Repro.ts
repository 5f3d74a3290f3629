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
  'stage', 'fastCheck', 'spec', 'scenario',
];

/**
 * The properties a scenario repro may record besides the oracles': a step that never fired, an
 * expectation that failed (scenarios/judgeScenario.ts).
 */
export const SCENARIO_PROPERTIES: readonly string[] = ['scenario-step', 'scenario-expectation'];

/**
 * What a scenario's repro adds (scenarios/runScenario.ts), so that `replay` judges the same
 * thing: the scenario's name, its steps (one phrase each; faults 0..n-1 of the spec are the
 * steps, in order), their points (null for a step at a time) and its expectations, as the
 * scenario file holds them. The replay command checks the expectations' shape
 * (scenarios/scenarioSchema.ts); this layer keeps them as data.
 */
export interface ReproScenario {
  readonly name: string;
  readonly steps: readonly string[];
  readonly points: readonly unknown[];
  readonly expect: readonly unknown[];
}

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
  /** Present when a scenario wrote it (a scenario-level failure needs its steps and expectations). */
  readonly scenario?: ReproScenario;
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
  const scenario = r['scenario'];
  if (scenario !== undefined) checkScenario(scenario);
  const properties = [...ORACLE_NAMES, ...(scenario === undefined ? [] : SCENARIO_PROPERTIES)];
  if (!properties.includes(r['property'] as string)) {
    throw new ReproFormatError(`repro field property must name an oracle (${properties.join(', ')}), got '${String(r['property'])}'`);
  }
  if (r['spec'] === null || typeof r['spec'] !== 'object') throw new ReproFormatError('repro field spec must be an object');
  if (r['expect'] !== 'exactly-once' && r['expect'] !== 'at-least-once') {
    throw new ReproFormatError('repro field expect must be exactly-once or at-least-once');
  }
  return value as Repro;
}

function checkScenario(v: unknown): void {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new ReproFormatError('repro field scenario must be an object');
  const o = v as Record<string, unknown>;
  const fields = ['name', 'steps', 'points', 'expect'];
  const unknown = Object.keys(o).find((k) => !fields.includes(k));
  if (unknown !== undefined) throw new ReproFormatError(`unknown repro field "scenario.${unknown}" (fields: ${fields.join(', ')})`);
  if (typeof o['name'] !== 'string') throw new ReproFormatError('repro field scenario.name must be a string');
  if (!Array.isArray(o['steps']) || !o['steps'].every((x) => typeof x === 'string')) {
    throw new ReproFormatError('repro field scenario.steps must be an array of strings');
  }
  if (!Array.isArray(o['points']) || o['points'].length !== o['steps'].length) {
    throw new ReproFormatError('repro field scenario.points must be an array, one per step');
  }
  if (!Array.isArray(o['expect'])) throw new ReproFormatError('repro field scenario.expect must be an array');
}
