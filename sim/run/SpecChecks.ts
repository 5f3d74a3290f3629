/**
 * SpecChecks: what the RunSpec family's checks share: the one-line failure, the words for a bad
 * value (never a non-finite number or a whole object), paths, and the largest time a spec may
 * give. The checks themselves are the schemas (runSpecSchema.ts) and validateRunSpec's checks
 * after parsing.
 */
import { SimInputError } from '../SimInputError.ts';

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
 * The largest time a spec may give, ms (about 11.6 days of virtual time): the sim counts whole
 * microseconds in doubles, and virtual times plus costs (a batch sums up to 32 record costs)
 * must stay exact integers (below 2^53).
 */
export const MAX_SPEC_MS = 1e9;
