/**
 * runSpecSchema: the RunSpec as one zod schema. The TypeScript types (RunSpec.ts) are inferred
 * from it, validateRunSpec parses with it, and `npm run schemas` emits it as JSON Schema
 * (schemas/runspec.schema.json) so editors complete and check spec files.
 *
 * The schema checks each field's type, bounds and allowed values, and refuses unknown fields
 * everywhere. What needs the job, the cluster or two top-level fields at once (operator uids,
 * hosts, tasks, the largest parallelism, times before the heal time, checkpoint times in whole
 * µs, available modes) is checked after parsing, in validateRunSpec: see its header.
 *
 * Exports, for the schemas built on this one (repro files, scenario files):
 * - {@link runSpecSchema}: a whole RunSpec (with its optional `$schema`);
 * - {@link runSpecConfigSchema}: the RunSpec fields a scenario's `config` may set (all but
 *   `$schema`, `version` and `job`), each optional, `checkpoint` and `budgets` partial;
 * - {@link jobSpecSchema}: `job`;
 * - {@link actionSchema}: one entry of `actions` (savepoints), {@link actionTriggerSchema};
 * - {@link faultSchema}: one entry of `faults`; {@link faultActionSchema}: a fault without
 *   `when` (a scenario step's `do`); {@link messageFaultSchema}, {@link messageActionSchema};
 * - {@link protocolPointSchema}: a protocol point (`when.at`, a scenario step's `at`), and each
 *   kind ({@link taskPointSchema}, {@link jobmasterPointSchema}, {@link sinkPointSchema},
 *   {@link restorePointSchema}, {@link jobPointSchema}); {@link faultTriggerSchema}: `when`;
 * - {@link checkpointSpecSchema}, {@link delayMsSchema}, {@link restartStrategySchema};
 * - {@link parseWithSchema}: parse with any of these and get one line naming the field.
 * All times are ms.
 */
import { z } from 'zod';
import { PLANTED_BUG_IDS } from '../../engine/index.ts';
import { actionSchema } from './schema/actionSchema.ts';
import { delayMsSchema, faultSchema } from './schema/faultSchema.ts';
import { jobSpecSchema } from './schema/jobSchema.ts';
import { describe } from './SpecChecks.ts';
import { MAX_PCT_CHANGE_POINTS } from '../PctScheduler.ts';
import {
  aboveField, asTuple, atLeastField, because, intField, msField, oneOfField, MAX_RUN_PARALLELISM,
} from './schema/specFields.ts';

export {
  delayMsSchema, faultActionSchema, faultSchema, faultTriggerSchema, jobmasterPointSchema, jobPointSchema,
  messageActionSchema, messageFaultSchema, protocolPointSchema, restorePointSchema, sinkPointSchema, taskPointSchema,
} from './schema/faultSchema.ts';
export { actionSchema, actionTriggerSchema, savepointActionSchema } from './schema/actionSchema.ts';
export { generatedJobSpecSchema, jobSpecSchema } from './schema/jobSchema.ts';
export { parseWithSchema } from './schema/parseWithSchema.ts';

/**
 * The RunSpec format version this build reads. Every change to the RunSpec's shape bumps it; a
 * file of another version is refused (validateRunSpec's `checkRunSpecVersion`).
 */
export const RUN_SPEC_VERSION = 8;

/** Flink 1.20's ExternalizedCheckpointRetention values. */
export const CHECKPOINT_RETENTIONS = ['NO_EXTERNALIZED_CHECKPOINTS', 'RETAIN_ON_CANCELLATION', 'DELETE_ON_CANCELLATION'] as const;

/** The checkpointing modes; `none` turns checkpointing off. */
export const RUN_MODES = ['aligned', 'at-least-once', 'unaligned', 'aligned-timeout', 'none'] as const;

/** The most threads a run's JobMaster ioExecutor may have. */
export const MAX_IO_POOL_SIZE = 64;

/** The largest parallelism a run may ask for (keeps a typo from booting a thousand hosts). */
export { MAX_RUN_PARALLELISM } from './schema/specFields.ts';

const parallelismValue = intField(1, MAX_RUN_PARALLELISM);

export const checkpointSpecSchema = z.strictObject({
  mode: oneOfField(RUN_MODES).meta({ description: 'aligned, at-least-once or none (unaligned and aligned-timeout are not available yet).' }),
  intervalMs: msField(10).meta({ description: 'Checkpoint interval, ms (>= 10, whole µs).' }),
  timeoutMs: msField(10).meta({ description: 'A checkpoint expires after this, ms (default 1000, whole µs).' }).exactOptional(),
  minPauseMs: msField().meta({ description: 'Least time between a completion and the next trigger, ms (default 0).' }).exactOptional(),
  maxConcurrent: intField(1).meta({ description: 'Most pending checkpoints (default 1).' }).exactOptional(),
  tolerableFailures: intField(0).meta({ description: 'Checkpoint failures tolerated before a global failover (default 0).' })
    .exactOptional(),
  retained: intField(1).meta({ description: 'Completed checkpoints kept (default 1).' }).exactOptional(),
  retention: oneOfField(CHECKPOINT_RETENTIONS).meta({
    description: 'Flink\'s externalized checkpoint retention: NO_EXTERNALIZED_CHECKPOINTS (default: deleted when the job run ends), '
      + 'RETAIN_ON_CANCELLATION (kept when it is cancelled or fails), DELETE_ON_CANCELLATION (kept only when it fails).',
  }).exactOptional(),
  alignedTimeoutMs: msField().meta({ description: 'For aligned-timeout only (not available yet).' }).exactOptional(),
}).meta({ description: 'Checkpointing. Defaults follow Flink except the (scaled) timeout.' });

const attempts = z.union([intField(0), z.literal('unlimited')],
  because((v) => `must be an integer >= 0 or "unlimited", got ${describe(v)}`))
  .meta({ description: 'Restart attempts: an integer >= 0 or "unlimited".' });

export const restartStrategySchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('none') }),
  z.strictObject({ kind: z.literal('fixed-delay'), attempts, delayMs: msField() }),
  z.strictObject({
    kind: z.literal('exponential-delay'),
    initialDelayMs: aboveField(0),
    maxDelayMs: msField().meta({ description: 'At least initialDelayMs.' }),
    multiplier: atLeastField(1),
    attempts,
  }),
]).meta({ description: 'How the job restarts after a failure (default fixed-delay, unlimited attempts, 10 ms).' });

const networkSchema = z.strictObject({
  recordsPerBuffer: intField(1).meta({ description: 'Records per network buffer before it is flushed (default 32).' }).exactOptional(),
  bufferTimeoutMs: msField().meta({ description: 'Output flusher interval, ms; 0 flushes every record (default 2).' }).exactOptional(),
  dataLatency: delayMsSchema.exactOptional(),
  rpcLatency: delayMsSchema.exactOptional(),
  rpcTimeoutMs: aboveField(0).meta({ description: 'Timeout of an RPC that expects an answer, ms (default 20).' }).exactOptional(),
});

const heartbeatSchema = z.strictObject({
  intervalMs: aboveField(0),
  timeoutMs: aboveField(0).meta({ description: 'Above intervalMs.' }),
}).meta({ description: 'Heartbeats between JobMaster and TaskExecutors, ms (default 5 / 25).' });

const jobManagerSchema = z.strictObject({
  ioPoolSize: intField(1, MAX_IO_POOL_SIZE)
    .meta({ description: 'Threads of the JobMaster ioExecutor (cluster.io-pool.size; default 4).' }).exactOptional(),
});

const budgetsSchema = z.strictObject({
  maxEvents: intField(1),
  maxTimeMs: aboveField(0).meta({ description: 'Virtual time, ms.' }),
}).meta({ description: 'The run stops after this many events or beyond this virtual time.' });

const nonNegative = (): z.ZodNumber => {
  const e = because(() => 'must be a non-negative integer');
  return z.number(e).int(e).min(0, e);
};

/** A PCT schedule of the order decisions (sim/PctScheduler.ts); its priorities come from `seed`. */
const pctSchema = z.strictObject({
  changePoints: z.array(nonNegative()).max(MAX_PCT_CHANGE_POINTS, because((v) => `at most ${MAX_PCT_CHANGE_POINTS} change points, got ${Array.isArray(v) ? v.length : describe(v)}`))
    .refine((cps) => cps.every((c, i) => i === 0 || c > (cps[i - 1] as number)), { message: 'must be ascending and distinct' })
    .meta({ description: 'Order-decision indices (order decisions counted alone, from 0), ascending: at each, the lane that runs drops below every other.' }),
}).meta({
  description: 'Schedule the order decisions PCT-style: each lane (thread, RPC link, data channel, ...) gets a priority from the '
    + 'seed and the ready candidate of highest priority runs; overrides still win. Absent: seeded draws.',
});

/** Every field of a RunSpec but `$schema`, `version` and `job`, in the order messages list them. */
const configShape = {
  seed: z.string().meta({ description: 'The world\'s root seed.' }),
  parallelism: z.union([parallelismValue, z.record(z.string(), parallelismValue)],
    because((v) => `must be a positive integer or an object of operator uid -> parallelism, got ${describe(v)}`))
    .meta({ description: 'One parallelism for every operator (1..64), or operator uid -> parallelism.' }),
  maxParallelism: intField(1, 32_768).meta({ description: 'Max parallelism of every operator.' }).exactOptional(),
  taskManagers: intField(1, MAX_RUN_PARALLELISM)
    .meta({ description: 'TaskManager hosts taskmanager-1..N (default: enough for the largest parallelism).' }).exactOptional(),
  slotsPerTaskManager: intField(1).meta({ description: 'Slots per TaskManager (default 2).' }).exactOptional(),
  costsMs: z.record(z.string(), msField())
    .meta({ description: 'Per-record cost per operator uid, ms; missing uids keep the job\'s defaults.' }).exactOptional(),
  network: networkSchema.exactOptional(),
  storeLatency: delayMsSchema.meta({ description: 'Object store latency per operation (default 0.5 / 2 / 10 ms).' })
    .exactOptional(),
  heartbeat: heartbeatSchema.exactOptional(),
  jobManager: jobManagerSchema.exactOptional(),
  checkpoint: checkpointSpecSchema,
  restartStrategy: restartStrategySchema.exactOptional(),
  faults: z.array(faultSchema).meta({ description: 'The fault plan (may be empty).' }),
  actions: z.array(actionSchema)
    .meta({ description: 'Actions on the job (savepoints), each at a time or a protocol point; default none.' }).exactOptional(),
  healTimeMs: msField().meta({ description: 'From this time on every fault stops and crashed hosts come back, ms.' }),
  budgets: budgetsSchema,
  overrides: z.array(z.strictObject({ decision: nonNegative(), alternative: nonNegative() }))
    .meta({ description: 'Forced decisions { decision, alternative }, each decision at most once.' }),
  mutations: z.array(oneOfField(asTuple(PLANTED_BUG_IDS), { one: 'planted bug', many: 'planted bugs' }))
    .meta({ description: 'Planted bugs to switch on (docs/planted-bugs.md).' }),
  pct: pctSchema.exactOptional(),
};

/** A whole RunSpec. */
export const runSpecSchema = z.strictObject({
  $schema: z.string().meta({ description: 'The JSON Schema an editor checks this file with (ignored by checkpoint-sim).' })
    .exactOptional(),
  version: z.literal(RUN_SPEC_VERSION).meta({ description: 'The RunSpec format version.' }),
  seed: configShape.seed,
  job: jobSpecSchema,
  ...(({ seed: _seed, ...rest }) => rest)(configShape),
}).meta({
  title: 'checkpoint-sim RunSpec',
  description: `One run of checkpoint-sim as data (format version ${RUN_SPEC_VERSION}). Times are in ms.`,
});

/** The RunSpec fields a scenario's `config` may set: each optional, checkpoint and budgets partial. */
export const runSpecConfigSchema = z.strictObject({
  ...z.strictObject(configShape).partial().shape,
  checkpoint: checkpointSpecSchema.partial().optional(),
  budgets: budgetsSchema.partial().optional(),
}).meta({ description: 'RunSpec fields a scenario sets; the others get the scenario defaults.' });

