/**
 * The `jobmaster acknowledged` protocol point: reached at the ack that leaves a checkpoint's plan
 * with no task to wait for, the one the coordinator completes it on. The sim reads it from the
 * plan and the acks (FullyAcknowledged), and a fault there fires while the checkpoint's
 * `_metadata` is written under the coordinator lock, before `checkpoint.completed`.
 */
import { describe, expect, test } from 'vitest';
import type { TraceAttrs } from '../../engine/api/index.ts';
import type { TraceEvent } from '../Trace.ts';
import { FullyAcknowledged } from './FullyAcknowledged.ts';
import { RUN_SPEC_VERSION, type Action, type Fault, type RunSpec } from './RunSpec.ts';
import { simulate } from './simulate.ts';

let seq = 0;
const event = (type: string, attrs: TraceAttrs): TraceEvent => ({ seq: seq++, timeUs: 0, host: 'jobmanager', type, attrs });
const plan = (checkpointId: number, waitFor: string, jobRun?: number): TraceEvent =>
  event('checkpoint.plan', { checkpointId, waitFor, finished: '', ...(jobRun === undefined ? {} : { jobRun }) });
const ack = (checkpointId: number, task: string, result = 'SUCCESS', jobRun?: number): TraceEvent =>
  event('checkpoint.acknowledged', { checkpointId, task, result, ...(jobRun === undefined ? {} : { jobRun }) });

describe('FullyAcknowledged', () => {
  test('true once, at the last successful ack of an attempt the plan waits for', () => {
    const acks = new FullyAcknowledged();
    expect(acks.observe(plan(1, 'v0#0@0,v1#0@0'))).toBe(false);
    expect(acks.observe(ack(1, 'v0#0@0'))).toBe(false);
    // A duplicate, an ack of an attempt outside the plan, an ack of another checkpoint: not it.
    expect(acks.observe(ack(1, 'v0#0@0', 'DUPLICATE'))).toBe(false);
    expect(acks.observe(ack(1, 'v1#0@1'))).toBe(false);
    expect(acks.observe(ack(2, 'v1#0@0'))).toBe(false);
    expect(acks.observe(ack(1, 'v1#0@0'))).toBe(true);
    expect(acks.observe(ack(1, 'v1#0@0'))).toBe(false);
  });

  test('checkpoint ids of different job runs are different checkpoints', () => {
    const acks = new FullyAcknowledged();
    acks.observe(plan(3, 'v0#0@0'));
    acks.observe(plan(3, 'v0#0@5,v0#1@5', 2));
    expect(acks.observe(ack(3, 'v0#0@5', 'SUCCESS', 2))).toBe(false);
    expect(acks.observe(ack(3, 'v0#0@0'))).toBe(true);
    expect(acks.observe(ack(3, 'v0#1@5', 'SUCCESS', 2))).toBe(true);
  });
});

/** Flights 0..300 at parallelism 2 on two TaskManagers, a checkpoint every 50 ms. */
function spec(faults: Fault[], actions: Action[] = []): RunSpec {
  return {
    version: RUN_SPEC_VERSION, seed: 'fully-acknowledged',
    job: { kind: 'flights', selection: { from: 0, to: 300 } },
    parallelism: 2,
    checkpoint: { mode: 'aligned', intervalMs: 50 },
    faults, ...(actions.length === 0 ? {} : { actions }),
    healTimeMs: 600,
    budgets: { maxEvents: 2_000_000, maxTimeMs: 20_000 },
    overrides: [], mutations: [],
  };
}

const find = (trace: readonly TraceEvent[], type: string, id: number): TraceEvent | undefined =>
  trace.find((e) => e.type === type && e.attrs['checkpointId'] === id);

describe('jobmaster acknowledged', () => {
  test('a fault there fires right after the last awaited ack, while the _metadata is written: the failover restores that checkpoint', () => {
    const r = simulate(spec([{ type: 'global-failure', when: { at: { kind: 'jobmaster', checkpoint: 2, phase: 'acknowledged' } } }]));
    const waitFor = String(find(r.trace, 'checkpoint.plan', 2)?.attrs['waitFor']).split(',');
    expect(waitFor).toHaveLength(4);
    const acks = r.trace.filter((e) => e.type === 'checkpoint.acknowledged' && e.attrs['checkpointId'] === 2);
    expect(acks.map((e) => e.attrs['result'])).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS']);
    const last = acks.at(-1) as TraceEvent;
    const fired = r.trace.find((e) => e.type === 'fault') as TraceEvent;
    const completed = find(r.trace, 'checkpoint.completed', 2) as TraceEvent;
    expect(r.faults.map((f) => [f.action, f.timeMs])).toEqual([['global-failure', last.timeUs / 1000]]);
    // Fired after the task that handled the last ack, before the write ended and 2 completed.
    expect(last.seq).toBeLessThan(fired.seq);
    expect(fired.seq).toBeLessThan(completed.seq);
    expect(completed.timeUs).toBeGreaterThan(fired.timeUs);
    // Nothing can abort a fully acknowledged checkpoint (the coordinator lock): the failover's
    // stop of the scheduler waits for the write, and the restore uses checkpoint 2.
    expect(find(r.trace, 'checkpoint.aborted', 2)).toBeUndefined();
    expect(r.trace.find((e) => e.type === 'checkpoint.restored')?.attrs['checkpointId']).toBe(2);
    expect(r.jobStatus).toBe('FINISHED');
  });

  test('a point of a checkpoint that is never fully acknowledged never fires; one naming a savepoint fires on its id', () => {
    expect(simulate(spec([{ type: 'global-failure', when: { at: { kind: 'jobmaster', checkpoint: 90, phase: 'acknowledged' } } }]))
      .unfiredFaults).toEqual([0]);
    const r = simulate(spec(
      [{ type: 'global-failure', when: { at: { kind: 'jobmaster', savepoint: 1, phase: 'acknowledged' } } }],
      [{ type: 'savepoint', when: { atMs: 70 } }],
    ));
    const savepoint = r.trace.find((e) => e.type === 'checkpoint.triggered' && e.attrs['savepoint'] === true) as TraceEvent;
    const id = savepoint.attrs['checkpointId'] as number;
    const lastAck = r.trace.filter((e) => e.type === 'checkpoint.acknowledged' && e.attrs['checkpointId'] === id).at(-1) as TraceEvent;
    expect(r.faults.map((f) => [f.action, f.timeMs])).toEqual([['global-failure', lastAck.timeUs / 1000]]);
    expect((r.trace.find((e) => e.type === 'fault') as TraceEvent).seq).toBeLessThan((find(r.trace, 'checkpoint.completed', id) as TraceEvent).seq);
  });
});
