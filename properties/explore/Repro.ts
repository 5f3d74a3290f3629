/**
 * A repro file: a RunSpec plus the violated property, the trace hash, and the versions of
 * checkpoint-sim and of this format (DESIGN.md "A repro file is a RunSpec plus ..."). `replay`
 * reads it back; a malformed file is refused with a one-line reason.
 *
 * {@link reproSchema} is the file's zod schema (its spec is a whole RunSpec), emitted as
 * schemas/repro.schema.json; {@link parseRepro} checks the envelope with it (the spec only as
 * far as its version: replay validates the spec itself, so its errors say they are in the spec).
 */
import { z } from 'zod';
import { ORACLE_NAMES } from '../oracles/judgeRun.ts';
import { EXPLORE_STRATEGIES, RUN_STRATEGIES } from '../arbitraries/ExploreStrategy.ts';
import type { DeepReadonly, RunSpec } from '../../sim/run/RunSpec.ts';
import { runSpecSchema } from '../../sim/run/runSpecSchema.ts';
import { specErrorMap, pathText } from '../../sim/run/schema/parseWithSchema.ts';
import { checkRunSpecVersion } from '../../sim/run/validateRunSpec.ts';
import { SimInputError } from '../../sim/SimInputError.ts';

export const REPRO_FORMAT_VERSION = 1;

/**
 * The properties a scenario repro may record besides the oracles': a step that never fired, an
 * expectation that failed (scenarios/judgeScenario.ts). Accepted only with a `scenario` field.
 */
export const SCENARIO_PROPERTIES = ['scenario-step', 'scenario-expectation'] as const;

const oracleList = ORACLE_NAMES.join(', ');
const PROPERTIES = [...ORACLE_NAMES, ...SCENARIO_PROPERTIES] as const;

/**
 * What a scenario's repro adds (scenarios/runScenario.ts), so that `replay` judges the same
 * thing: the scenario's name, its steps (one phrase each), their points (null for a step at a
 * time), where each went in the spec (`targets`: `{ fault: i }` or `{ action: j }`, a savepoint
 * step being an action; absent, as in repros of scenarios before actions, faults 0..n-1 are the
 * steps, in order) and its expectations, as the
 * scenario file holds them. The replay command checks the expectations' shape
 * (scenarios/scenarioSchema.ts); this layer keeps them as data.
 */
const stepTarget = z.union([
  z.strictObject({ fault: z.int().min(0).meta({ description: 'The step is faults[fault] of the spec.' }) }),
  z.strictObject({ action: z.int().min(0).meta({ description: 'The step is actions[action] of the spec.' }) }),
]);

const reproScenarioSchema = z.strictObject({
  name: z.string(),
  steps: z.array(z.string()),
  points: z.array(z.unknown()),
  targets: z.array(stepTarget)
    .meta({ description: 'Where each step went in the spec, { fault: i } or { action: j }; absent: step i is faults[i].' })
    .exactOptional(),
  expect: z.array(z.unknown()),
}).refine((o) => o.points.length === o.steps.length, { message: 'must have one point per step', path: ['points'] })
  .refine((o) => o.targets === undefined || o.targets.length === o.steps.length, { message: 'must have one target per step', path: ['targets'] })
  .meta({ description: 'Present when a scenario wrote it: its name, steps, their points and its expectations, so replay judges the same.' });

export type ReproScenario = DeepReadonly<z.infer<typeof reproScenarioSchema>>;
/** A repro file, as the JSON Schema shows it (field order is the order messages list them). */
export const reproSchema = z.strictObject({
  $schema: z.string().meta({ description: 'The JSON Schema an editor checks this file with (ignored by checkpoint-sim).' })
    .exactOptional(),
  format: z.literal('checkpoint-sim-repro'),
  formatVersion: z.literal(REPRO_FORMAT_VERSION).meta({ description: 'The repro format version.' }),
  checkpointSimVersion: z.string().meta({ description: 'The checkpoint-sim version that wrote it.' }),
  property: z.enum(PROPERTIES, { error: (iss) => `must name an oracle (${oracleList}), got '${String(iss.input)}'` })
    .meta({ description: 'The violated property (docs/oracles.md).' }),
  expect: z.enum(['exactly-once', 'at-least-once'], { error: () => 'must be exactly-once or at-least-once' })
    .meta({ description: 'The promise the run was judged against, so replay judges it the same way.' }),
  summary: z.string().meta({ description: 'One line: what was violated.' }),
  traceHash: z.string().meta({ description: 'The trace hash of the run when it was written.' }),
  stage: z.enum(['unshrunk', 'shrunk']).meta({ description: 'unshrunk while shrinking is under way, shrunk when done.' }),
  fastCheck: z.strictObject({ seed: z.number().int(), path: z.string() })
    .meta({ description: 'fast-check\'s seed and path of the counterexample, for replay --seed --path.' }).exactOptional(),
  fork: z.strictObject({ checkpointId: z.number().int().min(1), rescale: z.literal(true).optional() })
    .meta({ description: 'Present when the failing run is a restore fan-out fork: fast-check\'s run with a global failure when this checkpoint completes (the spec holds that fault last), or with rescale, cancelled then and restored from it at another parallelism (the spec holds that rescale action last), for replay --seed --path --fork [--fork-rescale].' })
    .exactOptional(),
  strategy: z.strictObject({
    explore: z.enum(EXPLORE_STRATEGIES).meta({ description: 'explore --strategy, which replay --seed --path --strategy takes.' }),
    run: z.enum(RUN_STRATEGIES).meta({ description: 'The strategy that drew this run (under mixed, one of the others).' }),
  }).meta({ description: 'Present when explore wrote it: how its runs were drawn, and which strategy drew this one.' })
    .exactOptional(),
  jobModule: z.strictObject({ hash: z.string().meta({ description: 'sha-256 of the module and its local imports.' }) })
    .meta({ description: 'Present when the job is a job module: its content hash when the repro was written; replay refuses the repro if the module changed since.' })
    .exactOptional(),
  spec: runSpecSchema,
  scenario: reproScenarioSchema.exactOptional(),
}).meta({
  title: 'checkpoint-sim repro file',
  description: 'A run that violated a property: a RunSpec plus what was violated. Run it with checkpoint-sim replay <file>.',
});

/** A repro file. `property` is an oracle's name (ORACLE_NAMES), typed as the string a Violation has. */
export type Repro = DeepReadonly<Omit<z.infer<typeof reproSchema>, 'spec' | 'property' | 'scenario'>>
  & { readonly property: string; readonly spec: RunSpec; readonly scenario?: ReproScenario };

/** The envelope as parseRepro checks it: the spec an object (replay validates it). */
const envelopeSchema = reproSchema.extend({
  spec: z.record(z.string(), z.unknown(), { error: () => 'must be an object' }),
});

/** Every field a repro file may have, in order. */
const REPRO_FIELDS = Object.keys(reproSchema.shape).filter((k) => k !== '$schema');

/** A repro file that cannot be used. */
export class ReproFormatError extends Error {
  override readonly name = 'ReproFormatError';
}

/**
 * Checks a parsed repro file: that it is one (format), of this format version, that its spec is
 * of this RunSpec version (before anything else, so an old file is refused for what it is), then
 * every envelope field. Not the spec's fields: replay validates them.
 * @throws ReproFormatError with a one-line reason.
 */
export function parseRepro(value: unknown): Repro {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ReproFormatError('repro file is not a JSON object');
  }
  const r = value as Record<string, unknown>;
  if (r['format'] !== 'checkpoint-sim-repro') {
    throw new ReproFormatError(r['format'] === undefined
      ? 'not a checkpoint-sim repro file (format field missing)'
      : `not a checkpoint-sim repro file (format is ${JSON.stringify(r['format'])}, not "checkpoint-sim-repro")`);
  }
  const unknown = Object.keys(r).filter((k) => k !== '$schema' && !REPRO_FIELDS.includes(k));
  if (unknown.length > 0) {
    throw new ReproFormatError(`unknown repro field "${unknown[0] ?? ''}" (fields: ${REPRO_FIELDS.join(', ')})`);
  }
  if (r['formatVersion'] !== REPRO_FORMAT_VERSION) {
    throw new ReproFormatError(`repro format version ${String(r['formatVersion'])} is not supported (expected ${REPRO_FORMAT_VERSION})`);
  }
  const spec = r['spec'];
  if (spec !== null && typeof spec === 'object' && !Array.isArray(spec)) {
    try {
      checkRunSpecVersion((spec as { version?: unknown }).version);
    } catch (e) {
      if (e instanceof SimInputError) throw new ReproFormatError(`spec: ${e.message}`, { cause: e });
      throw e;
    }
  }
  const parsed = envelopeSchema.safeParse(value, { error: specErrorMap });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ReproFormatError(`repro field ${pathText(issue?.path ?? [])} ${issue?.message ?? 'is not valid'}`);
  }
  const parsedRepro = parsed.data;
  if (parsedRepro.scenario === undefined && (SCENARIO_PROPERTIES as readonly string[]).includes(parsedRepro.property)) {
    throw new ReproFormatError(`repro field property must name an oracle (${oracleList}), got '${parsedRepro.property}'`);
  }
  return value as Repro;
}

