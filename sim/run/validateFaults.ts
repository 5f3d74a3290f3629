/**
 * validateFaults: the fault-plan part of validateRunSpec. A fault must name existing hosts
 * (`jobmanager`, `taskmanager-1..N`), never crash the JobManager (no HA yet), fire by time
 * before the heal time, use known RPC kinds, RPC methods, JobStatus values and operator uids,
 * keep probabilities in [0, 1] and slowdown factors at 1 or more, and filter messages in ways
 * some RPC can match. Tasks named `<vertex>#<subtask>` are checked for their form here and
 * against the job's JobGraph by simulate (only the built graph knows the vertices).
 */
import {
  CHECKPOINT_RPC_METHODS, RPC_KINDS, RPC_METHOD_ALIASES, RPC_METHODS, rpcMethodNamed, rpcTaskSide,
} from '../../engine/index.ts';
import { JOB_MANAGER_HOST } from '../MiniCluster.ts';
import {
  FAULT_TYPES, type Fault, type JobMasterPhase, type MessageFaultAction, type SinkPhase, type TaskPhase,
} from './RunSpec.ts';
import {
  at, describe, fail, requireArray, requireAtLeast, requireBoolean, requireDelayMs, requireInt,
  requireMs, requireObject, requireOneOf, requireProbabilityAt, requireString,
} from './SpecChecks.ts';

export const TASK_PHASES: readonly TaskPhase[] = [
  'triggered', 'first-barrier', 'aligned', 'sync-done', 'async-done', 'acked', 'ack-received', 'notified',
];
export const JOB_MASTER_PHASES: readonly JobMasterPhase[] = [
  'triggered', 'coordinators-snapshotted', 'completed', 'notified',
];
export const SINK_PHASES: readonly SinkPhase[] = ['pre-committed', 'committed'];

export const MESSAGE_ACTIONS: readonly MessageFaultAction[] = ['lose', 'delay', 'hold'];

/**
 * The JobStatus values (Flink's names) a job of this model enters, the ones a `job` point can
 * name: it starts CREATED and goes RUNNING, RESTARTING on a failover and back to RUNNING, and
 * ends FINISHED or FAILED.
 */
export const JOB_POINT_STATUSES: readonly string[] = ['RUNNING', 'RESTARTING', 'FAILED', 'FINISHED'];

/** Flink's other JobStatus values: real, but no run of this model enters them (no cancel, no HA). */
const UNREACHED_JOB_STATUSES: readonly string[] = [
  'INITIALIZING', 'CREATED', 'FAILING', 'CANCELLING', 'CANCELED', 'SUSPENDED', 'RECONCILING',
];

/** A task name in a protocol point: `<vertex>#<subtask>`, as traces print it. */
export const TASK_NAME = /^v\d+#\d+$/;

/** What faults are checked against. */
export interface FaultContext {
  /** Every host: `jobmanager` and `taskmanager-1..N`. */
  readonly hosts: readonly string[];
  /** The job's operator uids. */
  readonly uids: readonly string[];
  readonly healTimeMs: number;
}

/**
 * Checks `faults` (the spec's `faults` field).
 * @throws SimInputError with a one-line reason naming the fault by index.
 */
export function validateFaults(faults: unknown, ctx: FaultContext): readonly Fault[] {
  requireArray(faults, 'faults').forEach((f, i) => validateFault(f, `faults[${i}]`, ctx));
  return faults as readonly Fault[];
}

function validateFault(v: unknown, path: string, ctx: FaultContext): void {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    fail(`${path} must be an object, got ${describe(v)}`);
  }
  const type = requireOneOf((v as { type?: unknown }).type, at(path, 'type'), FAULT_TYPES);
  const fields = (...rest: string[]): Record<string, unknown> => requireObject(v, path, ['type', ...rest]);
  switch (type) {
    case 'crash': {
      const o = fields('host', 'when', 'downMs');
      const host = requireHost(o['host'], at(path, 'host'), ctx);
      if (host === JOB_MANAGER_HOST) fail(`${at(path, 'host')}: no JobManager crash until HA exists`);
      validateTrigger(o['when'], at(path, 'when'), ctx);
      if (o['downMs'] !== undefined) requireMs(o['downMs'], at(path, 'downMs'));
      return;
    }
    case 'global-failure':
      validateTrigger(fields('when')['when'], at(path, 'when'), ctx);
      return;
    case 'pause': {
      const o = fields('host', 'when', 'durationMs');
      requireHost(o['host'], at(path, 'host'), ctx);
      validateTrigger(o['when'], at(path, 'when'), ctx);
      requireMs(o['durationMs'], at(path, 'durationMs'));
      return;
    }
    case 'partition': {
      const o = fields('a', 'b', 'oneWay', 'when', 'durationMs');
      const a = requireHost(o['a'], at(path, 'a'), ctx);
      const b = requireHost(o['b'], at(path, 'b'), ctx);
      if (a === b) fail(`${path}: a partition needs two different hosts, got ${a} twice`);
      if (o['oneWay'] !== undefined) requireBoolean(o['oneWay'], at(path, 'oneWay'));
      validateTrigger(o['when'], at(path, 'when'), ctx);
      requireMs(o['durationMs'], at(path, 'durationMs'));
      return;
    }
    case 'rpc-loss': {
      const o = fields('kind', 'probability');
      requireRpcKind(o['kind'], at(path, 'kind'));
      requireProbabilityAt(o['probability'], at(path, 'probability'));
      return;
    }
    case 'rpc-delay': {
      const o = fields('kind', 'latency');
      requireRpcKind(o['kind'], at(path, 'kind'));
      requireDelayMs(o['latency'], at(path, 'latency'));
      return;
    }
    case 'store-failure':
    case 'store-unknown-outcome':
    case 'async-snapshot-failure':
      requireProbabilityAt(fields('probability')['probability'], at(path, 'probability'));
      return;
    case 'slow-store':
      requireFactor(fields('factor')['factor'], at(path, 'factor'));
      return;
    case 'message':
      validateMessageFault(fields('action', 'method', 'checkpoint', 'from', 'to', 'jobRun', 'nth', 'delayMs',
        'durationMs', 'when'), path, ctx);
      return;
    case 'slow-task': {
      const o = fields('operator', 'factor', 'when', 'durationMs');
      requireUid(o['operator'], at(path, 'operator'), ctx.uids);
      requireFactor(o['factor'], at(path, 'factor'));
      validateTrigger(o['when'], at(path, 'when'), ctx);
      requireMs(o['durationMs'], at(path, 'durationMs'));
      return;
    }
  }
}

/**
 * A message fault: a known method (an alias allowed), filters that some RPC of that method can
 * match (a `checkpoint` only for a method about one, a task only on the side the method names
 * one), `jobRun` 1, `delayMs` exactly for `delay`, `durationMs` only for `hold`.
 */
function validateMessageFault(o: Record<string, unknown>, path: string, ctx: FaultContext): void {
  const action = requireOneOf(o['action'], at(path, 'action'), MESSAGE_ACTIONS);
  const method = requireMethod(o['method'], at(path, 'method'));
  if (o['checkpoint'] !== undefined) {
    requireInt(o['checkpoint'], at(path, 'checkpoint'), 1);
    if (!(CHECKPOINT_RPC_METHODS as readonly string[]).includes(method)) {
      fail(`${at(path, 'checkpoint')}: ${method} RPCs are about no checkpoint, so none would match `
        + `(methods with a checkpoint: ${CHECKPOINT_RPC_METHODS.join(', ')})`);
    }
  }
  for (const side of ['from', 'to'] as const) {
    const end = o[side];
    if (end === undefined) continue;
    const p = at(path, side);
    if (typeof end !== 'string' || !(ctx.hosts.includes(end) || TASK_NAME.test(end))) {
      fail(`${p} must be a host (${ctx.hosts.join(', ')}) or a task <vertex>#<subtask> (e.g. v1#0), `
        + `got ${describe(end)}`);
    }
    if (TASK_NAME.test(end) && rpcTaskSide(method) !== side) {
      const names = rpcTaskSide(method);
      fail(`${p}: ${method} RPCs name ${names === undefined ? 'no task' : `their ${names === 'from' ? 'sending' : 'receiving'} task only`}`
        + `, so ${side} ${end} would match none`);
    }
  }
  if (o['jobRun'] !== undefined && o['jobRun'] !== 1) {
    fail(`${at(path, 'jobRun')} must be 1 (reserved for rescaling: today a job has one run), got ${describe(o['jobRun'])}`);
  }
  if (o['nth'] !== undefined) requireInt(o['nth'], at(path, 'nth'), 1);
  if (action === 'delay') {
    if (o['delayMs'] === undefined) fail(`${at(path, 'delayMs')} is required for action delay`);
    requireMs(o['delayMs'], at(path, 'delayMs'));
    if (o['delayMs'] === 0) fail(`${at(path, 'delayMs')} must be above 0 (a delay of 0 delays nothing)`);
  } else if (o['delayMs'] !== undefined) {
    fail(`${at(path, 'delayMs')}: only for action delay, got action ${action}`);
  }
  if (o['durationMs'] !== undefined) {
    if (action !== 'hold') fail(`${at(path, 'durationMs')}: only for action hold, got action ${action}`);
    requireMs(o['durationMs'], at(path, 'durationMs'));
  }
  if (o['when'] !== undefined) validateTrigger(o['when'], at(path, 'when'), ctx);
}

/** An RPC method the engine sends, or an alias of one. */
function requireMethod(v: unknown, path: string): string {
  const method = typeof v === 'string' ? rpcMethodNamed(v) : undefined;
  if (method === undefined) {
    const aliases = Object.entries(RPC_METHOD_ALIASES).map(([a, m]) => `${a} for ${m}`).join(', ');
    fail(`${path}: unknown RPC method ${describe(v)} (methods: ${RPC_METHODS.join(', ')}; also ${aliases})`);
  }
  return method;
}

function validateTrigger(v: unknown, path: string, ctx: FaultContext): void {
  if (v !== null && typeof v === 'object' && 'atMs' in v) {
    const atMs = requireMs(requireObject(v, path, ['atMs'])['atMs'], at(path, 'atMs'));
    if (atMs >= ctx.healTimeMs) {
      fail(`${at(path, 'atMs')} (${atMs}) must be before healTimeMs (${ctx.healTimeMs}): `
        + 'faults stop at the heal time');
    }
    return;
  }
  if (v === null || typeof v !== 'object' || !('at' in v)) {
    fail(`${path} must be { atMs } or { at: <protocol point> }, got ${describe(v)}`);
  }
  const p = at(path, 'at');
  const fields = ['kind', 'checkpoint', 'phase', 'task', 'nth', 'status'];
  const point = requireObject(requireObject(v, path, ['at'])['at'], p, fields);
  const kind = requireOneOf(point['kind'], at(p, 'kind'), ['task', 'jobmaster', 'sink', 'restore', 'job'] as const);
  const only = (...fields: string[]): void => {
    requireObject(point, p, ['kind', ...fields]);
  };
  if (kind === 'restore') {
    only('nth', 'checkpoint');
    if (point['nth'] !== undefined) requireInt(point['nth'], at(p, 'nth'), 1);
    if (point['checkpoint'] !== undefined) requireInt(point['checkpoint'], at(p, 'checkpoint'), 1);
    return;
  }
  if (kind === 'job') {
    only('status', 'nth');
    requireJobStatus(point['status'], at(p, 'status'));
    if (point['nth'] !== undefined) requireInt(point['nth'], at(p, 'nth'), 1);
    return;
  }
  if (kind === 'sink') {
    only('phase', 'nth');
    requireOneOf(point['phase'], at(p, 'phase'), SINK_PHASES);
    requireInt(point['nth'], at(p, 'nth'), 1);
    return;
  }
  requireInt(point['checkpoint'], at(p, 'checkpoint'), 1);
  if (kind === 'jobmaster') {
    only('checkpoint', 'phase');
    requireOneOf(point['phase'], at(p, 'phase'), JOB_MASTER_PHASES);
    return;
  }
  only('checkpoint', 'phase', 'task');
  requireOneOf(point['phase'], at(p, 'phase'), TASK_PHASES);
  const task = point['task'];
  if (task !== undefined && (typeof task !== 'string' || !TASK_NAME.test(task))) {
    fail(`${at(p, 'task')} must name a task as <vertex>#<subtask> (e.g. v1#0), got ${describe(task)}`);
  }
}

function requireJobStatus(v: unknown, path: string): void {
  if (typeof v === 'string' && JOB_POINT_STATUSES.includes(v)) return;
  if (typeof v === 'string' && UNREACHED_JOB_STATUSES.includes(v)) {
    fail(`${path}: the job never enters ${v} in this model (statuses it enters: ${JOB_POINT_STATUSES.join(', ')})`);
  }
  fail(`${path}: unknown JobStatus ${describe(v)} (statuses: ${JOB_POINT_STATUSES.join(', ')})`);
}

function requireHost(v: unknown, path: string, ctx: FaultContext): string {
  const host = requireString(v, path);
  if (!ctx.hosts.includes(host)) {
    fail(`${path}: unknown host ${JSON.stringify(host)} (hosts: ${ctx.hosts.join(', ')})`);
  }
  return host;
}

function requireRpcKind(v: unknown, path: string): void {
  if (typeof v !== 'string' || !(RPC_KINDS as readonly string[]).includes(v)) {
    fail(`${path}: unknown RPC kind ${describe(v)} (kinds: ${RPC_KINDS.join(', ')})`);
  }
}

/** Checks that `v` is one of the job's operator uids. */
export function requireUid(v: unknown, path: string, uids: readonly string[]): string {
  if (typeof v !== 'string' || !uids.includes(v)) {
    fail(`${path}: unknown operator uid ${describe(v)} (operators: ${uids.join(', ')})`);
  }
  return v;
}

/** The largest slowdown factor: beyond it a cost no longer fits whole microseconds exactly. */
export const MAX_SLOWDOWN_FACTOR = 1e6;

/** A slowdown factor: a finite number in [1, {@link MAX_SLOWDOWN_FACTOR}]. */
function requireFactor(v: unknown, path: string): void {
  requireAtLeast(v, path, 1);
  if ((v as number) > MAX_SLOWDOWN_FACTOR) {
    fail(`${path} must be at most ${MAX_SLOWDOWN_FACTOR}, got ${describe(v)}`);
  }
}
