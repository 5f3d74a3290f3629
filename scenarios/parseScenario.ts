/**
 * parseScenario: checks scenario data, in its TypeScript form (defineScenario: no `version`) or
 * its file form (`version` first: a file of another version is refused with one line that says
 * which version it has and which this build reads), against scenarioSchema.ts (`config.actions` is
 * refused with where actions go: steps), then compiles it
 * into a RunSpec and validates that (compileScenario.ts), so hosts, operator uids, the job and
 * the configuration are checked as a RunSpec's are. Returns the scenario as plain data (message
 * fault builders become their data).
 *
 * @throws SimInputError with one line `<path>: <reason>` naming the first bad field by its path,
 *   worded as a RunSpec's errors are (sim/run/schema/parseWithSchema.ts), e.g. `steps[1].do.host:
 *   ...`, `steps[0].do: unknown field "hots" (fields: type, host, downMs)` or `expect[0].kind:
 *   unknown kind "checkpointz" (kinds: ...)`.
 */
import type { z } from 'zod';
import { formatSpecIssues, pathText, specErrorMap } from '../sim/run/schema/parseWithSchema.ts';
import { checkRunSpecVersion } from '../sim/run/validateRunSpec.ts';
import { SimInputError } from '../sim/SimInputError.ts';
import { compileScenario } from './compileScenario.ts';
import type { Scenario } from './Scenario.ts';
import { scenarioSchema } from './scenarioSchema.ts';

const definitionSchema = scenarioSchema.omit({ version: true, $schema: true });

/**
 * The one line for the issues: the RunSpec's formatter (the same paths and words as a RunSpec's
 * errors), except for a step that is neither `{ at, do }` nor `{ atMs, do }`, which is told what
 * a step holds rather than what each form lacks.
 */
function oneLine(issues: readonly z.core.$ZodIssue[], data: unknown): string {
  const first = issues[0];
  const actions = issues.find((i) => i.code === 'unrecognized_keys' && i.path.length === 1 && i.path[0] === 'config'
    && i.keys.includes('actions'));
  if (actions !== undefined) {
    return 'config.actions: an action goes in steps ({ at, do: triggerSavepoint() } or { atMs, do: ... }), where every step must fire';
  }
  if (first?.code === 'invalid_union' && first.path.length === 2 && first.path[0] === 'steps') {
    const step = (data as { steps: unknown[] }).steps[first.path[1] as number];
    if (step !== null && typeof step === 'object' && !Array.isArray(step)) {
      const where = pathText(first.path);
      if (!('do' in step)) return `${where}: a step needs do (the action)`;
      if ('at' in step === 'atMs' in step) return `${where}: a step has exactly one of at (a protocol point) or atMs (a time)`;
    }
  }
  return formatSpecIssues(issues, 'scenario', data);
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
  const parsed = (form === 'file' ? scenarioSchema : definitionSchema).safeParse(data, { error: specErrorMap });
  if (!parsed.success) throw new SimInputError(oneLine(parsed.error.issues, data));
  const { version: _version, $schema: _schema, ...scenario } = parsed.data as Record<string, unknown>;
  compileScenario(scenario as unknown as Scenario);
  return scenario as unknown as Scenario;
}
