/**
 * specFields: the zod builders the RunSpec, repro and scenario schemas are made of. Each builder
 * fixes the one-line reason a bad value gets (`must be an integer in 1..64, got 0`), whichever of
 * its checks failed, so messages read the same as before the schemas existed; the path in front
 * of it is added by {@link formatSpecIssue}. Each also carries the JSON Schema facts editors show
 * (type, bounds, description).
 *
 * Numbers are finite (zod refuses NaN and ±Infinity); times are in ms and at most
 * {@link MAX_SPEC_MS}, which keeps every virtual time an exact integer number of µs.
 */
import { z } from 'zod';
import { describe, MAX_SPEC_MS } from '../SpecChecks.ts';

/** The reason for a bad value `input`, without the path. */
type Reason = (input: unknown) => string;

/** zod's error parameter giving `reason` for every issue of the schema it is attached to. */
export function because(reason: Reason): { error: (iss: { readonly input?: unknown }) => string } {
  return { error: (iss) => reason(iss.input) };
}

/** An integer (a safe one) in [min, max]; `max` absent: no upper bound. */
export function intField(min: number, max?: number): z.ZodNumber {
  const range = max === undefined ? `>= ${min}` : `in ${min}..${max}`;
  const e = because((v) => `must be an integer ${range}, got ${describe(v)}`);
  const s = z.number(e).int(e).min(min, e);
  return max === undefined ? s : s.max(max, e);
}

/** A number of milliseconds in [min, MAX_SPEC_MS]; fractions allowed. */
export function msField(min = 0): z.ZodNumber {
  const e = because((v) => `must be a number of ms >= ${min}, got ${describe(v)}`);
  return z.number(e).min(min, e)
    .max(MAX_SPEC_MS, because((v) => `must be at most ${MAX_SPEC_MS} ms, got ${describe(v)}`));
}

/** A finite number above `min` (exclusive). */
export function aboveField(min: number): z.ZodNumber {
  const e = because((v) => `must be a finite number above ${min}, got ${describe(v)}`);
  return z.number(e).gt(min, e);
}

/** A finite number in [min, max]; above `max` the reason names the bound alone. */
export function atLeastField(min: number, max?: number): z.ZodNumber {
  const e = because((v) => `must be a finite number >= ${min}, got ${describe(v)}`);
  const s = z.number(e).min(min, e);
  return max === undefined ? s : s.max(max, because((v) => `must be at most ${max}, got ${describe(v)}`));
}

/** A probability in [0, 1]. */
export function probabilityField(): z.ZodNumber {
  const e = because((v) => `must be a probability in [0, 1], got ${describe(v)}`);
  return z.number(e).min(0, e).max(1, e);
}

/** One of `values`; `noun` words the reason as `unknown <noun> "x" (<plural>: a, b)` instead. */
export function oneOfField<const T extends readonly [string, ...string[]]>(
  values: T, noun?: { readonly one: string; readonly many: string },
): z.ZodEnum<{ [K in T[number]]: K }> {
  const list = values.join(', ');
  return z.enum(values, because((v) => {
    if (noun === undefined) return `must be one of ${list}, got ${describe(v)}`;
    return typeof v === 'string' ? `unknown ${noun.one} ${describe(v)} (${noun.many}: ${list})` : `must be a string, got ${describe(v)}`;
  }));
}

/** A non-empty array as a tuple type, for {@link oneOfField} from a readonly list. */
export function asTuple<T extends string>(values: readonly T[]): readonly [T, ...T[]] {
  if (values.length === 0) throw new Error('asTuple: an empty list');
  return values as readonly [T, ...T[]];
}

/** The largest parallelism a RunSpec may ask for, of any operator in any job run. */
export const MAX_RUN_PARALLELISM = 64;
