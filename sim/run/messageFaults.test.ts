/**
 * Targeted message faults and the protocol points of issue 13, end to end through simulate:
 * what each action does to the run (read from the trace and the committed output), how `nth`
 * counts, when a fault stays unfired, and the restore, job, ack-received and notified points.
 */
import { describe, expect, test } from 'vitest';
import type { TraceEvent } from '../Trace.ts';
import type { FlightOutput } from '../workloads/flights.ts';
import { RUN_SPEC_VERSION, type Fault, type RunSpec } from './RunSpec.ts';
import type { RunResult } from './RunResult.ts';
import { simulate } from './simulate.ts';

/**
 * Flights 0..300 at parallelism 2 on one TaskManager, a checkpoint every 20 ms (five complete):
 * `v0` the source, `v1` the statistics chained with the two-phase-commit sink.
 */
function spec(faults: Fault[], o: { healTimeMs?: number } = {}): RunSpec {
  return {
    version: RUN_SPEC_VERSION,
    seed: 'message-faults',
    job: { kind: 'flights', selection: { from: 0, to: 300 } },
    parallelism: 2,
    checkpoint: { mode: 'aligned', intervalMs: 20 },
    faults,
    healTimeMs: o.healTimeMs ?? 200,
    budgets: { maxEvents: 2_000_000, maxTimeMs: 20_000 },
    overrides: [],
    mutations: [],
  };
}

const ofType = (r: RunResult, type: string): TraceEvent[] => r.trace.filter((e) => e.type === type);
const faultEvents = (r: RunResult): TraceEvent[] => ofType(r, 'fault');
const sendOf = (r: RunResult, id: unknown): TraceEvent | undefined =>
  r.trace.find((e) => e.type === 'rpc.send' && e.attrs['id'] === id);
const deliveryOf = (r: RunResult, id: unknown): TraceEvent | undefined =>
  r.trace.find((e) => e.type === 'rpc.deliver' && e.attrs['id'] === id);
const flightIds = (r: RunResult): number[] =>
  r.committed.map((c) => (c.record as { value: FlightOutput }).value.flightId).sort((a, b) => a - b);

describe('message faults', () => {
  // Flink's TwoPhaseCommitSinkFunction.notifyCheckpointComplete commits every pending
  // transaction of a checkpoint up to the notified one: a lost notification is made good by the
  // next one, and nothing is lost or duplicated.
  test('a lost confirmCheckpoint to the sink leaves its transaction pre-committed until the next '
    + "checkpoint's notification commits it", () => {
    const r = simulate(spec([
      { type: 'message', action: 'lose', method: 'notifyCheckpointComplete', checkpoint: 3, to: 'v1#0' },
    ]));
    expect(r.faults.map((f) => f.action)).toEqual(['lose']);
    expect(r.unfiredFaults).toEqual([]);
    expect(r.marks['message-lost']).toBe(1);
    const [lost] = faultEvents(r);
    expect(lost?.attrs).toMatchObject({ method: 'confirmCheckpoint', checkpoint: 3, attempt: 'v1#0@0' });
    expect(r.trace).toContainEqual(expect.objectContaining({
      type: 'rpc.drop', attrs: { id: lost?.attrs['id'], reason: 'message-fault' },
    }));
    const notified = ofType(r, 'checkpoint.taskNotified').filter((e) => e.attrs['task'] === 'v1#0@0');
    // 5 fails (a source finished before its trigger arrived): 6 is the next the sink hears of.
    expect(notified.map((e) => e.attrs['checkpointId'])).toEqual([1, 2, 4, 6]);
    // Sink subtask 0's transaction of checkpoint 3 (epoch 2) stays pre-committed until the
    // notification of 4, which commits it together with 4's own.
    const commits = ofType(r, 'txn.commit').filter((e) => String(e.attrs['txn']).startsWith('flights-sink#0@'));
    const at4 = notified.find((e) => e.attrs['checkpointId'] === 4)?.timeUs;
    expect(commits.filter((e) => e.timeUs === at4).map((e) => e.attrs['txn']))
      .toEqual(['flights-sink#0@0/e2', 'flights-sink#0@0/e3']);
    const preCommit = ofType(r, 'txn.preCommit').find((e) => e.attrs['txn'] === 'flights-sink#0@0/e2');
    expect(preCommit?.timeUs).toBeLessThan(lost?.timeUs ?? 0);
    expect(flightIds(r)).toEqual([...Array(300).keys()]);
    expect(r.lingeringTransactions).toEqual([]);
  });

  test('a held acknowledgeCheckpoint delays later messages on the same link', () => {
    const r = simulate(spec([
      { type: 'message', action: 'hold', method: 'acknowledgeCheckpoint', checkpoint: 2, from: 'v0#0', durationMs: 10 },
    ]));
    const [held, release] = faultEvents(r);
    expect([held?.attrs['action'], release?.attrs['action']]).toEqual(['hold', 'release']);
    expect((release?.timeUs ?? 0) - (held?.timeUs ?? 0)).toBe(10_000);
    const send = sendOf(r, held?.attrs['id']) as TraceEvent;
    const delivered = deliveryOf(r, held?.attrs['id']) as TraceEvent;
    expect(delivered.timeUs).toBeGreaterThanOrEqual(send.timeUs + 10_000);
    // Every later message on the link (taskmanager-1's TaskExecutor to the JobMaster) sent while
    // it was held arrives after it, although its own latency was far shorter.
    const behind = r.trace.filter((e) => e.type === 'rpc.send' && e.attrs['from'] === send.attrs['from']
      && e.attrs['to'] === send.attrs['to'] && e.seq > send.seq && e.timeUs < (release?.timeUs ?? 0));
    expect(behind.length).toBeGreaterThan(0);
    for (const m of behind) {
      const d = deliveryOf(r, m.attrs['id']);
      if (d !== undefined) expect(d.timeUs).toBeGreaterThanOrEqual(delivered.timeUs);
    }
    expect(r.checkpoints.completed.map((c) => c.checkpointId)).toContain(2);
  });

  test('a delayed trigger reaches the source that much later', () => {
    const base = simulate(spec([]));
    const r = simulate(spec([
      { type: 'message', action: 'delay', method: 'triggerCheckpoint', checkpoint: 2, to: 'v0#1', delayMs: 15 },
    ]));
    expect(r.faults.map((f) => f.action)).toEqual(['delay']);
    expect(r.marks['message-delayed']).toBe(1);
    const triggeredOn = (x: RunResult): number => (ofType(x, 'checkpoint.taskTriggered')
      .find((e) => e.attrs['checkpointId'] === 2 && e.attrs['task'] === 'v0#1@0') as TraceEvent).timeUs;
    const triggered = (x: RunResult): number => (ofType(x, 'checkpoint.triggered')
      .find((e) => e.attrs['checkpointId'] === 2) as TraceEvent).timeUs;
    expect(triggeredOn(r) - triggered(r)).toBeGreaterThanOrEqual(15_000);
    expect(triggeredOn(base) - triggered(base)).toBeLessThan(15_000);
    expect(r.checkpoints.completed.map((c) => c.checkpointId)).toContain(2);
  });

  test('nth counts matches after the trigger fires', () => {
    const r = simulate(spec([{
      type: 'message', action: 'lose', method: 'acknowledgeCheckpoint', nth: 2,
      when: { at: { kind: 'jobmaster', checkpoint: 2, phase: 'completed' } },
    }]));
    const completed2 = ofType(r, 'checkpoint.completed').find((e) => e.attrs['checkpointId'] === 2) as TraceEvent;
    const acksAfter = r.trace.filter((e) => e.type === 'rpc.send' && e.attrs['method'] === 'acknowledgeCheckpoint'
      && e.seq > completed2.seq);
    const [lost] = faultEvents(r);
    expect(lost?.attrs['id']).toBe(acksAfter[1]?.attrs['id']);
    expect(lost?.attrs['checkpoint']).toBe(3);
    // Checkpoint 3 misses an ack and expires; the run goes on and finishes.
    expect(r.checkpoints.completed.map((c) => c.checkpointId)).not.toContain(3);
    expect(r.jobStatus).toBe('FINISHED');
  });

  test('answers of asks are not counted: the 3rd triggerCheckpoint is the first of checkpoint 2', () => {
    // Checkpoint 1 triggers v0#0 and v0#1 (two asks), whose answers come back before checkpoint
    // 2 is triggered; counted, an answer would be the 3rd match.
    const r = simulate(spec([{ type: 'message', action: 'lose', method: 'triggerCheckpoint', nth: 3 }]));
    const [lost] = faultEvents(r);
    expect(lost?.attrs).toMatchObject({ method: 'triggerCheckpoint', checkpoint: 2 });
    const answers = r.trace.filter((e) => e.type === 'rpc.send' && e.attrs['method'] === 'triggerCheckpoint'
      && e.attrs['answer'] === true && e.seq < (lost?.seq ?? 0));
    expect(answers).toHaveLength(2);
  });

  test('a message fault that never matched is unfired and changes nothing', () => {
    const base = simulate(spec([]));
    const r = simulate(spec([
      { type: 'message', action: 'lose', method: 'confirmCheckpoint', checkpoint: 90 },
      // Matches only after the heal time (checkpoint 5 completes at about 105 ms): never acted on.
      { type: 'message', action: 'hold', method: 'confirmCheckpoint', checkpoint: 5 },
    ], { healTimeMs: 200 }));
    expect(r.unfiredFaults).toEqual([0]);
    const late = simulate(spec([{ type: 'message', action: 'lose', method: 'confirmCheckpoint', checkpoint: 5 }],
      { healTimeMs: 60 }));
    expect(late.unfiredFaults).toEqual([0]);
    expect(late.faults).toEqual([]);
    const never = simulate(spec([{ type: 'message', action: 'lose', method: 'confirmCheckpoint', checkpoint: 90 }]));
    expect(never.unfiredFaults).toEqual([0]);
    expect(never.faults).toEqual([]);
    expect(never.traceHash).toBe(base.traceHash);
  });

  test('a hold without durationMs releases the message at the heal time', () => {
    const r = simulate(spec([
      { type: 'message', action: 'hold', method: 'confirmCheckpoint', checkpoint: 2, to: 'v1#1' },
    ], { healTimeMs: 70 }));
    // Held when 2 completes (its confirmations go out then), released at the heal time.
    const completed2 = ofType(r, 'checkpoint.completed').find((e) => e.attrs['checkpointId'] === 2) as TraceEvent;
    expect(completed2.timeUs).toBeLessThan(70_000);
    expect(r.faults.map((f) => [f.action, f.timeMs === completed2.timeUs / 1000 ? 'cp2' : f.timeMs])).toEqual([
      ['hold', 'cp2'], ['release', 70],
    ]);
    const notified = ofType(r, 'checkpoint.taskNotified')
      .filter((e) => e.attrs['task'] === 'v1#1@0').map((e) => e.attrs['checkpointId']);
    // The confirmations of 3 wait behind the held one of 2 on the JobMaster's link to the
    // TaskExecutor; once released, 2's arrives first, then 3's, in order.
    expect(notified.slice(0, 3)).toEqual([1, 2, 3]);
    const at2 = ofType(r, 'checkpoint.taskNotified')
      .find((e) => e.attrs['task'] === 'v1#1@0' && e.attrs['checkpointId'] === 2) as TraceEvent;
    expect(at2.timeUs).toBeGreaterThanOrEqual(70_000);
  });

  test('holding JobMaster -> TaskExecutor traffic past the heartbeat timeout gets the TaskManager declared lost', () => {
    // Default heartbeats: every 5 ms, timeout 25 ms. The held trigger holds the requestHeartbeat
    // calls behind it on the link.
    const r = simulate(spec([
      { type: 'message', action: 'hold', method: 'triggerCheckpoint', checkpoint: 2, to: 'v0#0', durationMs: 60 },
    ]));
    expect(ofType(r, 'jm.taskManagerLost').length).toBeGreaterThan(0);
    expect(r.restores).toBeGreaterThan(0);
    expect(r.jobStatus).toBe('FINISHED');
    expect(flightIds(r)).toEqual([...Array(300).keys()]);
  });
});

describe('protocol points of issue 13', () => {
  const pauseAt = (at: NonNullable<Extract<Fault, { type: 'pause' }>['when']>): Fault =>
    ({ type: 'pause', host: 'taskmanager-1', durationMs: 1, when: at });
  const pauseTime = (r: RunResult): number | undefined => r.faults.find((f) => f.action === 'pause')?.timeMs;

  test('restore point fires on the nth restore, counting only restores from a checkpoint', () => {
    const failures: Fault[] = [
      // Before any checkpoint completed: a restart from nothing, no restore.
      { type: 'global-failure', when: { atMs: 5 } },
      { type: 'global-failure', when: { atMs: 60 } },
      { type: 'global-failure', when: { atMs: 110 } },
    ];
    const r = simulate(spec([...failures, pauseAt({ at: { kind: 'restore', nth: 2 } })]));
    const restored = ofType(r, 'checkpoint.restored');
    expect(restored.map((e) => (e.attrs['checkpointId'] as number) > 0)).toEqual([false, true, true]);
    expect(pauseTime(r)).toBe((restored[2] as TraceEvent).timeUs / 1000);
    const from = (restored[1] as TraceEvent).attrs['checkpointId'] as number;
    const r2 = simulate(spec([...failures, pauseAt({ at: { kind: 'restore', checkpoint: from } })]));
    expect(pauseTime(r2)).toBe((restored[1] as TraceEvent).timeUs / 1000);
    const r3 = simulate(spec([...failures, pauseAt({ at: { kind: 'restore', nth: 3 } })]));
    expect(r3.unfiredFaults).toEqual([3]);
  });

  test('job point fires on RUNNING nth 2', () => {
    const r = simulate(spec([
      { type: 'global-failure', when: { atMs: 50 } },
      pauseAt({ at: { kind: 'job', status: 'RUNNING', nth: 2 } }),
    ]));
    const running = ofType(r, 'job.status').filter((e) => e.attrs['status'] === 'RUNNING');
    expect(running).toHaveLength(2);
    expect(pauseTime(r)).toBe((running[1] as TraceEvent).timeUs / 1000);
    expect(simulate(spec([pauseAt({ at: { kind: 'job', status: 'RESTARTING' } })])).unfiredFaults).toEqual([0]);
    // The job enters RUNNING while the cluster boots: RUNNING (nth 1) fires at time 0.
    expect(pauseTime(simulate(spec([pauseAt({ at: { kind: 'job', status: 'RUNNING' } })])))).toBe(0);
  });

  test('ack-received fires when the coordinator handled the ack, notified when the task got the notification', () => {
    const r = simulate(spec([
      pauseAt({ at: { kind: 'task', checkpoint: 2, phase: 'ack-received', task: 'v1#1' } }),
      { type: 'global-failure', when: { at: { kind: 'task', checkpoint: 3, phase: 'notified', task: 'v0#0' } } },
    ]));
    const acked = r.trace.find((e) => e.type === 'checkpoint.acknowledged' && e.attrs['checkpointId'] === 2
      && e.attrs['task'] === 'v1#1@0') as TraceEvent;
    expect(pauseTime(r)).toBe(acked.timeUs / 1000);
    const notified = r.trace.find((e) => e.type === 'checkpoint.taskNotified' && e.attrs['checkpointId'] === 3
      && e.attrs['task'] === 'v0#0@0') as TraceEvent;
    expect(r.faults.find((f) => f.action === 'global-failure')?.timeMs).toBe(notified.timeUs / 1000);
  });
});
