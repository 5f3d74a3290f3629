/**
 * scenarioSchema: the zod schema of a scenario JSON file (docs/scenarios.md): the scenario
 * data of Scenario.ts plus `version` (RUN_SPEC_VERSION). parseScenario.ts applies it (and the
 * TypeScript form, defineScenario, the same schema without `version`); the JSON Schema it emits
 * (`schemas/scenario.schema.json`, scripts/emitScenarioSchema.ts) lets editors complete and
 * check scenario files.
 *
 * The schema fixes the scenario's own shapes: points, steps, actions, expectations, bounds.
 * What depends on the run (hosts and tasks that exist, operator uids, methods, the job and the
 * configuration, which are RunSpec parts) is checked by compiling the scenario into a RunSpec
 * and validating that (compileScenario.ts), with its error paths mapped back to the scenario's.
 */
import { z } from 'zod';
import { RUN_SPEC_VERSION } from '../sim/run/RunSpec.ts';
import { JOB_STATUSES } from './job.ts';

const id = z.int().min(1);
const ms = z.number().min(0).max(1e9);
const task = z.string().regex(/^v\d+#\d+$/, 'a task is named <vertex>#<subtask>, e.g. v1#0');
const host = z.string().regex(/^(jobmanager|taskmanager-\d+)$/, 'a host is jobmanager or taskmanager-<n>');
const status = z.enum(JOB_STATUSES as [string, ...string[]]);

const taskPoint = z.strictObject({
  kind: z.literal('task'),
  checkpoint: id,
  phase: z.enum(['triggered', 'first-barrier', 'aligned', 'sync-done', 'async-done', 'acked', 'ack-received', 'notified']),
  task: task.optional(),
});
const jobMasterPoint = z.strictObject({
  kind: z.literal('jobmaster'),
  checkpoint: id,
  phase: z.enum(['triggered', 'coordinators-snapshotted', 'completed', 'notified']),
});
const sinkPoint = z.strictObject({ kind: z.literal('sink'), phase: z.enum(['pre-committed', 'committed']), nth: id });
const restorePoint = z.strictObject({ kind: z.literal('restore'), nth: id.optional(), checkpoint: id.optional() });
const jobPoint = z.strictObject({ kind: z.literal('job'), status, nth: id.optional() });

/** A protocol point (Scenario.ts ScenarioPoint). */
const point = z.discriminatedUnion('kind', [taskPoint, jobMasterPoint, sinkPoint, restorePoint, jobPoint]);

const message = z.strictObject({
  type: z.literal('message'),
  action: z.enum(['lose', 'delay', 'hold']),
  method: z.string().min(1),
  checkpoint: id.optional(),
  from: z.string().min(1).optional(),
  to: z.string().min(1).optional(),
  jobRun: id.optional(),
  nth: id.optional(),
  delayMs: z.number().positive().max(1e9).optional(),
  durationMs: z.number().positive().max(1e9).optional(),
});

/** What a step does (Scenario.ts StepAction): a triggered fault without `when`. */
const action = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('crash'), host, downMs: ms.optional() }),
  z.strictObject({ type: z.literal('global-failure') }),
  z.strictObject({ type: z.literal('pause'), host, durationMs: ms }),
  z.strictObject({ type: z.literal('partition'), a: host, b: host, oneWay: z.boolean().optional(), durationMs: ms }),
  z.strictObject({ type: z.literal('slow-task'), operator: z.string().min(1), factor: z.number().min(1).max(1e6), durationMs: ms }),
  message,
]);

const step = z.union([
  z.strictObject({ at: point, do: action }),
  z.strictObject({ atMs: ms, do: action }),
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
  z.strictObject({ kind: z.literal('checkpointCompleted'), checkpoint: id }),
  z.strictObject({
    kind: z.literal('checkpointAborted'), checkpoint: id,
    reason: z.string().regex(/^[A-Z_]+$/, 'a reason is a CheckpointFailureReason name, e.g. CHECKPOINT_EXPIRED').optional(),
  }),
  bounded('restores'),
  z.strictObject({ kind: z.literal('restoredFrom'), checkpoint: id, nth: id.optional() }),
  z.strictObject({ kind: z.literal('jobStatus'), status }),
  z.strictObject({ kind: z.literal('markReached'), name: z.string().min(1) }),
  z.strictObject({ kind: z.literal('markNotReached'), name: z.string().min(1) }),
  bounded('duplicates'),
  bounded('failovers'),
  atPoint,
]);

/** A scenario file: the envelope and the scenario's data. */
export const scenarioSchema = z.strictObject({
  version: z.literal(RUN_SPEC_VERSION),
  name: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'a name is lower-case words joined by -, e.g. crash-during-alignment'),
  protects: z.string().min(1),
  source: z.string().min(1).optional(),
  /** A RunSpec JobSpec (validated with the RunSpec). */
  job: z.record(z.string(), z.unknown()).optional(),
  /** RunSpec fields but version and job (validated with the RunSpec). */
  config: z.record(z.string(), z.unknown()).optional(),
  input: z.strictObject({ records: z.int().min(1) }).optional(),
  steps: z.array(step),
  expect: z.array(expectation),
  promise: z.enum(['exactly-once', 'at-least-once']).optional(),
});

/** The building blocks, for files that embed scenario parts (a scenario repro's expectations and points). */
export const scenarioSchemaParts = { point, action, step, expectation };
