/**
 * parseWithSchema: checks a value against a zod schema of the RunSpec family (RunSpec, repro,
 * scenario file) and turns the first problem into ONE line `<path>: <reason>` that names the field
 * by its path in the file, `faults[2].when.at.task: must name a task as ...` or `jobManager:
 * unknown field "x" (fields: ioPoolSize)`; a field the file leaves out is `missing`. zod's own
 * messages are not used: the builders of specFields.ts fix most reasons, and {@link specErrorMap}
 * words the rest (wrong types, unknown fields with the fields that exist, a discriminated union's
 * bad `type` or `kind` with the allowed values, bounds).
 *
 * Which problem is reported: the first zod finds (fields in schema order), except that an unknown
 * field of the same object or an enclosing one comes first (a misspelt `healtimeMs` should be
 * named, not the missing `healTimeMs` it caused). In a union without a discriminator (a trigger
 * `{ atMs } | { at }`, a scenario step, a parallelism number or map), the problem reported is
 * that of the branch the value was meant for (see intendedBranch); when no branch or several fit
 * equally, the union's own reason is given.
 */
import { closeMatches } from '../../closeMatches.ts';
import type { z } from 'zod';
import { SimInputError } from '../../SimInputError.ts';
import { describe } from '../SpecChecks.ts';

type Issue = z.core.$ZodIssue;
type RawIssue = z.core.$ZodRawIssue;
type Path = readonly PropertyKey[];

/**
 * The reason (no path) for an issue no builder worded. Handed to zod as the contextual error
 * map, so it sees the raw issue (its input and the schema that raised it).
 */
/** ` (did you mean "x"?)` when a typed string is close to one allowed value, else nothing. */
function didYouMean(input: unknown, values: readonly unknown[]): string {
  // Only for long lists (a short one is read at a glance) and near misses (a typo, not a guess).
  if (typeof input !== 'string' || values.length <= 6) return '';
  const names = values.filter((v): v is string => typeof v === 'string');
  const [best] = closeMatches(input, names, { limit: 1, maxDistance: Math.max(2, Math.floor(input.length / 4)), substrings: false });
  return best === undefined ? '' : ` (did you mean ${JSON.stringify(best)}?)`;
}

export function specErrorMap(iss: RawIssue): string {
  switch (iss.code) {
    case 'invalid_type': return `must be ${typeNoun(iss.expected)}, got ${describe(iss.input)}`;
    case 'unrecognized_keys': {
      const shape = (iss.inst as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)?._zod?.def?.shape;
      const fields = shape === undefined ? '' : ` (fields: ${Object.keys(shape).join(', ')})`;
      return `unknown field ${JSON.stringify(iss.keys[0] ?? '')}${fields}`;
    }
    case 'invalid_value': return iss.values.length === 1
      ? `must be ${JSON.stringify(iss.values[0])}, got ${describe(iss.input)}`
      : `must be one of ${iss.values.map(String).join(', ')}, got ${describe(iss.input)}${didYouMean(iss.input, iss.values)}`;
    case 'invalid_union': {
      if (iss.discriminator !== undefined) {
        const input = iss.input as Record<string, unknown> | undefined;
        const options = ((iss as { options?: readonly unknown[] }).options ?? []).map(String).join(', ');
        return `must be one of ${options}, got ${describe(input?.[iss.discriminator])}`;
      }
      return `does not match any allowed form, got ${describe(iss.input)}`;
    }
    case 'too_small':
      if (iss.origin === 'string' && Number(iss.minimum) === 1) return 'must not be empty';
      if (iss.origin === 'number') {
        return `must be a number ${iss.inclusive === false ? 'above' : '>='} ${String(iss.minimum)}, got ${describe(iss.input)}`;
      }
      return `must be ${iss.inclusive === false ? 'above' : 'at least'} ${String(iss.minimum)}`
        + `${iss.origin === 'array' || iss.origin === 'string' ? ` ${iss.origin === 'array' ? 'entries' : 'characters'}` : ''}`
        + `, got ${describe(iss.input)}`;
    case 'too_big': return `must be ${iss.inclusive === false ? 'below' : 'at most'} ${String(iss.maximum)}`
      + `${iss.origin === 'array' || iss.origin === 'string' ? ` ${iss.origin === 'array' ? 'entries' : 'characters'}` : ''}`
      + `, got ${describe(iss.input)}`;
    case 'invalid_format': return `must match ${iss.pattern ?? iss.format}, got ${describe(iss.input)}`;
    default: return `is not valid, got ${describe(iss.input)}`;
  }
}

function typeNoun(expected: string): string {
  switch (expected) {
    case 'object': case 'record': return 'an object';
    case 'array': case 'tuple': return 'an array';
    case 'int': return 'an integer';
    default: return `a ${expected}`;
  }
}

/** Joins a path the way messages print it: `faults[2].when.at`, '' for the top. */
export function pathText(path: Path): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text === '' ? String(key) : `.${String(key)}`;
  }
  return text;
}

/**
 * The one line for `issues`, `<path>: <reason>`: the chosen issue's path (`root`, e.g. `run spec`,
 * for the top) and its reason. A field that is absent from `value` (the data that was parsed) is
 * reported as `missing` rather than with the reason its check gave for `undefined`; a missing
 * discriminator (`type`, `kind`) lists the allowed values. Without `value` nothing is `missing`.
 */
export function formatSpecIssues(issues: readonly Issue[], root: string, value?: unknown): string {
  const { path, issue } = chooseIssue(issues, []);
  const name = path.length === 0 ? root : pathText(path);
  return `${name}: ${isMissing(issue, path, value) ? missingReason(issue) : issue.message}`;
}

/** Whether the issue is about a field that is absent from its (present) object in `value`. */
function isMissing(issue: Issue, path: Path, value: unknown): boolean {
  // A refinement or an unknown field speaks of the object, not of a value at the path.
  if (value === undefined || path.length === 0 || issue.code === 'custom' || issue.code === 'unrecognized_keys') return false;
  const parent = valueAt(value, path.slice(0, -1));
  return parent !== null && typeof parent === 'object' && !Array.isArray(parent)
    && (parent as Record<PropertyKey, unknown>)[path[path.length - 1] as PropertyKey] === undefined;
}

function missingReason(issue: Issue): string {
  if (issue.code !== 'invalid_union' || issue.discriminator === undefined) return 'missing';
  const options = (issue as { options?: readonly unknown[] }).options ?? [];
  return `missing (${issue.discriminator}s: ${options.map(String).join(', ')})`;
}

function valueAt(value: unknown, path: Path): unknown {
  let v = value;
  for (const key of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  return v;
}

function chooseIssue(issues: readonly Issue[], prefix: Path): { path: Path; issue: Issue } {
  const first = issues[0];
  if (first === undefined) {
    return { path: prefix, issue: { code: 'custom', path: [], message: 'is not valid', input: undefined } };
  }
  const unknown = issues.find((i) => i.code === 'unrecognized_keys' && isPrefix(i.path, first.path));
  const chosen = unknown ?? first;
  const path = [...prefix, ...chosen.path];
  if (chosen.code === 'invalid_union' && chosen.discriminator === undefined && chosen.errors.length > 0) {
    const branch = intendedBranch(chosen.errors);
    if (branch !== undefined) return chooseIssue(branch, path);
  }
  return { path, issue: chosen };
}

/**
 * The branch of a union the value was meant for, or undefined when none or several fit as well.
 * A branch fits when the value has its type; of those, the one with the fewest unknown fields at
 * its top wins (the value has the branch's distinguishing key: `at` rather than `atMs`); a tie
 * goes to the branch that got furthest into the value (its first problem deepest), then to the
 * one with the fewest problems.
 */
function intendedBranch(branches: readonly (readonly Issue[])[]): readonly Issue[] | undefined {
  let candidates = branches.filter((b) => !b.some((i) => i.path.length === 0
    && (i.code === 'invalid_type' || i.code === 'invalid_value')));
  const keep = (score: (b: readonly Issue[]) => number): void => {
    const best = Math.min(...candidates.map(score));
    candidates = candidates.filter((b) => score(b) === best);
  };
  keep((b) => b.reduce((n, i) => n + (i.path.length === 0 && i.code === 'unrecognized_keys' ? i.keys.length : 0), 0));
  keep((b) => -(b[0]?.path.length ?? 0));
  keep((b) => b.length);
  return candidates.length === 1 ? candidates[0] : undefined;
}

function isPrefix(a: Path, b: Path): boolean {
  return a.length <= b.length && a.every((k, i) => k === b[i]);
}

/**
 * Parses `value` with `schema` and returns zod's output.
 * @param root how the message names the top of the value, e.g. `run spec`.
 * @throws SimInputError with one line naming the field (see {@link formatSpecIssues}).
 */
export function parseWithSchema<S extends z.ZodType>(schema: S, value: unknown, root: string): z.output<S> {
  const r = schema.safeParse(value, { error: specErrorMap });
  if (!r.success) throw new SimInputError(formatSpecIssues(r.error.issues, root, value));
  return r.data;
}
