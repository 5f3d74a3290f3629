/**
 * Protocol points that name a task (`<vertex>#<subtask>`), shared by the run's input check
 * (simulate refuses points for tasks the job lacks) and the generators (which aim drawn points
 * at tasks the job has).
 */
import type { Action, Fault } from './RunSpec.ts';
import { TASK_NAME } from './schema/faultSchema.ts';

/** The tasks `<vertex>#<subtask>` a message fault's `from` and `to` name, by field. */
export function messageFaultTasks(f: Fault): { readonly field: 'from' | 'to'; readonly task: string }[] {
  if (f.type !== 'message') return [];
  const named = (field: 'from' | 'to', v: string | undefined): { field: 'from' | 'to'; task: string }[] =>
    (v !== undefined && TASK_NAME.test(v) ? [{ field, task: v }] : []);
  return [...named('from', f.from), ...named('to', f.to)];
}

/**
 * The task a crash's or pause's `host` names (`<vertex>#<subtask>`: the TaskManager that runs it
 * when the fault fires), or undefined (a host, or another fault).
 */
export function faultHostTask(f: Fault | Action): string | undefined {
  return (f.type === 'crash' || f.type === 'pause') && TASK_NAME.test(f.host) ? f.host : undefined;
}

/**
 * The task a fault's (or action's) protocol point names (a task point's or an execution point's),
 * or undefined (a time trigger, or no task).
 */
export function faultTask(f: Fault | Action): string | undefined {
  if (!('when' in f) || f.when === undefined || !('at' in f.when)) return undefined;
  const point = f.when.at;
  return point.kind === 'task' || point.kind === 'execution' ? point.task : undefined;
}

/**
 * Task phases that only a task with input channels reaches: they are recorded by a barrier
 * handler, and a source task has none (it is triggered by RPC).
 */
export const INPUT_PHASES: ReadonlySet<string> = new Set(['first-barrier', 'aligned']);

/** The phase of a fault's (or action's) task protocol point, or undefined. */
export function faultTaskPhase(f: Fault | Action): string | undefined {
  if (!('when' in f) || f.when === undefined || !('at' in f.when)) return undefined;
  const point = f.when.at;
  return point.kind === 'task' ? point.phase : undefined;
}

/** `f` with its (task or execution) protocol point aimed at `task` instead. Requires faultTask(f) to be defined. */
export function withFaultTask(f: Fault, task: string): Fault {
  if (!('when' in f) || f.when === undefined || !('at' in f.when)) return f;
  if (f.when.at.kind !== 'task' && f.when.at.kind !== 'execution') return f;
  return { ...f, when: { at: { ...f.when.at, task } } } as Fault;
}
