/**
 * scenarioSchema: the zod schema of a scenario JSON file (docs/scenarios.md): the scenario
 * data of Scenario.ts plus `version` (RUN_SPEC_VERSION). parseScenario.ts applies it (and the
 * TypeScript form, defineScenario, the same schema without `version`); the JSON Schema it emits
 * (`schemas/scenario.schema.json`, scripts/emitScenarioSchema.ts) lets editors complete and
 * check scenario files.
 *
 * Points, actions, the job and the configuration are the RunSpec schema's own building blocks
 * (sim/run/runSpecSchema.ts), so a scenario file and a RunSpec are checked, and completed in
 * editors, alike; the schema adds the scenario's steps, expectations and bounds. What depends on
 * the run (hosts and tasks that exist, operator uids) is checked by compiling the scenario into a
 * RunSpec and validating that (compileScenario.ts), its error paths mapped back to the scenario's.
 */
import { z } from 'zod';
import { CHECKPOINT_FAILURE_REASONS } from '../engine/index.ts';
import { MARK_NAMES } from '../sim/marks.ts';
import { RUN_SPEC_VERSION } from '../sim/run/RunSpec.ts';
import { actionSchema, faultSchema, jobSpecSchema, runSpecConfigSchema } from '../sim/run/runSpecSchema.ts';
import { msField } from '../sim/run/schema/specFields.ts';
import {
  faultActionSchema, JOB_POINT_STATUSES, protocolPointSchema,
} from '../sim/run/schema/faultSchema.ts';

const id = z.int().min(1);
const status = z.enum(JOB_POINT_STATUSES);
/** A mark a run can record (sim/marks.ts): any other name could only be judged vacuously. */
const markName = z.enum(MARK_NAMES);

/** A protocol point: the RunSpec's (Scenario.ts ScenarioPoint). */
const point = protocolPointSchema;

/** The fault types a step may fire: those with a trigger in a RunSpec (world settings go in config.faults). */
const STEP_ACTION_TYPES: readonly string[] = ['crash', 'global-failure', 'pause', 'partition', 'slow-task', 'coordinator-stall', 'message'];

/**
 * What a step does (Scenario.ts StepAction): a triggered fault without `when`, or an action on the
 * job (a RunSpec action, `savepoint` or `stop-with-savepoint`) without `when`: the RunSpec's schemas.
 */
const action = z.discriminatedUnion('type', [
  ...faultActionSchema.options.filter((o) => STEP_ACTION_TYPES.includes(o.shape.type.value)),
  ...actionSchema.options.map((o) => (o as unknown as z.ZodObject<{ when: z.ZodType }>).omit({ when: true })),
] as unknown as typeof faultActionSchema.options);

/**
 * What `config.faults` may hold: world settings only (in force from the start to the heal time,
 * so they always act). A fault with a trigger belongs in `steps`, where every step must fire; in
 * `config.faults` one that never fired would pass the scenario untested.
 */
/** Action faults a scenario takes neither as a step nor in config (channel-event: not a step kind yet). */
const NOT_IN_SCENARIOS: readonly string[] = ['channel-event'];
const WORLD_SETTING_TYPES = faultSchema.options.map((o) => o.shape.type.value)
  .filter((t) => !STEP_ACTION_TYPES.includes(t) && !NOT_IN_SCENARIOS.includes(t));
const worldSetting = z.discriminatedUnion('type', faultSchema.options
  .filter((o) => WORLD_SETTING_TYPES.includes(o.shape.type.value)) as unknown as typeof faultSchema.options, {
  error: (iss) => (iss.code === 'invalid_union' && typeof (iss.input as { type?: unknown } | undefined)?.type === 'string'
    ? `a ${String((iss.input as { type: string }).type)} fault goes in steps (where every step must fire); config.faults takes `
      + `world settings only: ${WORLD_SETTING_TYPES.join(', ')}`
    : undefined),
});

/**
 * The RunSpec fields a scenario may set, its faults world settings only, and no `actions`: every
 * action has a time or a point, so it is a step (where every step must fire).
 */
const { actions: _actions, ...configShape } = runSpecConfigSchema.shape;
const config = z.strictObject({
  ...configShape,
  faults: z.array(worldSetting).meta({ description: 'World-setting faults (rpc-loss, store-failure, ...); triggered faults go in steps.' })
    .exactOptional(),
}).meta({ description: 'RunSpec fields a scenario sets; the others get the scenario defaults. Actions are steps.' });

const step = z.union([
  z.strictObject({ at: point, do: action }),
  z.strictObject({ atMs: msField(), do: action }),
]);

const count = z.int().min(0);
const bounded = <K extends string>(kind: K) => z.strictObject({
  kind: z.literal(kind), atLeast: count.optional(), atMost: count.optional(), exactly: count.optional(),
}).refine((b) => b.atLeast !== undefined || b.atMost !== undefined || b.exactly !== undefined,
  { message: `${kind} needs a bound: atLeast, atMost or exactly` })
  .refine((b) => b.exactly === undefined || (b.atLeast === undefined && b.atMost === undefined),
    { message: 'exactly goes alone, without atLeast or atMost' })
  .refine((b) => b.atLeast === undefined || b.atMost === undefined || b.atLeast <= b.atMost,
    { message: 'atLeast must not be above atMost' });

const ENDING_ONLY = new Set(['duplicates']);

const atPoint = z.strictObject({
  kind: z.literal('at'),
  point,
  get expect(): z.ZodType<unknown> {
    return expectation;
  },
}).refine((a) => !ENDING_ONLY.has((a.expect as { kind?: string }).kind ?? ''),
  { message: 'duplicates are judged on the whole run, not at a point', path: ['expect', 'kind'] });

/** An expectation (Scenario.ts ScenarioExpectation). */
const expectation: z.ZodType<unknown> = z.discriminatedUnion('kind', [
  bounded('checkpointsCompleted'),
  z.strictObject({ kind: z.literal('checkpointCompleted'), checkpoint: id, jobRun: id.optional() }),
  z.strictObject({
    kind: z.literal('checkpointAborted'), checkpoint: id, jobRun: id.optional(),
    reason: z.enum(CHECKPOINT_FAILURE_REASONS).optional(),
  }),
  bounded('restores'),
  z.strictObject({ kind: z.literal('restoredFrom'), checkpoint: id, nth: id.optional() }),
  z.strictObject({ kind: z.literal('jobStatus'), status }),
  z.strictObject({ kind: z.literal('markReached'), name: markName }),
  z.strictObject({ kind: z.literal('markNotReached'), name: markName }),
  bounded('duplicates'),
  bounded('failovers'),
  z.strictObject({ kind: z.literal('savepointCompleted'), savepoint: id }),
  z.strictObject({
    kind: z.literal('savepointAborted'), savepoint: id,
    reason: z.enum(CHECKPOINT_FAILURE_REASONS).optional(),
  }),
  z.strictObject({
    kind: z.literal('savepointFailed'), savepoint: id,
    reason: z.enum(CHECKPOINT_FAILURE_REASONS).optional(),
  }),
  z.strictObject({ kind: z.literal('savepointNotSubsumed'), savepoint: id }),
  z.strictObject({ kind: z.literal('savepointNotNotified'), savepoint: id }),
  z.strictObject({ kind: z.literal('savepointTransactionsCommitted'), savepoint: id }),
  z.strictObject({
    kind: z.literal('jobRun'), jobRun: id,
    parallelism: z.union([id, z.record(z.string(), id)]).optional(),
    restoredFrom: z.enum(['savepoint', 'checkpoint']).optional(),
    claimMode: z.enum(['NO_CLAIM', 'CLAIM', 'LEGACY']).optional(),
    status: status.optional(),
  }),
  z.strictObject({ kind: z.literal('fullCheckpoint'), checkpoint: id, jobRun: id.optional() }),
  atPoint,
]);

/** A scenario file: the envelope and the scenario's data. */
export const scenarioSchema = z.strictObject({
  $schema: z.string().meta({ description: 'The JSON Schema an editor checks this file with (ignored by checkpoint-sim).' })
    .exactOptional(),
  version: z.literal(RUN_SPEC_VERSION),
  name: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'a name is lower-case words joined by -, e.g. crash-during-alignment'),
  protects: z.string().min(1),
  source: z.string().min(1).optional(),
  /** A RunSpec JobSpec (what depends on it, such as uids, is checked with the compiled RunSpec). */
  job: jobSpecSchema.optional(),
  /** RunSpec fields but version and job, each optional (checked again with the compiled RunSpec). */
  config: config.optional(),
  input: z.strictObject({ records: z.int().min(1) }).optional(),
  steps: z.array(step),
  expect: z.array(expectation),
  promise: z.enum(['exactly-once', 'at-least-once']).optional(),
}).meta({
  title: 'checkpoint-sim scenario file',
  description: `A fault-injection scenario (docs/scenarios.md): steps fired at protocol points or times, and what must hold. Run it with checkpoint-sim scenario run --file <file>.`,
});

/** The building blocks, for files that embed scenario parts (a scenario repro's expectations and points). */
export const scenarioSchemaParts = { point, action, step, expectation };
