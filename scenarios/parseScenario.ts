/**
 * parseScenario: checks scenario data, in its TypeScript form (defineScenario: no `version`) or
 * its file form (`version` first: a file of another version is refused with one line that says
 * which version it has and which this build reads), against scenarioSchema.ts, then compiles it
 * into a RunSpec and validates that (compileScenario.ts), so hosts, operator uids, the job and
 * the configuration are checked as a RunSpec's are. Returns the scenario as plain data (message
 * fault builders become their data).
 *
 * @throws SimInputError with one line naming the first bad field by its path, e.g.
 *   `steps[1].do.host: ...` or `expect[0].kind: unknown kind "checkpointz" (kinds: ...)`.
 */
import type { z } from 'zod';
import { checkRunSpecVersion } from '../sim/run/validateRunSpec.ts';
import { SimInputError } from '../sim/SimInputError.ts';
import { compileScenario } from './compileScenario.ts';
import type { Scenario } from './Scenario.ts';
import { scenarioSchema } from './scenarioSchema.ts';

const definitionSchema = scenarioSchema.omit({ version: true, $schema: true });

/** `steps[1].do.host` from zod's path. */
function pathOf(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const p of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[p] : undefined;
  return v;
}

/** The first issue as one line. */
function oneLine(issue: z.core.$ZodIssue, root: unknown): string {
  const path = pathOf(issue.path);
  const where = path === '' ? 'scenario' : path;
  if (issue.code === 'invalid_union' && 'discriminator' in issue && typeof issue.discriminator === 'string') {
    const options = (issue as { options?: readonly unknown[] }).options ?? [];
    const got = valueAt(root, issue.path);
    return `${where}: unknown ${issue.discriminator} ${JSON.stringify(got) ?? 'undefined'} (${issue.discriminator}s: ${options.map(String).join(', ')})`;
  }
  if (issue.code === 'invalid_union') {
    // A step is either { at, do } or { atMs, do }: say so rather than list both failures.
    const v = valueAt(root, issue.path);
    if (/^steps\[\d+\]$/.test(path) && v !== null && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (!('do' in o)) return `${where}: a step needs do (the action)`;
      if ('at' in o === 'atMs' in o) return `${where}: a step has exactly one of at (a protocol point) or atMs (a time)`;
      const inner = issue.errors.find((errs) => errs.length > 0 && errs.every((e) => e.code !== 'unrecognized_keys'))?.[0];
      if (inner !== undefined) return oneLine({ ...inner, path: [...issue.path, ...inner.path] } as z.core.$ZodIssue, root);
    }
  }
  if (issue.code === 'invalid_type' && valueAt(root, issue.path) === undefined) return `${where}: missing (expected ${issue.expected})`;
  if (issue.code === 'unrecognized_keys') return `${where}: unknown field ${JSON.stringify(issue.keys[0])}`;
  return `${where}: ${issue.message}`;
}

export function parseScenario(value: unknown, form: 'file' | 'definition'): Scenario {
  // Builders (lose(...)) become their data; so does anything else with a toJSON.
  let data: unknown;
  try {
    data = JSON.parse(JSON.stringify(value) ?? 'null');
  } catch (e) {
    throw new SimInputError(`scenario is not plain data: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  if (form === 'file') {
    if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new SimInputError('a scenario file holds one JSON object');
    // The RunSpec's own refusal, so every file of another version says the same.
    checkRunSpecVersion((data as Record<string, unknown>)['version']);
  }
  const parsed = (form === 'file' ? scenarioSchema : definitionSchema).safeParse(data);
  if (!parsed.success) throw new SimInputError(oneLine(parsed.error.issues[0] as z.core.$ZodIssue, data));
  const { version: _version, $schema: _schema, ...scenario } = parsed.data as Record<string, unknown>;
  compileScenario(scenario as unknown as Scenario);
  return scenario as unknown as Scenario;
}
