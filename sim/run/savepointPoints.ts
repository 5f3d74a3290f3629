/**
 * savepointPoints: protocol points that name a savepoint rather than a checkpoint id. A task or
 * jobmaster point may give `savepoint: n` instead of `checkpoint: id`: n counts the entries of
 * the RunSpec's `actions` that trigger a savepoint ({@link SAVEPOINT_ACTION_TYPES}), from 1, in
 * the order of `actions`, and the point is about the checkpoint id that action's savepoint got
 * when the coordinator triggered it. Such ids are not known before the run (a savepoint takes the
 * next id, whatever triggered before it), so a spec cannot name them in advance.
 *
 * How the id is learnt: the action plan passes `action[<index>]` ({@link actionOrigin}) as the
 * origin of its request (JobMaster.triggerSavepoint), and the coordinator records it on the
 * `checkpoint.triggered` event of the id the request got. A savepoint request that never got an
 * id (it failed before, or the action never fired) leaves the point unreached: what waits for it
 * never fires, and is listed as unfired.
 *
 * Also here: validateRunSpec's check of such points ({@link checkSavepointPoints}).
 */
import type { TraceEvent } from '../Trace.ts';
import type { Action, Fault, ProtocolPoint } from './RunSpec.ts';
import { fail } from './SpecChecks.ts';

/**
 * The action types that trigger a savepoint, counted by `savepoint: n`: `savepoint`
 * (JobMaster.triggerSavepoint) and `stop-with-savepoint` (JobMaster.stopWithSavepoint, whose
 * synchronous savepoint counts like any other).
 */
export const SAVEPOINT_ACTION_TYPES: ReadonlySet<string> = new Set(['savepoint', 'stop-with-savepoint']);

/** What an action's request carries as its origin, and its `checkpoint.triggered` event then: `action[<index>]`. */
export function actionOrigin(index: number): string {
  return `action[${index}]`;
}

/** The indices in `actions` of the entries that trigger a savepoint, in order: savepoint 1 is the first. */
export function savepointActionIndices(actions: readonly { readonly type: string }[]): number[] {
  return actions.flatMap((a, i) => (SAVEPOINT_ACTION_TYPES.has(a.type) ? [i] : []));
}

/** The index in `actions` of savepoint `n` (from 1), or undefined when there are fewer. */
export function savepointActionIndex(actions: readonly { readonly type: string }[], n: number): number | undefined {
  return savepointActionIndices(actions)[n - 1];
}

/** The savepoint a task or jobmaster point names (`savepoint: n`), or undefined. */
export function pointSavepoint(point: ProtocolPoint): number | undefined {
  return point.kind === 'task' || point.kind === 'jobmaster' ? point.savepoint : undefined;
}

/**
 * The checkpoint id savepoint `n` of `actions` got, read from `trace`: the id of the
 * `checkpoint.triggered` event whose origin is that action; undefined when there is no such
 * action or event (the action never fired, or its request failed before it got an id).
 */
export function savepointCheckpointId(trace: readonly TraceEvent[], actions: readonly { readonly type: string }[],
  n: number): number | undefined {
  const index = savepointActionIndex(actions, n);
  if (index === undefined) return undefined;
  const origin = actionOrigin(index);
  const triggered = trace.find((e) => e.type === 'checkpoint.triggered' && e.attrs['origin'] === origin);
  const id = triggered?.attrs['checkpointId'];
  return typeof id === 'number' ? id : undefined;
}

/**
 * Refuses points that name a savepoint the spec does not have (`savepoint: 2` with one savepoint
 * action), and actions that wait for their own savepoint, directly or through other actions (no
 * run could reach such a point: it would only ever show as an action that never fired).
 * @throws SimInputError naming the field, `faults[0].when.at.savepoint: ...`.
 */
export function checkSavepointPoints(faults: readonly Fault[], actions: readonly Action[]): void {
  const savepoints = savepointActionIndices(actions);
  const have = savepoints.length === 0
    ? `no action triggers a savepoint (action types that do: ${[...SAVEPOINT_ACTION_TYPES].join(', ')})`
    : `only ${savepoints.length === 1 ? 'one action triggers' : `${savepoints.length} actions trigger`} a savepoint `
      + `(${savepoints.map((i) => `actions[${i}]`).join(', ')})`;
  const check = (when: unknown, path: string): void => {
    const n = triggerSavepoint(when);
    if (n !== undefined && n > savepoints.length) fail(`${path}.when.at.savepoint: names savepoint ${n}, but ${have}`);
  };
  faults.forEach((f, i) => check('when' in f ? f.when : undefined, `faults[${i}]`));
  actions.forEach((a, i) => check(a.when, `actions[${i}]`));
  actions.forEach((_a, i) => {
    // Follow what action i waits for: a savepoint's action, which may wait for another one's.
    const seen = new Set<number>();
    let j: number | undefined = i;
    while (j !== undefined && !seen.has(j)) {
      seen.add(j);
      const n = triggerSavepoint((actions[j] as Action).when);
      j = n === undefined ? undefined : savepoints[n - 1];
      if (j === i) {
        const own = triggerSavepoint((actions[i] as Action).when);
        fail(`actions[${i}].when.at.savepoint: savepoint ${String(own)} ${seen.size === 1 ? 'is this action\'s own'
          : 'waits, through other actions, for this action\'s own savepoint'}, so this action could never fire`);
      }
    }
  });
}

/** The savepoint a trigger's point names, or undefined. */
function triggerSavepoint(when: unknown): number | undefined {
  if (when === null || typeof when !== 'object' || !('at' in when)) return undefined;
  return pointSavepoint((when as { at: ProtocolPoint }).at);
}
