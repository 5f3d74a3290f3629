/**
 * SpecChecks: the small checks validateRunSpec is made of. Each names the field by its path in
 * the spec (`checkpoint.intervalMs`, `faults[2].host`) and throws a one-line SimInputError that
 * never prints a non-finite number or a whole object.
 */
import { SimInputError } from '../SimInputError.ts';
import type { DelayMs } from './RunSpec.ts';

/** Throws a one-line SimInputError. */
export function fail(message: string): never {
  throw new SimInputError(message);
}

/** A short description of a bad value for a one-line message. */
export function describe(v: unknown): string {
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'a non-finite number';
  if (v === undefined || v === null) return String(v);
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** Joins a path and a field name. */
export function at(path: string, field: string): string {
  return path === '' ? field : `${path}.${field}`;
}

/**
 * Checks that `v` is a plain object whose fields are all in `fields`, and returns it.
 * `path` '' stands for the spec itself.
 */
export function requireObject(v: unknown, path: string, fields: readonly string[]): Record<string, unknown> {
  const name = path === '' ? 'run spec' : path;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    fail(`${name} must be an object, got ${describe(v)}`);
  }
  for (const key of Object.keys(v)) {
    if (!fields.includes(key)) {
      fail(`${name}: unknown field ${JSON.stringify(key)} (fields: ${fields.join(', ')})`);
    }
  }
  return v as Record<string, unknown>;
}

/** Checks that `v` is an array, and returns it. */
export function requireArray(v: unknown, path: string): readonly unknown[] {
  if (!Array.isArray(v)) fail(`${path} must be an array, got ${describe(v)}`);
  return v;
}

/** Checks that `v` is a string, and returns it. */
export function requireString(v: unknown, path: string): string {
  if (typeof v !== 'string') fail(`${path} must be a string, got ${describe(v)}`);
  return v;
}

/** Checks that `v` is an integer in [min, max], and returns it. */
export function requireInt(v: unknown, path: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `in ${min}..${max}`;
    fail(`${path} must be an integer ${range}, got ${describe(v)}`);
  }
  return v;
}

/**
 * The largest time a spec may give, ms (about 11.6 days of virtual time): the sim counts whole
 * microseconds in doubles, and virtual times plus costs (a batch sums up to 32 record costs)
 * must stay exact integers (below 2^53).
 */
export const MAX_SPEC_MS = 1e9;

/**
 * Checks that `v` is a finite number of milliseconds in [`min`, {@link MAX_SPEC_MS}] (fractions
 * allowed), and returns it.
 */
export function requireMs(v: unknown, path: string, min = 0): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min) {
    fail(`${path} must be a number of ms >= ${min}, got ${describe(v)}`);
  }
  if (v > MAX_SPEC_MS) fail(`${path} must be at most ${MAX_SPEC_MS} ms, got ${describe(v)}`);
  return v;
}

/** Checks that `v` is a finite number above `min`, and returns it. */
export function requireAbove(v: unknown, path: string, min: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= min) {
    fail(`${path} must be a finite number above ${min}, got ${describe(v)}`);
  }
  return v;
}

/** Checks that `v` is a finite number >= `min`, and returns it. */
export function requireAtLeast(v: unknown, path: string, min: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min) {
    fail(`${path} must be a finite number >= ${min}, got ${describe(v)}`);
  }
  return v;
}

/** Checks that `v` is a probability in [0, 1], and returns it. */
export function requireProbabilityAt(v: unknown, path: string): number {
  if (typeof v !== 'number' || !(v >= 0 && v <= 1)) {
    fail(`${path} must be a probability in [0, 1], got ${describe(v)}`);
  }
  return v;
}

/** Checks that `v` is a boolean, and returns it. */
export function requireBoolean(v: unknown, path: string): boolean {
  if (typeof v !== 'boolean') fail(`${path} must be a boolean, got ${describe(v)}`);
  return v;
}

/** Checks that `v` is one of `values`, and returns it. */
export function requireOneOf<T extends string>(v: unknown, path: string, values: readonly T[]): T {
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
    fail(`${path} must be one of ${values.join(', ')}, got ${describe(v)}`);
  }
  return v as T;
}

/** Checks a delay distribution in ms: 0 <= minMs <= medianMs <= maxMs, all finite. */
export function requireDelayMs(v: unknown, path: string): DelayMs {
  const o = requireObject(v, path, ['minMs', 'medianMs', 'maxMs']);
  const min = requireMs(o['minMs'], at(path, 'minMs'));
  const median = requireMs(o['medianMs'], at(path, 'medianMs'));
  const max = requireMs(o['maxMs'], at(path, 'maxMs'));
  if (!(min <= median && median <= max)) fail(`${path} must have minMs <= medianMs <= maxMs`);
  return v as DelayMs;
}

/** Checks an optional field with `check` when present. */
export function optional<T>(v: unknown, check: (v: unknown) => T): T | undefined {
  return v === undefined ? undefined : check(v);
}
