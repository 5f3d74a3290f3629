/**
 * parseWithSchema's choice of the problem to report, on small schemas: every line is
 * `<path>: <reason>`, an absent field is `missing`, and in a union without a discriminator the
 * branch the value was meant for speaks.
 */
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { SimInputError } from '../../SimInputError.ts';
import { formatSpecIssues, parseWithSchema, specErrorMap } from './parseWithSchema.ts';

function refusal(schema: z.ZodType, value: unknown): string {
  try {
    parseWithSchema(schema, value, 'value');
  } catch (e) {
    expect(e).toBeInstanceOf(SimInputError);
    return (e as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('parseWithSchema', () => {
  test('every line is <path>: <reason>, the top named by the root', () => {
    expect(refusal(z.strictObject({ n: z.number() }), { n: 'x' })).toBe('n: must be a number, got "x"');
    expect(refusal(z.strictObject({ n: z.number() }), 5)).toBe('value: must be an object, got 5');
  });

  test('an absent field is missing; an absent discriminator lists the allowed values', () => {
    const s = z.strictObject({ a: z.strictObject({ n: z.number() }) });
    expect(refusal(s, { a: {} })).toBe('a.n: missing');
    const d = z.discriminatedUnion('kind', [z.strictObject({ kind: z.literal('x') }), z.strictObject({ kind: z.literal('y') })]);
    expect(refusal(z.strictObject({ d }), { d: {} })).toBe('d.kind: missing (kinds: x, y)');
    // A null is there: it gets the reason, not missing.
    expect(refusal(s, { a: { n: null } })).toBe('a.n: must be a number, got null');
    // Without the value nothing can be known missing.
    const r = s.safeParse({ a: {} }, { error: specErrorMap });
    expect(r.success ? '' : formatSpecIssues(r.error.issues, 'value')).toBe('a.n: must be a number, got undefined');
  });

  test('zod bounds in readable words', () => {
    expect(refusal(z.strictObject({ t: z.number().min(0) }), { t: -1 })).toBe('t: must be a number >= 0, got -1');
    expect(refusal(z.strictObject({ t: z.number().gt(0) }), { t: 0 })).toBe('t: must be a number above 0, got 0');
    expect(refusal(z.strictObject({ s: z.string().min(1) }), { s: '' })).toBe('s: must not be empty');
    expect(refusal(z.strictObject({ e: z.enum(['a', 'b']) }), { e: 'c' })).toBe('e: must be one of a, b, got "c"');
    // A long list and a near miss: the message says which was meant.
    const long = z.strictObject({ e: z.enum(['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'notify-complete-skipped']) });
    expect(refusal(long, { e: 'notify-complete-skiped' })).toMatch(/, got "notify-complete-skiped" \(did you mean "notify-complete-skipped"\?\)$/);
    expect(refusal(long, { e: 'zulu' })).toMatch(/, got "zulu"$/);
  });

  test('a union: the branch with the value\'s distinguishing key speaks, unknown fields first', () => {
    const u = z.union([
      z.strictObject({ at: z.strictObject({ k: z.number() }), do: z.strictObject({ host: z.string() }) }),
      z.strictObject({ atMs: z.number(), do: z.strictObject({ host: z.string() }) }),
    ]);
    expect(refusal(z.strictObject({ steps: z.array(u) }), { steps: [{ at: { k: 1 }, do: { hots: 'h' } }] }))
      .toBe('steps[0].do: unknown field "hots" (fields: host)');
    expect(refusal(z.strictObject({ steps: z.array(u) }), { steps: [{ atMs: 1, do: { hots: 'h' } }] }))
      .toBe('steps[0].do: unknown field "hots" (fields: host)');
  });

  test('a union whose branches fit alike: the one that got deepest into the value, then the one with fewer problems, else the union\'s reason', () => {
    const u = z.union([z.strictObject({ a: z.strictObject({ x: z.number() }) }), z.strictObject({ a: z.number() })]);
    expect(refusal(z.strictObject({ u }), { u: { a: { x: 's' } } })).toBe('u.a.x: must be a number, got "s"');
    const fewer = z.union([z.strictObject({ a: z.number() }), z.strictObject({ a: z.boolean(), c: z.number() })]);
    expect(refusal(z.strictObject({ u: fewer }), { u: { a: 's' } })).toBe('u.a: must be a number, got "s"');
    const alike = z.union([z.strictObject({ a: z.number() }), z.strictObject({ b: z.number() })]);
    expect(refusal(z.strictObject({ u: alike }), { u: {} })).toBe('u: does not match any allowed form, got an object');
  });
});
