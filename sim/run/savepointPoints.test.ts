/**
 * Protocol points that name a savepoint (`savepoint: n`, savepointPoints.ts): the n-th action
 * that triggers a savepoint, its id learnt from the `origin` its request put on the coordinator's
 * `checkpoint.triggered` event. A fault or action at such a point fires right after the phase's
 * event of that id; one whose savepoint never got an id stays unfired; a point naming a savepoint
 * the spec lacks is bad input.
 */
import { describe, expect, test } from 'vitest';
import type { TraceEvent } from '../Trace.ts';
import { RUN_SPEC_VERSION, type Action, type Fault, type RunMode, type RunSpec } from './RunSpec.ts';
import type { RunResult } from './RunResult.ts';
import { savepointCheckpointId } from './savepointPoints.ts';
import { simulate } from './simulate.ts';
import { validateRunSpec } from './validateRunSpec.ts';

function spec(o: { mode?: RunMode; actions?: Action[]; faults?: Fault[] } = {}): RunSpec {
  return {
    version: RUN_SPEC_VERSION,
    seed: 'savepoint-points',
    job: { kind: 'flights', selection: { from: 0, to: 300 } },
    parallelism: 2,
    checkpoint: { mode: o.mode ?? 'aligned', intervalMs: 20 },
    faults: o.faults ?? [],
    actions: o.actions ?? [],
    healTimeMs: 400,
    budgets: { maxEvents: 2_000_000, maxTimeMs: 20_000 },
    overrides: [],
    mutations: [],
  };
}

const SAVEPOINT_AT_2: Action = { type: 'savepoint', when: { at: { kind: 'jobmaster', checkpoint: 2, phase: 'completed' } } };
const PAUSE: Omit<Extract<Fault, { type: 'pause' }>, 'when'> = { type: 'pause', host: 'jobmanager', durationMs: 1 };

const firedAt = (r: RunResult, fault: number): number | undefined =>
  r.faults.find((f) => f.fault === fault && f.action === 'pause')?.timeMs;
const ms = (e: TraceEvent | undefined): number => (e?.timeUs ?? NaN) / 1000;
const savepointId = (r: RunResult, action = 0): number =>
  r.actions.find((a) => a.action === action && a.event === 'completed')?.checkpointId as number;

describe('points that name a savepoint', () => {
  test('the coordinator records the action as the origin of its savepoint\'s trigger, and only there', () => {
    const r = simulate(spec({ actions: [SAVEPOINT_AT_2] }));
    const id = savepointId(r);
    const triggered = r.trace.filter((e) => e.type === 'checkpoint.triggered');
    expect(triggered.filter((e) => e.attrs['origin'] !== undefined).map((e) => [e.attrs['checkpointId'], e.attrs['origin']]))
      .toEqual([[id, 'action[0]']]);
    expect(savepointCheckpointId(r.trace, r.spec.actions, 1)).toBe(id);
  });

  test('a fault at { jobmaster, savepoint 1, completed } fires right after the savepoint completes', () => {
    const r = simulate(spec({
      actions: [SAVEPOINT_AT_2],
      faults: [{ ...PAUSE, when: { at: { kind: 'jobmaster', savepoint: 1, phase: 'completed' } } }],
    }));
    const id = savepointId(r);
    expect(id).toBe(3);
    const completed = r.trace.find((e) => e.type === 'checkpoint.completed' && e.attrs['checkpointId'] === id);
    expect(completed?.attrs['savepoint']).toBe(true);
    expect(firedAt(r, 0)).toBe(ms(completed));
    expect(r.unfiredFaults).toEqual([]);
    // Not checkpoint 1's completion, nor any other: the fault fired once, at the savepoint's.
    expect(r.faults.filter((f) => f.action === 'pause')).toHaveLength(1);
  });

  test('a task point of savepoint 1 waits for that task\'s phase of the savepoint\'s id', () => {
    const r = simulate(spec({
      actions: [SAVEPOINT_AT_2],
      faults: [{ ...PAUSE, when: { at: { kind: 'task', savepoint: 1, phase: 'sync-done', task: 'v1#1' } } }],
    }));
    const id = savepointId(r);
    const syncDone = r.trace.find((e) => e.type === 'checkpoint.syncDone' && e.attrs['checkpointId'] === id
      && String(e.attrs['task']).startsWith('v1#1@'));
    expect(syncDone).toBeDefined();
    expect(firedAt(r, 0)).toBe(ms(syncDone));
  });

  test('an action can wait for an earlier savepoint: a second savepoint when the first completes', () => {
    const r = simulate(spec({ actions: [
      SAVEPOINT_AT_2,
      { type: 'savepoint', when: { at: { kind: 'jobmaster', savepoint: 1, phase: 'completed' } } },
    ] }));
    const first = r.trace.find((e) => e.type === 'checkpoint.completed' && e.attrs['checkpointId'] === savepointId(r, 0));
    expect(r.actions.find((a) => a.action === 1 && a.event === 'fired')?.timeMs).toBe(ms(first));
    expect(savepointId(r, 1)).toBeGreaterThan(savepointId(r, 0));
    expect(r.unfiredActions).toEqual([]);
  });

  test('a stop-with-savepoint\'s synchronous savepoint counts: savepoint 2 after one savepoint action is the stop\'s', () => {
    const r = simulate(spec({
      actions: [
        { type: 'savepoint', when: { at: { kind: 'jobmaster', checkpoint: 1, phase: 'completed' } } },
        { type: 'stop-with-savepoint', when: { at: { kind: 'jobmaster', checkpoint: 3, phase: 'completed' } } },
      ],
      faults: [{ ...PAUSE, when: { at: { kind: 'jobmaster', savepoint: 2, phase: 'triggered' } } }],
    }));
    const stopTriggered = r.trace.find((e) => e.type === 'checkpoint.triggered' && e.attrs['origin'] === 'action[1]');
    expect(stopTriggered?.attrs['synchronous']).toBe(true);
    expect(savepointCheckpointId(r.trace, r.spec.actions, 2)).toBe(stopTriggered?.attrs['checkpointId']);
    expect(firedAt(r, 0)).toBe(ms(stopTriggered));
  });

  test('a point whose savepoint never got an id is never reached: the fault is listed unfired', () => {
    const at = { at: { kind: 'jobmaster', savepoint: 1, phase: 'triggered' } } as const;
    // The action never fires (no restore in a run without faults) ...
    const never = simulate(spec({
      actions: [{ type: 'savepoint', when: { at: { kind: 'restore' } } }],
      faults: [{ ...PAUSE, when: at }],
    }));
    expect(never.unfiredActions).toEqual([0]);
    expect(never.unfiredFaults).toEqual([0]);
    // ... or fires but gets no id: without checkpointing (mode none) the JobMaster has no coordinator.
    const refused = simulate(spec({ mode: 'none', actions: [{ type: 'savepoint', when: { atMs: 30 } }], faults: [{ ...PAUSE, when: at }] }));
    expect(refused.actions.map((a) => a.event)).toEqual(['fired', 'failed']);
    expect(refused.unfiredFaults).toEqual([0]);
    // ... or fires after the job finished, when the coordinator is shut down.
    const late = simulate(spec({
      actions: [{ type: 'savepoint', when: { at: { kind: 'job', status: 'FINISHED' } } }],
      faults: [{ ...PAUSE, when: at }],
    }));
    expect(late.actions.find((a) => a.event === 'failed')?.reason).toBe('CHECKPOINT_COORDINATOR_SHUTDOWN');
    expect(late.unfiredFaults).toEqual([0]);
  });

  test.each<[string, Partial<RunSpec>, string]>([
    ['a savepoint the actions do not trigger',
      { actions: [SAVEPOINT_AT_2], faults: [{ ...PAUSE, when: { at: { kind: 'jobmaster', savepoint: 2, phase: 'completed' } } }] },
      'faults[0].when.at.savepoint: names savepoint 2, but only one action triggers a savepoint (actions[0])'],
    ['a savepoint without any savepoint action',
      { faults: [{ ...PAUSE, when: { at: { kind: 'task', savepoint: 1, phase: 'acked' } } }] },
      'faults[0].when.at.savepoint: names savepoint 1, but no action triggers a savepoint '
        + '(action types that do: savepoint, stop-with-savepoint)'],
    ['an action waiting for its own savepoint',
      { actions: [{ type: 'savepoint', when: { at: { kind: 'jobmaster', savepoint: 1, phase: 'triggered' } } }] },
      'actions[0].when.at.savepoint: savepoint 1 is this action\'s own, so this action could never fire'],
    ['two actions waiting for each other',
      { actions: [
        { type: 'savepoint', when: { at: { kind: 'jobmaster', savepoint: 2, phase: 'completed' } } },
        { type: 'savepoint', when: { at: { kind: 'jobmaster', savepoint: 1, phase: 'completed' } } },
      ] },
      'actions[0].when.at.savepoint: savepoint 2 waits, through other actions, for this action\'s own savepoint, '
        + 'so this action could never fire'],
    ['both checkpoint and savepoint',
      { actions: [SAVEPOINT_AT_2], faults: [{ ...PAUSE, when: { at: { kind: 'jobmaster', checkpoint: 3, savepoint: 1, phase: 'completed' } } }] },
      'faults[0].when.at.savepoint: give checkpoint or savepoint, not both (got checkpoint 3 and savepoint 1)'],
    ['neither checkpoint nor savepoint',
      { faults: [{ ...PAUSE, when: { at: { kind: 'task', phase: 'acked' } } }] } as unknown as Partial<RunSpec>,
      'faults[0].when.at.checkpoint: missing (or give savepoint: which savepoint action of the run, from 1)'],
    ['savepoint 0',
      { actions: [SAVEPOINT_AT_2], faults: [{ ...PAUSE, when: { at: { kind: 'task', savepoint: 0, phase: 'acked' } } }] },
      'faults[0].when.at.savepoint: must be an integer >= 1, got 0'],
  ])('bad input: %s', (_name, over, message) => {
    expect(() => validateRunSpec({ ...spec(), ...over })).toThrow(message);
    expect(() => validateRunSpec({ ...spec(), ...over })).not.toThrow(/\n/);
  });
});
