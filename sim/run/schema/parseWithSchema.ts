/**
 * parseWithSchema: checks a value against a zod schema of the RunSpec family (RunSpec, repro,
 * scenario) and turns the first problem into ONE line that names the field by its path in the
 * file, `faults[2].when.at.task must name a task as ...` or `jobManager: unknown field "x"
 * (fields: ioPoolSize)`. zod's own messages are not used: the builders of specFields.ts fix most
 * reasons, and {@link specErrorMap} words the rest (wrong types, unknown fields with the fields
 * that exist, a discriminated union's bad `type` or `kind` with the allowed values).
 *
 * Which problem is reported: the first zod finds (fields in schema order), except that an unknown
 * field of the same object or an enclosing one comes first (a misspelt `healtimeMs` should be
 * named, not the missing `healTimeMs` it caused). In a union without a discriminator (a trigger
 * `{ atMs } | { at }`, a parallelism number or map), the branch the value was meant for is the one
 * whose type matches and that has the fewest unknown fields at its top; when no branch or several
 * fit equally, the union's own reason is given.
 */
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
      : `must be one of ${iss.values.map(String).join(', ')}, got ${describe(iss.input)}`;
    case 'invalid_union': {
      if (iss.discriminator !== undefined) {
        const input = iss.input as Record<string, unknown> | undefined;
        const options = ((iss as { options?: readonly unknown[] }).options ?? []).map(String).join(', ');
        return `must be one of ${options}, got ${describe(input?.[iss.discriminator])}`;
      }
      return `does not match any allowed form, got ${describe(iss.input)}`;
    }
    case 'too_small': return `must be ${iss.inclusive === false ? 'above' : 'at least'} ${String(iss.minimum)}`
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
 * The one line for `issues`: the chosen issue's path (or `root` for the top, e.g. `run spec`)
 * and its reason, joined by a space when the reason reads on from the name (`must ...`, `is ...`), by a
 * colon otherwise (`unknown field ...`).
 */
export function formatSpecIssues(issues: readonly Issue[], root: string): string {
  const { path, message } = chooseIssue(issues, []);
  const name = path.length === 0 ? root : pathText(path);
  return message.startsWith('must ') || message.startsWith('is ') ? `${name} ${message}` : `${name}: ${message}`;
}

function chooseIssue(issues: readonly Issue[], prefix: Path): { path: Path; message: string } {
  const first = issues[0];
  if (first === undefined) return { path: prefix, message: 'is not valid' };
  const unknown = issues.find((i) => i.code === 'unrecognized_keys' && isPrefix(i.path, first.path));
  const chosen = unknown ?? first;
  const path = [...prefix, ...chosen.path];
  if (chosen.code === 'invalid_union' && chosen.discriminator === undefined && chosen.errors.length > 0) {
    const branch = intendedBranch(chosen.errors);
    if (branch !== undefined) return chooseIssue(branch, path);
  }
  return { path, message: chosen.message };
}

/** The branch of a union the value was meant for, or undefined when none or several fit as well. */
function intendedBranch(branches: readonly (readonly Issue[])[]): readonly Issue[] | undefined {
  const fitting = branches.filter((b) => !b.some((i) => i.path.length === 0
    && (i.code === 'invalid_type' || i.code === 'invalid_value')));
  const unknownAtTop = (b: readonly Issue[]): number => b.filter((i) => i.path.length === 0
    && i.code === 'unrecognized_keys').reduce((n, i) => n + (i.code === 'unrecognized_keys' ? i.keys.length : 0), 0);
  const best = Math.min(...fitting.map(unknownAtTop));
  const candidates = fitting.filter((b) => unknownAtTop(b) === best);
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
  if (!r.success) throw new SimInputError(formatSpecIssues(r.error.issues, root));
  return r.data;
}
