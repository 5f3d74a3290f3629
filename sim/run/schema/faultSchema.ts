/**
 * faultSchema: the RunSpec's fault plan as zod schemas: protocol points, triggers (`when`), every
 * fault type, and each fault without its `when` (a scenario step's action, fired by the step).
 *
 * The schema checks what a fault says about itself (types, bounds, known RPC kinds, a task named
 * `<vertex>#<subtask>`, a delay distribution in order). What depends on the job and the cluster
 * (hosts that exist, operator uids, tasks of the job graph, a time before the heal time, no
 * JobManager crash, a partition of two different hosts) is checked after parsing
 * (validateFaults.ts, simulate's checkFaultTasks).
 *
 * Message faults (`type: 'message'`, sim/MessageFaults.ts) name an engine RPC method (Flink's; the
 * alias `notifyCheckpointComplete` means `confirmCheckpoint`); whether their `checkpoint`, `from`
 * and `to` filters can match that method's RPCs is checked after parsing too.
 */
import { z } from 'zod';
import { RPC_KINDS, RPC_METHOD_ALIASES, RPC_METHODS } from '../../../engine/index.ts';
import { describe, MAX_SPEC_MS } from '../SpecChecks.ts';
import {
  asTuple, atLeastField, because, intField, msField, oneOfField, probabilityField,
} from './specFields.ts';

/** The largest slowdown factor: beyond it a cost no longer fits whole microseconds exactly. */
export const MAX_SLOWDOWN_FACTOR = 1e6;

/** `ack-received`: the coordinator handled that task's ack; `notified`: the task received the completion. */
export const TASK_PHASES = [
  'triggered', 'first-barrier', 'aligned', 'sync-done', 'async-done', 'acked', 'ack-received', 'notified',
] as const;
/** `acknowledged`: every task in the checkpoint's plan acknowledged (its `_metadata` write begins). */
export const JOB_MASTER_PHASES = ['triggered', 'coordinators-snapshotted', 'acknowledged', 'completed', 'notified'] as const;
export const SINK_PHASES = ['pre-committed', 'committed'] as const;
/**
 * The JobStatus values (Flink's names) a job of this model enters, the ones a `job` point can
 * name: it starts CREATED and goes RUNNING, RESTARTING on a failover and back to RUNNING, and
 * ends FINISHED or FAILED, or CANCELLING and CANCELED (a cancel action, a rescale via cancel).
 */
export const JOB_POINT_STATUSES = ['RUNNING', 'RESTARTING', 'CANCELLING', 'CANCELED', 'FAILED', 'FINISHED'] as const;

/** Flink's other JobStatus values: real, but no run of this model enters them (no HA). */
const UNREACHED_JOB_STATUSES: readonly string[] = [
  'INITIALIZING', 'CREATED', 'FAILING', 'SUSPENDED', 'RECONCILING',
];

/**
 * Which job run a point or a message fault is about (1 for the first; a rescale or restore starts
 * the next). Absent: run 1 when it names a checkpoint id (a later run numbers on from the checkpoint it restored, so an id can recur across runs), else any run.
 */
const jobRunField = intField(1).meta({
  description: 'The job run (1 = the first; each restore into a new run counts up). Absent: run 1 for a point or '
    + 'message naming a checkpoint id, else any run.',
}).exactOptional();

/** A task name in a protocol point: `<vertex>#<subtask>`, as traces print it. */
export const TASK_NAME = /^v\d+#\d+$/;

const checkpointId = intField(1).meta({ description: 'The checkpoint id (from 1).' });

/**
 * Which checkpoint a task or jobmaster point is about: `checkpoint` (an id) or `savepoint` (the
 * n-th entry of `actions` that triggers a savepoint, from 1: the point is about the id that
 * savepoint got when the coordinator triggered it). Exactly one.
 */
const pointCheckpointFields = {
  checkpoint: checkpointId.meta({ description: 'The checkpoint id (from 1); or give savepoint instead.' }).exactOptional(),
  savepoint: intField(1).meta({
    description: 'Instead of checkpoint: the n-th entry of actions that triggers a savepoint (from 1, in the order of '
      + 'actions); the point is about the checkpoint id that savepoint got when it was triggered.',
  }).exactOptional(),
};

/** Exactly one of `checkpoint` and `savepoint`, said the way the other refusals are. */
function oneCheckpointRef(p: { checkpoint?: number; savepoint?: number }, ctx: z.RefinementCtx): void {
  if (p.checkpoint === undefined && p.savepoint === undefined) {
    ctx.addIssue({ code: 'custom', path: ['checkpoint'],
      message: 'missing (or give savepoint: which savepoint action of the run, from 1)' });
  } else if (p.checkpoint !== undefined && p.savepoint !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['savepoint'],
      message: `give checkpoint or savepoint, not both (got checkpoint ${p.checkpoint} and savepoint ${p.savepoint})` });
  }
}

/** The JSON Schema's form of oneCheckpointRef, for editors (a refinement emits nothing). */
const ONE_CHECKPOINT_REF = { oneOf: [{ required: ['checkpoint'] }, { required: ['savepoint'] }] };

/** A delay distribution in ms: 0 <= minMs <= medianMs <= maxMs. */
export const delayMsSchema = z.strictObject({
  minMs: msField(),
  medianMs: msField(),
  maxMs: msField(),
}).refine((d) => d.minMs <= d.medianMs && d.medianMs <= d.maxMs, { message: 'must have minMs <= medianMs <= maxMs' })
  .meta({ id: 'delayMs', description: 'A delay distribution in ms (fractions allowed): 0 <= minMs <= medianMs <= maxMs.' });

export const taskPointSchema = z.strictObject({
  kind: z.literal('task'),
  ...pointCheckpointFields,
  phase: oneOfField(TASK_PHASES).meta({ description: 'The trace event the task records (docs/runspec.md, Triggers).' }),
  task: z.string(because((v) => `must name a task as <vertex>#<subtask> (e.g. v1#0), got ${describe(v)}`))
    .regex(TASK_NAME, because((v) => `must name a task as <vertex>#<subtask> (e.g. v1#0), got ${describe(v)}`))
    .meta({ description: 'One subtask, <vertex>#<subtask> as traces print it (e.g. v1#0); absent: any task.' })
    .exactOptional(),
  jobRun: jobRunField,
}).superRefine(oneCheckpointRef).meta({
  title: 'task point',
  description: 'A task reaching a phase of checkpoint `checkpoint` (or of the id savepoint action `savepoint` got).',
  ...ONE_CHECKPOINT_REF,
});

export const jobmasterPointSchema = z.strictObject({
  kind: z.literal('jobmaster'),
  ...pointCheckpointFields,
  phase: oneOfField(JOB_MASTER_PHASES),
  jobRun: jobRunField,
}).superRefine(oneCheckpointRef).meta({
  title: 'jobmaster point',
  description: 'The checkpoint coordinator reaching a phase of checkpoint `checkpoint` (or of the id savepoint action `savepoint` got).',
  ...ONE_CHECKPOINT_REF,
});

export const sinkPointSchema = z.strictObject({
  kind: z.literal('sink'),
  phase: oneOfField(SINK_PHASES),
  nth: intField(1).meta({ description: 'Which sink transaction of the run, counting from 1 across sink subtasks.' }),
}).meta({ title: 'sink point', description: 'The n-th sink transaction being pre-committed or committed.' });

/** The n-th restore of the run (only restores from `checkpoint` counted when given). */
export const restorePointSchema = z.strictObject({
  kind: z.literal('restore'),
  nth: intField(1).meta({ description: 'Which restore (default 1).' }).exactOptional(),
  checkpoint: checkpointId.exactOptional(),
  jobRun: jobRunField,
}).meta({ title: 'restore point', description: 'The n-th restore of the run (trace checkpoint.restored).' });

/** The job reaching a JobStatus the n-th time. */
export const jobPointSchema = z.strictObject({
  kind: z.literal('job'),
  status: z.enum(JOB_POINT_STATUSES, because((v) => (typeof v === 'string' && UNREACHED_JOB_STATUSES.includes(v)
    ? `the job never enters ${v} in this model (statuses it enters: ${JOB_POINT_STATUSES.join(', ')})`
    : `unknown JobStatus ${describe(v)} (statuses: ${JOB_POINT_STATUSES.join(', ')})`)))
    .meta({ description: 'A JobStatus (Flink\'s name) the job enters.' }),
  nth: intField(1).meta({ description: 'Which time (default 1).' }).exactOptional(),
  jobRun: jobRunField,
}).meta({ title: 'job point', description: 'The job reaching this JobStatus the n-th time.' });

/**
 * The ExecutionState values (Flink's names) a task attempt enters on its TaskExecutor, the ones an
 * `execution` point can name: each is a `task.<state in lower case>` trace event, recorded where
 * the Task changes state (its mailbox thread), not where the JobMaster learns of it.
 */
export const EXECUTION_POINT_STATES = [
  'DEPLOYING', 'INITIALIZING', 'RUNNING', 'CANCELING', 'FINISHED', 'CANCELED', 'FAILED',
] as const;

/** The trace event of each execution point state: `task.<state in lower case>`, as Task records it. */
export const EXECUTION_EVENTS: Readonly<Record<typeof EXECUTION_POINT_STATES[number], string>> = Object.fromEntries(
  EXECUTION_POINT_STATES.map((s) => [s, `task.${s.toLowerCase()}`]),
) as Record<typeof EXECUTION_POINT_STATES[number], string>;

/** Flink's other ExecutionState values: real, but only the JobMaster's view of an attempt has them. */
const UNREACHED_EXECUTION_STATES: readonly string[] = ['CREATED', 'SCHEDULED', 'RECONCILING'];

/**
 * Why `v` is no execution point state (the schema's message, and execution.reaches' after its
 * prefix): a state only the JobMaster's view has, or an unknown one.
 */
export function executionStateRefusal(v: unknown): string {
  return typeof v === 'string' && UNREACHED_EXECUTION_STATES.includes(v)
    ? `no task enters ${v} on its TaskExecutor (only the JobMaster's view of an attempt has it; states: ${EXECUTION_POINT_STATES.join(', ')})`
    : `unknown ExecutionState ${describe(v)} (states: ${EXECUTION_POINT_STATES.join(', ')})`;
}

/** A task attempt reaching an ExecutionState the n-th time (of `task` when given). */
export const executionPointSchema = z.strictObject({
  kind: z.literal('execution'),
  state: z.enum(EXECUTION_POINT_STATES, because(executionStateRefusal))
    .meta({ description: 'An ExecutionState (Flink\'s name) a task attempt enters.' }),
  task: z.string(because((v) => `must name a task as <vertex>#<subtask> (e.g. v1#0), got ${describe(v)}`))
    .regex(TASK_NAME, because((v) => `must name a task as <vertex>#<subtask> (e.g. v1#0), got ${describe(v)}`))
    .meta({ description: 'One subtask, <vertex>#<subtask> (any attempt of it); absent: any task.' })
    .exactOptional(),
  nth: intField(1).meta({ description: 'Which time (default 1), counting every matching attempt.' }).exactOptional(),
  jobRun: jobRunField,
}).meta({
  title: 'execution point',
  description: 'A task attempt (of `task`, when given) entering this ExecutionState the n-th time (trace task.<state>).',
});

/** A protocol point: a moment named by the protocol rather than by the clock. */
export const protocolPointSchema = z.discriminatedUnion('kind', [
  taskPointSchema, jobmasterPointSchema, sinkPointSchema, restorePointSchema, jobPointSchema, executionPointSchema,
])
  .meta({ id: 'protocolPoint', description: 'A moment named by the protocol: the fault fires right after the trace event.' });

/** When a fault fires: at a virtual time (before the heal time) or right after a protocol point. */
export const faultTriggerSchema = z.union([
  z.strictObject({ atMs: msField().meta({ description: 'Virtual time in ms; before healTimeMs.' }) }),
  z.strictObject({ at: protocolPointSchema }),
], because((v) => `must be { atMs } or { at: <protocol point> }, got ${describe(v)}`))
  .meta({ id: 'faultTrigger', description: 'When the fault fires: { "atMs": t } or { "at": <protocol point> } (once).' });

const host = z.string().meta({ description: 'A host: jobmanager or taskmanager-1..N.' });
/** A crash's or pause's host, which may name a task for the TaskManager that runs it (FaultPlan). */
const hostOrTask = z.string().meta({
  description: 'A host (jobmanager, taskmanager-1..N), or a task <vertex>#<subtask>: the TaskManager it was last deployed to '
    + 'when the fault fires.',
});
const durationMs = msField().meta({ description: 'How long, ms.' });
const factor = atLeastField(1, MAX_SLOWDOWN_FACTOR);
const rpcKind = oneOfField(asTuple(RPC_KINDS), { one: 'RPC kind', many: 'kinds' });
const probability = probabilityField().meta({ description: 'Probability in [0, 1].' });

/** Each fault's fields, in the order messages list them. `when` last-but-one where it was. */
const faultShapes = {
  crash: { type: z.literal('crash'), host: hostOrTask, when: faultTriggerSchema,
    downMs: msField().meta({ description: 'Restart after this long (ms); absent: at the heal time.' }).exactOptional() },
  globalFailure: { type: z.literal('global-failure'), when: faultTriggerSchema },
  pause: { type: z.literal('pause'), host: hostOrTask, when: faultTriggerSchema, durationMs },
  partition: { type: z.literal('partition'), a: host, b: host,
    oneWay: z.boolean().meta({ description: 'Only a to b.' }).exactOptional(), when: faultTriggerSchema, durationMs },
  rpcLoss: { type: z.literal('rpc-loss'), kind: rpcKind, probability },
  rpcDelay: { type: z.literal('rpc-delay'), kind: rpcKind, latency: delayMsSchema },
  storeFailure: { type: z.literal('store-failure'), probability },
  storeUnknownOutcome: { type: z.literal('store-unknown-outcome'), probability },
  slowStore: {
    type: z.literal('slow-store'), factor,
    checkpoint: checkpointId.meta({ description: 'Only the files of this checkpoint (or savepoint): a slow target.' }).exactOptional(),
  },
  asyncSnapshotFailure: {
    type: z.literal('async-snapshot-failure'), probability,
    checkpoint: checkpointId.meta({ description: 'Only the writes of this checkpoint\'s (or savepoint\'s) state files.' }).exactOptional(),
  },
  slowTask: { type: z.literal('slow-task'), operator: z.string().meta({ description: 'An operator uid.' }), factor,
    when: faultTriggerSchema, durationMs },
  coordinatorStall: {
    type: z.literal('coordinator-stall'),
    operator: z.string().meta({ description: 'A source operator uid (its coordinator); absent: the job\'s first source.' })
      .exactOptional(),
    when: faultTriggerSchema,
    durationMs: msField().meta({ description: 'How long the enumerator work keeps the coordinator thread busy, ms (it ends at the heal time at the latest).' }),
  },
} as const;

const faultHelp: Record<keyof typeof faultShapes, string> = {
  crash: 'A TaskManager loses its volatile state and restarts after downMs or at the heal time.',
  globalFailure: 'A global failover.',
  pause: 'The host runs nothing for durationMs.',
  partition: 'Cuts RPC and data connections between a and b (only a to b when oneWay).',
  rpcLoss: 'Until the heal time, each RPC of this kind is lost with this probability.',
  rpcDelay: 'Until the heal time, RPCs of this kind take this latency.',
  storeFailure: 'An object store operation fails (and nothing happens) with this probability.',
  storeUnknownOutcome: 'A write or delete reports an unknown outcome with this probability.',
  slowStore: 'Object store latencies (of checkpoint `checkpoint`\'s files only, when given) are multiplied by this factor.',
  asyncSnapshotFailure: 'A task\'s snapshot file write (of checkpoint `checkpoint` only, when given) fails with this probability; the task declines.',
  slowTask: 'The task running this operator works at 1/factor of its rate for durationMs.',
  coordinatorStall: 'The coordinator thread of source `operator` is busy with enumerator work for durationMs: split '
    + 'requests, its checkpoint snapshots and notifications queue behind it.',
};

/** The RPC methods a message fault may name (the engine's, which are Flink's), then the aliases. */
export const MESSAGE_METHODS = [...RPC_METHODS, ...Object.keys(RPC_METHOD_ALIASES)] as [string, ...string[]];

const aliases = Object.entries(RPC_METHOD_ALIASES).map(([a, m]) => `${a} for ${m}`).join(', ');

/** A message delay's reason, for a negative delay and for 0 alike (checkMessageFault refuses 0). */
const delayReason = (v: unknown): string => `must be a number of ms above 0, got ${describe(v)}`;

/**
 * A message fault's delayMs: msField's checks (so the JSON Schema stays `minimum: 0`; 0 is refused
 * by checkMessageFault, for delay only) with one reason below and at 0.
 */
function delayMsField(): z.ZodNumber {
  return z.number(because(delayReason)).min(0, because(delayReason))
    .max(MAX_SPEC_MS, because((v) => `must be at most ${MAX_SPEC_MS} ms, got ${describe(v)}`));
}

const messageShape = {
  type: z.literal('message'),
  action: oneOfField(['lose', 'delay', 'hold']),
  method: z.enum(MESSAGE_METHODS, because((v) => `unknown RPC method ${describe(v)} (methods: ${RPC_METHODS.join(', ')}; also ${aliases})`))
    .meta({ description: 'An engine RPC method (Flink\'s name); notifyCheckpointComplete means confirmCheckpoint.' }),
  checkpoint: checkpointId.meta({ description: 'Only RPCs about this checkpoint id.' }).exactOptional(),
  from: z.string().meta({ description: 'Sending host, or task <vertex>#<subtask>.' }).exactOptional(),
  to: z.string().meta({ description: 'Receiving host, or task <vertex>#<subtask>.' }).exactOptional(),
  jobRun: jobRunField,
  nth: intField(1).meta({ description: 'Acts on the n-th matching RPC (default 1), counted from when the fault is armed.' })
    .exactOptional(),
  delayMs: delayMsField().meta({ description: 'For delay: how long, ms (> 0).' }).exactOptional(),
  durationMs: msField().meta({ description: 'For hold: deliver after this long; absent: at the heal time.' }).exactOptional(),
  when: faultTriggerSchema.meta({ description: 'Counting starts when this fires; absent: from time 0.' }).exactOptional(),
} as const;

/** delayMs only and always for `delay` (above 0), durationMs only for `hold`. */
function checkMessageFault(f: { action: string; delayMs?: number; durationMs?: number }, ctx: z.RefinementCtx): void {
  if (f.action === 'delay' && f.delayMs === undefined) {
    ctx.addIssue({ code: 'custom', path: ['delayMs'], message: 'is required for action delay' });
  } else if (f.action === 'delay' && f.delayMs === 0) {
    ctx.addIssue({ code: 'custom', path: ['delayMs'], message: delayReason(f.delayMs) });
  } else if (f.action !== 'delay' && f.delayMs !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['delayMs'], message: `only for action delay, got action ${f.action}` });
  }
  if (f.action !== 'hold' && f.durationMs !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['durationMs'], message: `only for action hold, got action ${f.action}` });
  }
}

/** A task named `<vertex>#<subtask>` (channel-event faults' `to` and `from`). */
function taskNameField(description: string): z.ZodString {
  const reason = because((v) => `must name a task as <vertex>#<subtask> (e.g. v1#0), got ${describe(v)}`);
  return z.string(reason).regex(TASK_NAME, reason).meta({ description });
}

/** The checkpoint events a channel-event fault may delay. */
export const CHANNEL_EVENTS = ['barrier', 'cancellation'] as const;

const channelEventShape = {
  type: z.literal('channel-event'),
  event: oneOfField(CHANNEL_EVENTS).meta({
    description: 'barrier: a checkpoint barrier; cancellation: a CancelCheckpointMarker.',
  }),
  checkpoint: checkpointId.meta({ description: 'Only events of this checkpoint id; absent: any.' }).exactOptional(),
  to: taskNameField('The receiving task <vertex>#<subtask> (one with input channels).'),
  from: taskNameField('Only the channel from this upstream task <vertex>#<subtask>; absent: any channel into to.')
    .exactOptional(),
  jobRun: jobRunField,
  nth: intField(1).meta({ description: 'Acts on the n-th matching event (default 1), counted from when the fault is armed.' })
    .exactOptional(),
  delayMs: delayMsField().meta({ description: 'How long the event (and what follows it on its channel) waits, ms (> 0).' }),
  when: faultTriggerSchema.meta({ description: 'Counting starts when this fires; absent: from time 0.' }).exactOptional(),
} as const;

/** A channel-event fault: delays one barrier or cancellation marker on one input channel. */
export const channelEventFaultSchema = z.strictObject(channelEventShape).superRefine((f, ctx) => {
  if (f.delayMs === 0) ctx.addIssue({ code: 'custom', path: ['delayMs'], message: delayReason(f.delayMs) });
}).meta({
  title: 'channel-event fault',
  description: 'Delays the n-th checkpoint barrier or cancellation marker that task `to` receives (from `from`): it and '
    + 'everything behind it on that channel wait delayMs, the other channels go on.',
});

/** A message fault: lose, delay or hold the n-th RPC of a method that matches the filters. */
export const messageFaultSchema = z.strictObject(messageShape).superRefine(checkMessageFault)
  .meta({ title: 'message fault', description: 'Acts on the n-th RPC of `method` matching the filters.' });

/** A message fault without `when` (a scenario step's action). */
export const messageActionSchema = z.strictObject((({ when: _when, ...rest }) => rest)(messageShape))
  .superRefine(checkMessageFault);

function build<K extends keyof typeof faultShapes>(key: K) {
  return z.strictObject(faultShapes[key]).meta({ title: `${faultShapes[key].type.value} fault`, description: faultHelp[key] });
}

/** One fault of the plan (docs/runspec.md, Faults). */
export const faultSchema = z.discriminatedUnion('type', [
  build('crash'), build('globalFailure'), build('pause'), build('partition'), build('rpcLoss'), build('rpcDelay'),
  build('storeFailure'), build('storeUnknownOutcome'), build('slowStore'), build('asyncSnapshotFailure'),
  build('slowTask'), build('coordinatorStall'), messageFaultSchema, channelEventFaultSchema,
]).meta({ description: 'One fault. Every fault stops at the heal time.' });

function buildAction<K extends keyof typeof faultShapes>(key: K) {
  const { when: _when, ...rest } = faultShapes[key] as typeof faultShapes[K] & { when?: unknown };
  return z.strictObject(rest as Omit<typeof faultShapes[K], 'when'>)
    .meta({ title: `${faultShapes[key].type.value} action`, description: faultHelp[key] });
}

/**
 * A fault without `when`: what a scenario step does when it fires (its point or time is the
 * step's). World-setting faults are the same as in `faults`.
 */
export const faultActionSchema = z.discriminatedUnion('type', [
  buildAction('crash'), buildAction('globalFailure'), buildAction('pause'), buildAction('partition'),
  buildAction('rpcLoss'), buildAction('rpcDelay'), buildAction('storeFailure'), buildAction('storeUnknownOutcome'),
  buildAction('slowStore'), buildAction('asyncSnapshotFailure'), buildAction('slowTask'), buildAction('coordinatorStall'),
  messageActionSchema,
]).meta({ description: 'A fault without `when`: a scenario step fires it.' });

/** Every fault type, in the order messages list them. */
export const FAULT_TYPE_NAMES = [
  ...Object.values(faultShapes).map((s) => s.type.value), messageShape.type.value, channelEventShape.type.value,
];
