import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { expandRunSpec } from '../../sim/run/expandRunSpec.ts';
import { runGraph, simulate } from '../../sim/run/simulate.ts';
import { createJobGraph } from '../../engine/index.ts';
import type { Fault } from '../../sim/run/RunSpec.ts';
import { validateRunSpec } from '../../sim/run/validateRunSpec.ts';
import { inputChannelsOf } from '../../sim/run/inputChannels.ts';
import { faultOfFamily } from './faultArbitrary.ts';
import { runSpecArbitrary, withStallsScaled } from './runSpecArbitrary.ts';
import { sourcePacing, withSourcePacing } from './sourcePacing.ts';

describe('runSpecArbitrary', () => {
  // Found by a fresh-eyes pass: `explore --job generated --max-parallelism 16` stopped with exit 2,
  // because a drawn parallelism above the generated job's max parallelism (4 or 8) or above the
  // generated-job limit (16) made a spec the job builder refuses.
  test.each([5, 16, 64])('generated specs at --max-parallelism %i are jobs the builder accepts', (maxParallelism) => {
    const specs = fc.sample(runSpecArbitrary({ job: 'generated', mode: 'aligned', maxParallelism, maxRecords: 50 }),
      { seed: 1, numRuns: 60 });
    for (const spec of specs) {
      expect(() => createJobGraph(runGraph(expandRunSpec(spec)))).not.toThrow();
      if (typeof spec.parallelism === 'number') expect(spec.parallelism).toBeLessThanOrEqual(16);
    }
    expect(specs.some((s) => typeof s.parallelism === 'number' && s.parallelism > 4)).toBe(true);
  });

  // Found by a fresh-eyes pass: one drawn parallelism overrode every generated shape's own, so
  // stages at different parallelism (rescaling edges) were never explored.
  test('some generated specs run every operator at its shape\'s parallelism, which differ between stages', () => {
    const specs = fc.sample(runSpecArbitrary({ job: 'generated', mode: 'aligned', maxRecords: 50 }), { seed: 4, numRuns: 100 });
    const own = specs.filter((s) => typeof s.parallelism !== 'number');
    expect(own.length).toBeGreaterThan(20);
    const mixed = own.filter((s) => new Set(runGraph(expandRunSpec(s)).nodes.map((n) => n.parallelism)).size > 1);
    expect(mixed.length).toBeGreaterThan(5);
    for (const s of own) {
      // Sized for the largest parallelism of any job run: the shape's, or a drawn rescale's.
      const rescaled = (s.actions ?? []).flatMap((a) => (a.type === 'rescale' && typeof a.parallelism === 'number' ? [a.parallelism] : []));
      const largest = Math.max(...runGraph(expandRunSpec(s)).nodes.map((n) => n.parallelism), ...rescaled);
      expect(s.taskManagers).toBe(Math.ceil(largest / 2));
    }
  });
});

describe('protocol points the arbitrary draws', () => {
  // Found by a fresh-eyes pass: points such as `aligned on v0#0` (a source task, which has no
  // input channels) were drawn, and could only ever show as faults that never fired.
  test.each(['flights', 'wordcount', 'generated'] as const)('%s: barrier phases aim only at tasks with inputs', (job) => {
    const specs = fc.sample(runSpecArbitrary({ job, mode: 'aligned', maxRecords: 50 }), { seed: 3, numRuns: 300 });
    let barrierPoints = 0;
    for (const spec of specs) {
      const vertices = createJobGraph(runGraph(expandRunSpec(spec))).vertices;
      for (const f of spec.faults) {
        if (!('when' in f) || !('at' in f.when) || f.when.at.kind !== 'task') continue;
        const point = f.when.at;
        if (point.phase !== 'first-barrier' && point.phase !== 'aligned') continue;
        barrierPoints++;
        const vertex = vertices.find((v) => point.task?.startsWith(`${v.id}#`) === true);
        expect(vertex?.isSource, `${point.phase} on ${point.task ?? ''}`).toBe(false);
      }
      // Every drawn spec is one simulate accepts.
      expect(() => simulate({ ...spec, budgets: { maxEvents: 1, maxTimeMs: 1 } })).not.toThrow();
    }
    expect(barrierPoints).toBeGreaterThan(0);
  });
});

describe('slow-task faults (back pressure)', () => {
  test.each(['flights', 'wordcount', 'generated'] as const)('%s: drawn slow tasks name operators the job has', (job) => {
    const specs = fc.sample(runSpecArbitrary({ job, mode: 'aligned', maxRecords: 200 }), { seed: 2, numRuns: 150 });
    const slow = specs.flatMap((spec) => spec.faults.flatMap((f) => (f.type === 'slow-task' ? [[spec, f] as const] : [])));
    expect(slow.length).toBeGreaterThan(5);
    for (const [spec, f] of slow) {
      const uids = runGraph(expandRunSpec(spec)).nodes.map((n) => n.uid);
      expect(uids).toContain(f.operator);
    }
    // Slow tasks land on more than one operator of the job.
    expect(new Set(slow.map(([, f]) => f.operator)).size).toBeGreaterThan(1);
  });
});

describe('sourcePacing', () => {
  test('a record costs at most half an interval and a buffer of records at most half an interval', () => {
    fc.assert(fc.property(
      fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 1, max: 64 }), fc.constantFrom(10, 50, 100, 200),
      (records, parallelism, intervalMs) => {
        const { sourceCostMs, operatorCostMs, recordsPerBuffer } = sourcePacing(records, parallelism, intervalMs);
        expect(sourceCostMs).toBeGreaterThanOrEqual(0.001);
        expect(operatorCostMs).toBeGreaterThanOrEqual(0.001);
        expect(operatorCostMs).toBeLessThanOrEqual(Math.max(0.001, sourceCostMs / 20 + 0.0005));
        expect(sourceCostMs).toBeLessThanOrEqual(intervalMs / 2);
        expect(Number.isInteger(Math.round(sourceCostMs * 1000))).toBe(true);
        expect(Number.isInteger(recordsPerBuffer)).toBe(true);
        expect(recordsPerBuffer).toBeGreaterThanOrEqual(1);
        expect(recordsPerBuffer).toBeLessThanOrEqual(32);
        if (recordsPerBuffer > 1) expect(recordsPerBuffer * sourceCostMs).toBeLessThanOrEqual(intervalMs / 2);
      },
    ), { seed: 1 });
  });

  test('an input that needs no capping spans about 1000 ms of virtual time', () => {
    // 4000 records over 2 subtasks at 0.5 ms each: 1000 ms; a 100 ms interval: 32 per buffer cap.
    expect(sourcePacing(4000, 2, 100)).toEqual({ sourceCostMs: 0.5, operatorCostMs: 0.025, recordsPerBuffer: 32 });
    // 12 records over 2 subtasks would need 166.7 ms each: capped at half the 100 ms interval.
    expect(sourcePacing(12, 2, 100)).toEqual({ sourceCostMs: 50, operatorCostMs: 2.5, recordsPerBuffer: 1 });
    // 1000 records over 4 subtasks: 4 ms each, so 6 per buffer keeps a batch under 25 ms.
    expect(sourcePacing(1000, 4, 50)).toEqual({ sourceCostMs: 4, operatorCostMs: 0.2, recordsPerBuffer: 6 });
  });

  test('withSourcePacing re-paces a spec after its interval changes, keeping other settings', () => {
    const [spec] = fc.sample(runSpecArbitrary({ job: 'flights', mode: 'aligned', maxRecords: 500 }), { seed: 3, numRuns: 1 });
    if (spec === undefined) throw new Error('no sample');
    const changed = withSourcePacing({ ...spec, parallelism: 2, checkpoint: { ...spec.checkpoint, intervalMs: 10 } });
    const records = spec.job.kind === 'flights' ? spec.job.selection.to - spec.job.selection.from : 0;
    const pacing = sourcePacing(records, 2, 10);
    expect(changed.costsMs?.['flights-source']).toBe(pacing.sourceCostMs);
    const others = Object.entries(changed.costsMs ?? {}).filter(([uid]) => uid !== 'flights-source');
    expect(others.length).toBeGreaterThan(0);
    for (const [, ms] of others) expect(ms).toBe(pacing.operatorCostMs);
    expect(changed.network?.recordsPerBuffer).toBe(pacing.recordsPerBuffer === 32 ? undefined : pacing.recordsPerBuffer);
    expect(changed.network?.bufferTimeoutMs).toBe(spec.network?.bufferTimeoutMs);
    expect(changed.faults).toEqual(spec.faults);
  });

  // Before pacing, a generated run read its whole input (about 12 records, one source batch)
  // before its first checkpoint: 1.1 completed checkpoints per run, and at-least-once runs never
  // showed a duplicate after a restore.
  test('drawn generated runs live through several checkpoints', () => {
    const specs = fc.sample(runSpecArbitrary({ job: 'generated', mode: 'aligned', maxFaults: 0 }), { seed: 5, numRuns: 20 });
    const completed = specs.map((s) => simulate(s).checkpoints.completed.length).sort((a, b) => a - b);
    expect(completed[10]).toBeGreaterThanOrEqual(3);
  });
});

describe('message faults in generated runs', () => {
  const specs = fc.sample(runSpecArbitrary({ job: 'flights', mode: 'aligned', maxRecords: 200 }), { seed: 7, numRuns: 300 });
  const withMessages = specs.filter((s) => s.faults.some((f) => f.type === 'message'));

  test('are valid for their job and aim mostly at the checkpoint protocol', () => {
    const messages = withMessages.flatMap((s) => s.faults.filter((f) => f.type === 'message'));
    expect(messages.length).toBeGreaterThan(30);
    const protocol = messages.filter((f) => f.type === 'message' && /Checkpoint|OperatorEvent/.test(f.method));
    expect(protocol.length / messages.length).toBeGreaterThan(0.6);
    for (const spec of withMessages) {
      expect(() => validateRunSpec(spec)).not.toThrow();
      const tasks = createJobGraph(runGraph(expandRunSpec(spec))).vertices
        .flatMap((v) => Array.from({ length: v.parallelism }, (_x, i) => `${v.id}#${i}`));
      for (const f of spec.faults) {
        if (f.type !== 'message') continue;
        for (const end of [f.from, f.to]) if (end !== undefined) expect(tasks).toContain(end);
      }
    }
    expect(messages.some((f) => f.type === 'message' && f.action === 'hold')).toBe(true);
    expect(messages.some((f) => f.type === 'message' && f.checkpoint !== undefined && (f.to ?? f.from) !== undefined)).toBe(true);
  });

  test('shrink toward lose, no filters, nth 1, the shortest delay and no trigger', () => {
    const arb = faultOfFamily('message', { taskManagers: 2, healTimeMs: 600, tasks: ['v0#0', 'v1#1'], operators: ['op0'] });
    const shrunk = (fails: (f: Fault) => boolean): Fault => {
      const out = fc.check(fc.property(arb, (f) => !fails(f)), { seed: 3, numRuns: 500 });
      return out.counterexample?.[0] as Fault;
    };
    expect(shrunk(() => true)).toEqual({ type: 'message', action: 'lose', method: 'triggerCheckpoint' });
    expect(shrunk((f) => f.type === 'message' && f.action === 'delay'))
      .toEqual({ type: 'message', action: 'delay', method: 'triggerCheckpoint', delayMs: 1 });
    expect(shrunk((f) => f.type === 'message' && f.to !== undefined))
      .toEqual({ type: 'message', action: 'lose', method: 'triggerCheckpoint', to: 'v0#0' });
    expect(shrunk((f) => f.type === 'message' && (f.nth ?? 1) > 2 && f.when !== undefined))
      .toEqual({ type: 'message', action: 'lose', method: 'triggerCheckpoint', nth: 3, when: expect.anything() });
  });
});

describe('channel-event faults in generated runs', () => {
  const specs = fc.sample(runSpecArbitrary({ job: 'generated', mode: 'at-least-once' }), { seed: 11, numRuns: 400 });
  const faults = specs.flatMap((spec) => spec.faults.filter((f) => f.type === 'channel-event').map((f) => ({ spec, f })));

  test('name channels the job has, mostly into tasks with two or more input channels', () => {
    expect(faults.length).toBeGreaterThan(40);
    let fanIn = 0;
    for (const { spec, f } of faults) {
      if (f.type !== 'channel-event') continue;
      expect(() => validateRunSpec(spec)).not.toThrow();
      const graph = createJobGraph(runGraph(expandRunSpec(spec)));
      const into = inputChannelsOf(graph, f.to);
      expect(into.length).toBeGreaterThan(0);
      if (f.from !== undefined) expect(into).toContain(f.from);
      if (into.length >= 2) fanIn++;
    }
    expect(fanIn / faults.length).toBeGreaterThan(0.6);
    for (const event of ['barrier', 'cancellation']) expect(faults.some(({ f }) => f.type === 'channel-event' && f.event === event)).toBe(true);
    expect(faults.some(({ f }) => f.type === 'channel-event' && f.delayMs > 100)).toBe(true);
  });

  test('a long barrier hold lasts two to five checkpoint timeouts and an interval, and the heal time moves past it', () => {
    const long = faults.filter(({ f }) => f.type === 'channel-event' && f.event === 'barrier' && f.delayMs > 50);
    expect(long.length).toBeGreaterThan(20);
    for (const { spec, f } of long) {
      if (f.type !== 'channel-event') continue;
      const cp = spec.checkpoint;
      expect([2, 3, 4, 5].map((k) => k * (cp.timeoutMs ?? 1000) + cp.intervalMs)).toContain(f.delayMs);
      expect(spec.healTimeMs).toBeGreaterThanOrEqual(((f.checkpoint ?? 1) + 1) * cp.intervalMs + f.delayMs);
    }
  });

  // Each expiry counts against the tolerable failures (CheckpointFailureManager): with fewer, the
  // job failed over before the hold ended, and its task never sent the markers it holds for.
  test('a run with a long hold tolerates the checkpoints that expire behind it', () => {
    const held = specs.filter((spec) => spec.faults.some((f) => f.type === 'channel-event' && f.event === 'barrier' && f.delayMs > 50));
    expect(held.length).toBeGreaterThan(20);
    for (const spec of held) {
      const cp = spec.checkpoint;
      for (const f of spec.faults) {
        if (f.type !== 'channel-event' || f.event !== 'barrier') continue;
        const expiries = (Math.ceil(f.delayMs / (cp.timeoutMs ?? 1000)) + 1) * (cp.maxConcurrent ?? 1);
        expect(cp.tolerableFailures).toBeGreaterThanOrEqual(expiries);
      }
    }
    // Without a long hold the drawn value stays.
    const others = specs.filter((spec) => !held.includes(spec));
    expect(new Set(others.map((s) => s.checkpoint.tolerableFailures))).toEqual(new Set([0, 1, 10]));
  });

  test('a pair race holds the same barrier into two subtasks of a vertex whose markers meet right below, a timeout apart', () => {
    const races = specs.flatMap((spec) => {
      const graph = createJobGraph(runGraph(expandRunSpec(spec)));
      const pair = graph.vertices.find((v) => !v.isSource && v.parallelism >= 2
        && graph.edges.some((e) => e.source === v.id && e.partitioner !== 'forward'));
      const holds = spec.faults.filter((f) => f.type === 'channel-event' && f.event === 'barrier'
        && pair !== undefined && f.to.startsWith(`${pair.id}#`) && f.delayMs >= 3 * (spec.checkpoint.timeoutMs ?? 1000));
      return holds.length === 2 ? [{ spec, holds }] : [];
    });
    expect(races.length).toBeGreaterThan(5);
    for (const { spec, holds } of races) {
      const [a, b] = holds;
      if (a?.type !== 'channel-event' || b?.type !== 'channel-event') continue;
      expect(a.to).not.toBe(b.to);
      expect(a.checkpoint).toBe(b.checkpoint);
      expect(b.delayMs - a.delayMs).toBe(spec.checkpoint.timeoutMs ?? 1000);
    }
  });

  test('a marker race holds a barrier of the first task with inputs and a marker where the markers meet', () => {
    const races = specs.filter((spec) => {
      const graph = createJobGraph(runGraph(expandRunSpec(spec)));
      const first = graph.vertices.find((v) => !v.isSource)?.id;
      const fanIn = graph.vertices.filter((v) => inputChannelsOf(graph, `${v.id}#0`).length >= 2).map((v) => v.id);
      const held = spec.faults.some((f) => f.type === 'channel-event' && f.event === 'barrier' && f.to.startsWith(`${first}#`)
        && f.delayMs >= 3 * (spec.checkpoint.timeoutMs ?? 1000));
      const crossed = spec.faults.some((f) => f.type === 'channel-event' && f.event === 'cancellation' && f.delayMs >= 5
        && f.delayMs <= 50 && f.to.startsWith(`${fanIn[fanIn.length - 1]}#`));
      return held && crossed;
    });
    expect(races.length).toBeGreaterThan(5);
  });

  test('a job with no task with inputs draws none (the fault is dropped)', () => {
    const chains = specs.filter((s) => createJobGraph(runGraph(expandRunSpec(s))).vertices.every((v) => v.isSource));
    expect(chains.length).toBeGreaterThan(0);
    for (const s of chains) expect(s.faults.filter((f) => f.type === 'channel-event')).toEqual([]);
  });

  test('shrink toward a barrier, no filters, nth 1, 1 ms and no trigger', () => {
    const arb = faultOfFamily('channel-event', { taskManagers: 2, healTimeMs: 600, tasks: ['v0#0', 'v1#1'], operators: ['op0'] });
    const out = fc.check(fc.property(arb, () => false), { seed: 3, numRuns: 100 });
    expect(out.counterexample?.[0]).toEqual({ type: 'channel-event', event: 'barrier', to: 'v0#0', delayMs: 1 });
  });
});

describe('drawn checkpoint timeouts', () => {
  test('wordcount and job modules keep the default', () => {
    const specs = fc.sample(runSpecArbitrary({ job: 'wordcount', mode: 'aligned' }), { seed: 8, numRuns: 50 });
    expect(specs.every((s) => s.checkpoint.timeoutMs === undefined)).toBe(true);
  });

  test('are the default, 4 or 2 intervals (at most 1 s), each drawn often', () => {
    const specs = fc.sample(runSpecArbitrary({ job: 'generated', mode: 'aligned' }), { seed: 8, numRuns: 300 });
    const kinds = new Map<string, number>();
    for (const s of specs) {
      const t = s.checkpoint.timeoutMs;
      const kind = t === undefined ? 'default' : t === Math.min(1000, 4 * s.checkpoint.intervalMs) ? '4' : t === 2 * s.checkpoint.intervalMs ? '2' : `other ${t}`;
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    expect([...kinds.keys()].sort()).toEqual(['2', '4', 'default']);
    for (const n of kinds.values()) expect(n).toBeGreaterThan(60);
  });

  // Why two intervals raise no false alarm: without faults, no checkpoint of a paced run takes
  // that long, so after the heal time checkpoints complete again.
  test.each(['generated', 'flights'] as const)('the shortest (2 intervals) expires no checkpoint of a fault-free %s run', (job) => {
    const specs = fc.sample(runSpecArbitrary({ job, mode: 'aligned', maxFaults: 0, maxRecords: 400, savepoints: false, rescales: false }),
      { seed: 12, numRuns: 10 });
    for (const spec of specs) {
      const r = simulate({ ...spec, checkpoint: { ...spec.checkpoint, timeoutMs: 2 * spec.checkpoint.intervalMs } });
      expect(r.checkpoints.completed.length).toBeGreaterThan(0);
      expect(r.checkpoints.aborted['CHECKPOINT_EXPIRED'] ?? 0).toBe(0);
    }
  });
});

describe('coordinator stalls in generated runs', () => {
  const specs = fc.sample(runSpecArbitrary({ job: 'generated', mode: 'aligned', maxRecords: 200 }), { seed: 8, numRuns: 300 });
  const stalls = specs.flatMap((spec) => spec.faults.flatMap((f) => (f.type === 'coordinator-stall' ? [[spec, f] as const] : [])));

  test('name a source of the job or none, aim mostly at a checkpoint\'s coordinator step, and are valid', () => {
    expect(stalls.length).toBeGreaterThan(20);
    for (const [spec, f] of stalls) {
      expect(() => validateRunSpec(spec)).not.toThrow();
      if (f.operator !== undefined) {
        expect(runGraph(expandRunSpec(spec)).nodes.filter((n) => n.spec.kind === 'source').map((n) => n.uid)).toContain(f.operator);
      }
    }
    expect(stalls.some(([, f]) => f.operator === undefined) && stalls.some(([, f]) => f.operator !== undefined)).toBe(true);
    const atCheckpoint = stalls.filter(([, f]) => 'at' in f.when && f.when.at.kind === 'jobmaster'
      && (f.when.at.phase === 'triggered' || f.when.at.phase === 'coordinators-snapshotted'));
    expect(atCheckpoint.length / stalls.length).toBeGreaterThan(0.5);
  });

  test('last up to half a checkpoint timeout or one to four timeouts of the spec\'s own timeout (1 s by default)', () => {
    // In thousandths of the spec's timeout (drawn: 1 s, or 4 or 2 intervals).
    const durations = stalls.map(([spec, f]) => Math.round((f.durationMs * 1000) / (spec.checkpoint.timeoutMs ?? 1000)));
    expect(durations.every((d) => (d >= 1 && d <= 500) || (d >= 1000 && d <= 4000))).toBe(true);
    expect(durations.some((d) => d > 1000)).toBe(true);
    // Scaled where the spec is assembled: the same draws under a 200 ms timeout last a fifth.
    const [spec] = stalls[0] ?? [];
    if (spec === undefined) throw new Error('no stall drawn');
    const raw = { ...spec, checkpoint: { ...spec.checkpoint, timeoutMs: 200 } };
    const scaled = withStallsScaled(raw);
    expect(scaled.faults.map((f) => (f.type === 'coordinator-stall' ? f.durationMs : 0)))
      .toEqual(raw.faults.map((f) => (f.type === 'coordinator-stall' ? Math.round(f.durationMs * 200) / 1000 : 0)));
  });
});

describe('crashes at completion in generated runs', () => {
  const specs = fc.sample(runSpecArbitrary({ job: 'generated', mode: 'aligned', maxRecords: 200 }), { seed: 8, numRuns: 300 });
  const atAcknowledged = (f: Fault): number | undefined =>
    (f.type === 'crash' && 'at' in f.when && f.when.at.kind === 'jobmaster' && f.when.at.phase === 'acknowledged'
      ? f.when.at.checkpoint : undefined);
  const drawn = specs.filter((spec) => spec.faults.some((f) => atAcknowledged(f) !== undefined));

  test('crash a TaskManager when checkpoint 1 (mostly) to 4 is fully acknowledged, and are valid', () => {
    // On in one run out of five.
    expect(drawn.length).toBeGreaterThan(30);
    expect(drawn.length).toBeLessThan(90);
    const checkpoints = drawn.flatMap((spec) => spec.faults.map(atAcknowledged).filter((c) => c !== undefined));
    expect(checkpoints.every((c) => c >= 1 && c <= 4)).toBe(true);
    expect(checkpoints.filter((c) => c === 1).length / checkpoints.length).toBeGreaterThan(0.5);
    for (const spec of drawn) expect(() => validateRunSpec(spec)).not.toThrow();
  });

  test('slow their checkpoint\'s store ten times, mostly, and each checkpoint once', () => {
    let slowed = 0;
    let crashes = 0;
    for (const spec of drawn) {
      const aimed = new Set(spec.faults.map(atAcknowledged).filter((c) => c !== undefined));
      crashes += aimed.size;
      const slows = spec.faults.flatMap((f) => (f.type === 'slow-store' && f.checkpoint !== undefined && f.factor === 10 && aimed.has(f.checkpoint)
        ? [f.checkpoint] : []));
      expect(new Set(slows).size).toBe(slows.length);
      slowed += slows.length;
    }
    expect(slowed / crashes).toBeGreaterThan(0.6);
    expect(slowed).toBeLessThan(crashes);
  });
});
