/**
 * validateFaults: the fault-plan part of validateRunSpec. A fault must name existing hosts
 * (`jobmanager`, `taskmanager-1..N`), never crash the JobManager (no HA yet), fire by time
 * before the heal time, use known RPC kinds and operator uids, and keep probabilities in [0, 1]
 * and slowdown factors at 1 or more.
 */
import { RPC_KINDS } from '../../engine/index.ts';
import { JOB_MANAGER_HOST } from '../MiniCluster.ts';
import {
  FAULT_TYPES, type Fault, type JobMasterPhase, type SinkPhase, type TaskPhase,
} from './RunSpec.ts';
import {
  at, describe, fail, requireArray, requireAtLeast, requireBoolean, requireDelayMs, requireInt,
  requireMs, requireObject, requireOneOf, requireProbabilityAt, requireString,
} from './SpecChecks.ts';

export const TASK_PHASES: readonly TaskPhase[] = [
  'triggered', 'first-barrier', 'aligned', 'sync-done', 'async-done', 'acked',
];
export const JOB_MASTER_PHASES: readonly JobMasterPhase[] = [
  'triggered', 'coordinators-snapshotted', 'completed', 'notified',
];
export const SINK_PHASES: readonly SinkPhase[] = ['pre-committed', 'committed'];

/** A task name in a protocol point: `<vertex>#<subtask>`, as traces print it. */
const TASK_NAME = /^v\d+#\d+$/;

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
  const fields = ['kind', 'checkpoint', 'phase', 'task', 'nth'];
  const point = requireObject(requireObject(v, path, ['at'])['at'], p, fields);
  const kind = requireOneOf(point['kind'], at(p, 'kind'), ['task', 'jobmaster', 'sink'] as const);
  const only = (...fields: string[]): void => {
    requireObject(point, p, ['kind', ...fields]);
  };
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
