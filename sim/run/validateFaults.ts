/**
 * validateFaults: the fault-plan part of validateRunSpec's checks after parsing, on faults the
 * schema (schema/faultSchema.ts) accepted. What the schema cannot know: a fault must name
 * existing hosts (`jobmanager`, `taskmanager-1..N`; a crash or pause may name a task instead, for
 * the TaskManager that runs it) and operator uids (a coordinator stall: a source's, the operators
 * with a coordinator), never crash the JobManager
 * (no HA yet), partition two different hosts, fire by time before the heal time, and filter
 * messages in ways some RPC of its method can match. (Tasks named `<vertex>#<subtask>` are
 * checked against the job graph by simulate's checkFaultTasks: only the built graph knows them.)
 */
import { CHECKPOINT_RPC_METHODS, rpcMethodNamed, rpcTaskSide } from '../../engine/index.ts';
import { JOB_MANAGER_HOST } from '../MiniCluster.ts';
import type { Fault, FaultTrigger, MessageFault } from './RunSpec.ts';
import { TASK_NAME } from './schema/faultSchema.ts';
import { at, describe, fail } from './SpecChecks.ts';

export {
  JOB_MASTER_PHASES, JOB_POINT_STATUSES, MAX_SLOWDOWN_FACTOR, SINK_PHASES, TASK_NAME, TASK_PHASES,
} from './schema/faultSchema.ts';

/** What faults are checked against. */
export interface FaultContext {
  /** Every host: `jobmanager` and `taskmanager-1..N`. */
  readonly hosts: readonly string[];
  /** The job's operator uids. */
  readonly uids: readonly string[];
  /** The uids of its sources, the operators that have a coordinator. */
  readonly sourceUids: readonly string[];
  readonly healTimeMs: number;
}

/**
 * Checks the spec's parsed `faults` against the job and the cluster.
 * @throws SimInputError with a one-line reason naming the fault by index.
 */
export function validateFaults(faults: readonly Fault[], ctx: FaultContext): readonly Fault[] {
  faults.forEach((f, i) => validateFault(f, `faults[${i}]`, ctx));
  return faults;
}

function validateFault(f: Fault, path: string, ctx: FaultContext): void {
  switch (f.type) {
    case 'crash':
      requireHostOrTask(f.host, at(path, 'host'), ctx);
      if (f.host === JOB_MANAGER_HOST) fail(`${at(path, 'host')}: no JobManager crash until HA exists`);
      break;
    case 'pause':
      requireHostOrTask(f.host, at(path, 'host'), ctx);
      break;
    case 'partition':
      requireHost(f.a, at(path, 'a'), ctx);
      requireHost(f.b, at(path, 'b'), ctx);
      if (f.a === f.b) fail(`${path}: a partition needs two different hosts, got ${f.a} twice`);
      break;
    case 'slow-task':
      requireUid(f.operator, at(path, 'operator'), ctx.uids);
      break;
    case 'coordinator-stall':
      if (f.operator !== undefined) requireSourceUid(f.operator, at(path, 'operator'), ctx);
      break;
    case 'message':
      checkMessageFilters(f, path, ctx);
      break;
    default:
      break;
  }
  if ('when' in f && f.when !== undefined) checkTrigger(f.when, at(path, 'when'), ctx);
}

/**
 * A message fault's filters must be able to match some RPC of its method: a `checkpoint` only
 * for a method about one, `from` / `to` a host or a task, and a task only on the side the method
 * names one.
 */
function checkMessageFilters(f: MessageFault, path: string, ctx: FaultContext): void {
  // The schema admits only methods and aliases, so this resolves.
  const method = rpcMethodNamed(f.method) ?? f.method;
  if (f.checkpoint !== undefined && !(CHECKPOINT_RPC_METHODS as readonly string[]).includes(method)) {
    fail(`${at(path, 'checkpoint')}: ${method} RPCs are about no checkpoint, so none would match `
      + `(methods with a checkpoint: ${CHECKPOINT_RPC_METHODS.join(', ')})`);
  }
  for (const side of ['from', 'to'] as const) {
    const end = f[side];
    if (end === undefined) continue;
    const p = at(path, side);
    if (!(ctx.hosts.includes(end) || TASK_NAME.test(end))) {
      fail(`${p}: must be a host (${ctx.hosts.join(', ')}) or a task <vertex>#<subtask> (e.g. v1#0), `
        + `got ${describe(end)}`);
    }
    const names = rpcTaskSide(method);
    if (TASK_NAME.test(end) && names !== side) {
      fail(`${p}: ${method} RPCs name ${names === undefined ? 'no task' : `their ${names === 'from' ? 'sending' : 'receiving'} task only`}`
        + `, so ${side} ${end} would match none`);
    }
  }
}

function checkTrigger(when: FaultTrigger, path: string, ctx: FaultContext): void {
  if ('atMs' in when && when.atMs >= ctx.healTimeMs) {
    fail(`${at(path, 'atMs')}: must be before healTimeMs (${ctx.healTimeMs}), got ${when.atMs}: `
      + 'faults stop at the heal time');
  }
}

/**
 * A crash's or pause's host: a host, or a task `<vertex>#<subtask>` standing for the TaskManager
 * it runs on when the fault fires (FaultPlan; simulate checks that the job has the task).
 */
function requireHostOrTask(host: string, path: string, ctx: FaultContext): void {
  if (TASK_NAME.test(host)) return;
  if (!ctx.hosts.includes(host)) {
    fail(`${path}: unknown host ${JSON.stringify(host)} (hosts: ${ctx.hosts.join(', ')}; or a task <vertex>#<subtask>, `
      + 'for the TaskManager that runs it)');
  }
}

function requireHost(host: string, path: string, ctx: FaultContext): void {
  if (!ctx.hosts.includes(host)) {
    fail(`${path}: unknown host ${JSON.stringify(host)} (hosts: ${ctx.hosts.join(', ')})`);
  }
}

/** A coordinator stall names a source: only sources have an operator coordinator. */
function requireSourceUid(v: string, path: string, ctx: FaultContext): void {
  if (ctx.sourceUids.includes(v)) return;
  const what = ctx.uids.includes(v) ? `${JSON.stringify(v)} is not a source, so it has no coordinator`
    : `unknown operator uid ${JSON.stringify(v)}`;
  fail(`${path}: ${what} (sources: ${ctx.sourceUids.join(', ')})`);
}

/** Checks that `v` is one of the job's operator uids. */
export function requireUid(v: unknown, path: string, uids: readonly string[]): string {
  if (typeof v !== 'string' || !uids.includes(v)) {
    fail(`${path}: unknown operator uid ${describe(v)} (operators: ${uids.join(', ')})`);
  }
  return v;
}
