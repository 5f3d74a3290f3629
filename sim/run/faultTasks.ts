/**
 * Protocol points that name a task (`<vertex>#<subtask>`), shared by the run's input check
 * (simulate refuses points for tasks the job lacks) and the generators (which aim drawn points
 * at tasks the job has).
 */
import type { Fault } from './RunSpec.ts';

/** The task a fault's protocol point names, or undefined (a time trigger, or no task). */
export function faultTask(f: Fault): string | undefined {
  if (!('when' in f) || !('at' in f.when)) return undefined;
  const point = f.when.at;
  return point.kind === 'task' ? point.task : undefined;
}

/** `f` with its protocol point aimed at `task` instead. Requires faultTask(f) to be defined. */
export function withFaultTask(f: Fault, task: string): Fault {
  if (!('when' in f) || !('at' in f.when) || f.when.at.kind !== 'task') return f;
  return { ...f, when: { at: { ...f.when.at, task } } } as Fault;
}
