/**
 * Channel-event faults end to end through simulate: a barrier or cancellation marker held on one
 * input channel (what the task then does, read from the trace), the fault's log, mark and cause
 * link, unfired faults, and the input checks that name a channel the job does not have.
 */
import { describe, expect, test } from 'vitest';
import { SimInputError } from '../SimInputError.ts';
import type { TraceEvent } from '../Trace.ts';
import { inputChannelsOf } from './inputChannels.ts';
import { RUN_SPEC_VERSION, type Fault, type RunSpec } from './RunSpec.ts';
import type { RunResult } from './RunResult.ts';
import { simulate } from './simulate.ts';
import { validateRunSpec } from './validateRunSpec.ts';

/**
 * A generated job of four vertices at parallelism 2, every edge all-to-all: `v0` the source
 * (two splits of 150 records, paced to span about a second), `v1` a keyed count, `v2` another
 * keyed count, `v3` a map after a rebalance chained with the sink. At-least-once, a checkpoint
 * every 50 ms, heal time 600 ms.
 */
function spec(faults: Fault[], checkpoint: Partial<RunSpec['checkpoint']> = {}, mutations: string[] = []): RunSpec {
  return {
    version: RUN_SPEC_VERSION,
    seed: 'channel-events',
    job: { kind: 'generated', spec: {
      records: [Array.from({ length: 150 }, (_x, i) => i), Array.from({ length: 150 }, (_x, i) => i * 7)],
      stages: [
        { kind: 'keyed', key: 0, fn: 0, parallelism: 2 },
        { kind: 'keyed', key: 1, fn: 0, parallelism: 2 },
        { kind: 'map', fn: 0, parallelism: 2, rebalance: true },
      ],
      sourceParallelism: 2, sinkParallelism: 2, maxParallelism: 128,
    } },
    parallelism: {},
    taskManagers: 1,
    network: { recordsPerBuffer: 3 },
    costsMs: { 'gen-source': 6.667, 'gen-0-keyed-rem4-count': 0.333, 'gen-1-keyed-rem16-count': 0.333, 'gen-2-map-add1': 0.333, 'gen-sink': 0.333 },
    checkpoint: { mode: 'at-least-once', intervalMs: 50, tolerableFailures: 10, ...checkpoint },
    restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
    faults,
    healTimeMs: 600,
    budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 },
    overrides: [],
    mutations,
  };
}

const ofType = (r: RunResult, type: string): TraceEvent[] => r.trace.filter((e) => e.type === type);
/** The first event of `type` about checkpoint `id` on an attempt of subtask `task` (`v1#0`). */
const of = (r: RunResult, type: string, task: string, id: number): TraceEvent | undefined =>
  ofType(r, type).find((e) => e.attrs['checkpointId'] === id && String(e.attrs['task']).startsWith(`${task}@`));

/** True if following `e`'s cause links reaches event `seq`. */
function causedBy(r: RunResult, e: TraceEvent | undefined, seq: number): boolean {
  const bySeq = new Map(r.trace.map((x) => [x.seq, x]));
  for (let x = e; x !== undefined; x = x.cause === undefined ? undefined : bySeq.get(x.cause)) {
    if (x.seq === seq) return true;
  }
  return false;
}

/** How many times each task attempt declined each checkpoint on its barrier handler's word. */
function declines(r: RunResult): Map<string, number> {
  const n = new Map<string, number>();
  for (const e of ofType(r, 'checkpoint.declinedByTask')) {
    const key = `${String(e.attrs['task'])} ${String(e.attrs['checkpointId'])}`;
    n.set(key, (n.get(key) ?? 0) + 1);
  }
  return n;
}

describe('channel-event faults', () => {
  test('a barrier held on one channel: that task aligns when it arrives, its sibling on time; '
    + 'the fault is logged and marked, and it caused the late alignment', () => {
    const r = simulate(spec([{ type: 'channel-event', event: 'barrier', checkpoint: 2, to: 'v1#0', from: 'v0#1', delayMs: 30 }]));
    expect(r.jobStatus).toBe('FINISHED');
    expect(r.unfiredFaults).toEqual([]);
    expect(r.faults.map((f) => [f.fault, f.type, f.action])).toEqual([[0, 'channel-event', 'delay']]);
    expect(r.marks['channel-event-delayed']).toBe(1);
    const [fault] = ofType(r, 'fault');
    const sentUs = fault?.timeUs ?? 0;
    expect(fault?.attrs).toEqual({
      index: 0, type: 'channel-event', action: 'delay', event: 'barrier', checkpoint: 2,
      from: 'v0#1@0', to: 'v1#0@0', releaseUs: sentUs + 30_000,
    });
    // At least once: v1#0 triggers checkpoint 2 when its last barrier arrives, 30 ms late.
    const late = of(r, 'checkpoint.aligned', 'v1#0', 2);
    expect(late?.timeUs).toBeGreaterThanOrEqual(sentUs + 30_000);
    const onTime = of(r, 'checkpoint.aligned', 'v1#1', 2);
    expect(onTime?.timeUs).toBeLessThan(sentUs + 5_000);
    expect(causedBy(r, late, fault?.seq ?? -1)).toBe(true);
    expect(causedBy(r, onTime, fault?.seq ?? -1)).toBe(false);
    // The checkpoint waited for v1#0, and completed.
    expect(r.checkpoints.completed.some((c) => c.checkpointId === 2)).toBe(true);
  });

  // SubtaskCheckpointCoordinatorImpl.checkpointState: a checkpoint the task was told is aborted
  // before its barrier came is skipped, and a CancelCheckpointMarker goes downstream in its
  // place; CheckpointBarrierTracker then aborts (declines) it there, once per task.
  test('a barrier held past the checkpoint timeout: the checkpoints behind it expire, the held task '
    + 'skips them as aborted and sends cancellation markers, which each task downstream declines once', () => {
    const held: Fault = { type: 'channel-event', event: 'barrier', checkpoint: 2, to: 'v1#0', from: 'v0#1', delayMs: 500 };
    const r = simulate(spec([held], { timeoutMs: 100 }));
    expect(r.jobStatus).toBe('FINISHED');
    expect(r.checkpoints.aborted['CHECKPOINT_EXPIRED']).toBeGreaterThanOrEqual(3);
    const skipped = ofType(r, 'checkpoint.skippedAborted').map((e) => `${String(e.attrs['task'])} ${String(e.attrs['checkpointId'])}`);
    expect(skipped.length).toBeGreaterThanOrEqual(2);
    expect(skipped.every((s) => s.startsWith('v1#0@0 '))).toBe(true);
    const counts = declines(r);
    expect([...counts.keys()].some((k) => k.startsWith('v3#'))).toBe(true);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    // FLINK-5285 planted: the markers of two checkpoints cross on v3's two channels, and a late
    // marker for a checkpoint already aborted re-creates it and declines it again.
    const planted = declines(simulate(spec([held], { timeoutMs: 100 }, ['tracker-recreates-aborted'])));
    expect([...planted.entries()].filter(([, n]) => n > 1).map(([k]) => k.split('@')[0])).toContain('v3#0');
  });

  test('a cancellation marker held on one channel arrives after the markers of the next checkpoint '
    + 'on the other: the tracker ignores it, and with FLINK-5285 planted declines its checkpoint again', () => {
    const faults: Fault[] = [
      { type: 'channel-event', event: 'barrier', checkpoint: 2, to: 'v1#0', from: 'v0#1', delayMs: 500 },
      { type: 'channel-event', event: 'cancellation', to: 'v3#0', from: 'v2#1', delayMs: 20 },
    ];
    for (const planted of [false, true]) {
      const r = simulate(spec(faults, { timeoutMs: 100 }, planted ? ['tracker-recreates-aborted'] : []));
      expect(r.unfiredFaults).toEqual([]);
      const [, marker] = ofType(r, 'fault');
      expect(marker?.attrs).toMatchObject({ event: 'cancellation', from: 'v2#1@0', to: 'v3#0@0' });
      const id = marker?.attrs['checkpoint'] as number;
      const releaseUs = marker?.attrs['releaseUs'] as number;
      const declined = ofType(r, 'checkpoint.declinedByTask')
        .filter((e) => e.attrs['checkpointId'] === id && e.attrs['task'] === 'v3#0@0');
      // The first marker of the checkpoint, on v3#0's other channel, aborts it.
      expect(declined[0]?.timeUs).toBeLessThan(releaseUs);
      if (!planted) {
        expect(declined).toHaveLength(1);
        continue;
      }
      // The held one comes after the next checkpoint's marker removed the aborted entry.
      expect(declined).toHaveLength(2);
      expect(declined[1]?.timeUs).toBeGreaterThanOrEqual(releaseUs);
      expect(causedBy(r, declined[1], marker?.seq ?? -1)).toBe(true);
    }
  });

  test('a fault whose event never comes is unfired; one armed after the heal time too', () => {
    const r = simulate(spec([
      { type: 'channel-event', event: 'barrier', checkpoint: 99, to: 'v1#0', delayMs: 10 },
      { type: 'channel-event', event: 'cancellation', to: 'v2#1', delayMs: 10 },
      { type: 'channel-event', event: 'barrier', to: 'v3#1', delayMs: 10, when: { at: { kind: 'jobmaster', checkpoint: 15, phase: 'completed' } } },
    ]));
    expect(r.jobStatus).toBe('FINISHED');
    expect(r.unfiredFaults).toEqual([0, 1, 2]);
    expect(r.faults.filter((f) => f.action === 'delay')).toEqual([]);
    expect(r.marks['channel-event-delayed']).toBeUndefined();
  });

  test.each<[string, Fault, string]>([
    ['a source task', { type: 'channel-event', event: 'barrier', to: 'v0#1', delayMs: 5 },
      'faults[0].to: v0#1 is a source task, it has no input channels (tasks with input channels: v1#0, v1#1, v2#0, v2#1, v3#0, v3#1)'],
    ['a task the job lacks', { type: 'channel-event', event: 'barrier', to: 'v1#2', delayMs: 5 },
      'faults[0].to: no task v1#2 in this job (tasks with input channels: v1#0, v1#1, v2#0, v2#1, v3#0, v3#1)'],
    ['a channel the task lacks', { type: 'channel-event', event: 'cancellation', to: 'v2#0', from: 'v0#1', delayMs: 5 },
      'faults[0].from: no channel from v0#1 into v2#0 (v2#0 reads from v1#0, v1#1)'],
  ])('%s is bad input, one line', (_what, fault, message) => {
    expect(() => simulate(spec([fault]))).toThrow(new SimInputError(message));
  });

  test.each<[string, unknown, string]>([
    ['no delay', { type: 'channel-event', event: 'barrier', to: 'v1#0', delayMs: 0 }, 'faults[0].delayMs: must be a number of ms above 0, got 0'],
    ['a missing to', { type: 'channel-event', event: 'barrier', delayMs: 5 }, 'faults[0].to: '],
    ['a malformed task', { type: 'channel-event', event: 'barrier', to: 'sink', delayMs: 5 },
      'faults[0].to: must name a task as <vertex>#<subtask> (e.g. v1#0), got "sink"'],
    ['an unknown event', { type: 'channel-event', event: 'watermark', to: 'v1#0', delayMs: 5 }, 'faults[0].event: '],
    ['a job run the spec cannot have', { type: 'channel-event', event: 'barrier', to: 'v1#0', delayMs: 5, jobRun: 2 },
      'faults[0].jobRun: job run 2 cannot happen'],
  ])('%s is refused by validation', (_what, fault, message) => {
    expect(() => validateRunSpec({ ...spec([]), faults: [fault] })).toThrow(message);
  });
});

describe('inputChannelsOf', () => {
  const graph = {
    jobName: 'j',
    vertices: [
      { id: 'v0', name: 'a', parallelism: 2, maxParallelism: 8, maxParallelismConfigured: false, operators: [], isSource: true },
      { id: 'v1', name: 'b', parallelism: 2, maxParallelism: 8, maxParallelismConfigured: false, operators: [], isSource: false },
      { id: 'v2', name: 'c', parallelism: 3, maxParallelism: 8, maxParallelismConfigured: false, operators: [], isSource: false },
    ],
    edges: [
      { index: 0, source: 'v0', target: 'v1', partitioner: 'forward' as const },
      { index: 1, source: 'v1', target: 'v2', partitioner: 'hash' as const },
      { index: 2, source: 'v0', target: 'v2', partitioner: 'rebalance' as const },
    ],
  };

  test('a forward edge is one channel from the same subtask; any other edge one from every producer subtask', () => {
    expect(inputChannelsOf(graph, 'v1#1')).toEqual(['v0#1']);
    expect(inputChannelsOf(graph, 'v2#2')).toEqual(['v1#0', 'v1#1', 'v0#0', 'v0#1']);
    expect(inputChannelsOf(graph, 'v0#0')).toEqual([]);
    expect(inputChannelsOf(graph, 'nonsense')).toEqual([]);
  });
});
