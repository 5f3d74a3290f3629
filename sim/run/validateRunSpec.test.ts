import { describe, expect, test } from 'vitest';
import { PLANTED_BUG_IDS } from '../../engine/index.ts';
import { SimInputError } from '../SimInputError.ts';
import { expandRunSpec } from './expandRunSpec.ts';
import { RUN_SPEC_VERSION, type RunSpec } from './RunSpec.ts';
import { validateRunSpec } from './validateRunSpec.ts';

/** A small valid spec: flights 0..200 at parallelism 2 (one TaskManager), aligned. */
function base(): RunSpec {
  return {
    version: RUN_SPEC_VERSION,
    seed: 'v',
    job: { kind: 'flights', selection: { from: 0, to: 200 } },
    parallelism: 2,
    checkpoint: { mode: 'aligned', intervalMs: 20 },
    faults: [],
    healTimeMs: 100,
    budgets: { maxEvents: 1_000_000, maxTimeMs: 10_000 },
    overrides: [],
    mutations: [],
  };
}

/** The one-line message `spec` is refused with. */
function rejection(spec: unknown): string {
  try {
    validateRunSpec(spec);
  } catch (e) {
    expect(e).toBeInstanceOf(SimInputError);
    const message = (e as Error).message;
    expect(message).not.toMatch(/\n|Infinity|NaN/);
    return message;
  }
  throw new Error('expected a SimInputError');
}

const tm1Crash = { type: 'crash', host: 'taskmanager-1', when: { atMs: 10 } };

describe('validateRunSpec', () => {
  test('accepts valid specs of every job kind and returns them', () => {
    const spec = base();
    expect(validateRunSpec(spec)).toBe(spec);
    expect(() => validateRunSpec({ ...base(), job: { kind: 'wordcount', lines: 4 }, parallelism: 1 })).not.toThrow();
    const generated = {
      records: [[1, 2, 3], [4, 5]], stages: [{ kind: 'map', fn: 0, parallelism: 2, rebalance: false }],
      sourceParallelism: 2, sinkParallelism: 1, maxParallelism: 8,
    };
    expect(() => validateRunSpec({ ...base(), job: { kind: 'generated', spec: generated }, parallelism: { 'gen-sink': 2 } }))
      .not.toThrow();
  });

  test.each<[string, unknown, string]>([
    ['not an object', [1], 'run spec must be an object, got an array'],
    ['an unknown field', { ...base(), healTime: 5 },
      'run spec: unknown field "healTime" (fields: $schema, version, seed, job, parallelism, maxParallelism, taskManagers, '
      + 'slotsPerTaskManager, costsMs, network, storeLatency, heartbeat, jobManager, checkpoint, restartStrategy, faults, actions, '
      + 'healTimeMs, budgets, overrides, mutations, pct)'],
    ['a version mismatch (a repro of the format before jobManager.ioPoolSize)', { ...base(), version: 1 },
      'version 1 is not supported: this checkpoint-sim reads run spec version 8'],
    // The version is checked before any field, so an old file never gets a field error instead.
    ['an old version with a field it did not have', { ...base(), version: 2, jobManager: { mainThreads: 2 } },
      'version 2 is not supported: this checkpoint-sim reads run spec version 8'],
    ['no version', { ...base(), version: undefined },
      'version is missing: this checkpoint-sim reads run spec version 8'],
    // "version "4" is not supported: ... reads version 4" read as a contradiction.
    ['a version that is no number', { ...base(), version: '4' }, `version: must be the number ${RUN_SPEC_VERSION}, got the string "4"`],
    ['a version that is null', { ...base(), version: null }, `version: must be the number ${RUN_SPEC_VERSION}, got null`],
    ['a version of another number', { ...base(), version: 2 },
      'version 2 is not supported: this checkpoint-sim reads run spec version 8'],
    ['a misspelt field (named rather than the field it leaves missing)',
      (({ healTimeMs, ...rest }) => ({ ...rest, healtimeMs: healTimeMs }))(base()),
      'run spec: unknown field "healtimeMs" (fields: $schema, version, seed, job, parallelism, maxParallelism, '
      + 'taskManagers, slotsPerTaskManager, costsMs, network, storeLatency, heartbeat, jobManager, checkpoint, '
      + 'restartStrategy, faults, actions, healTimeMs, budgets, overrides, mutations, pct)'],
    ['a $schema that is no string', { ...base(), $schema: 1 }, '$schema: must be a string, got 1'],
    ['a parallelism of the wrong type', { ...base(), parallelism: 'two' },
      'parallelism: must be a positive integer or an object of operator uid -> parallelism, got "two"'],
    ['a bad per-uid parallelism', { ...base(), parallelism: { 'airport-stats': 65 } },
      'parallelism.airport-stats: must be an integer in 1..64, got 65'],
    ['an unknown restart strategy', { ...base(), restartStrategy: { kind: 'failure-rate' } },
      'restartStrategy.kind: must be one of none, fixed-delay, exponential-delay, got "failure-rate"'],
    ['attempts that are neither a number nor unlimited', { ...base(), restartStrategy: { kind: 'fixed-delay', attempts: 'forever', delayMs: 1 } },
      'restartStrategy.attempts: must be an integer >= 0 or "unlimited", got "forever"'],
    ['an exponential max delay below the initial delay', { ...base(), restartStrategy: {
      kind: 'exponential-delay', initialDelayMs: 5, maxDelayMs: 2, multiplier: 2, attempts: 'unlimited' } },
    'restartStrategy.maxDelayMs: must be a number of ms >= 5, got 2'],
    ['a generated record that is no integer', { ...base(), job: { kind: 'generated', spec: {
      records: [[1, 2.5]], stages: [], sourceParallelism: 1, sinkParallelism: 1, maxParallelism: 8 } } },
    'job.spec.records[0][1]: must be an integer in -1000000..1000000, got 2.5'],
    ['a generated stage of an unknown kind', { ...base(), job: { kind: 'generated', spec: {
      records: [[1]], stages: [{ kind: 'reduce' }], sourceParallelism: 1, sinkParallelism: 1, maxParallelism: 8 } } },
    'job.spec.stages[0].kind: must be one of map, filter, flatMap, keyed, splitLog, splitOwners, got "reduce"'],
    ['an io pool of no threads', { ...base(), jobManager: { ioPoolSize: 0 } },
      'jobManager.ioPoolSize: must be an integer in 1..64, got 0'],
    ['an unknown jobManager field', { ...base(), jobManager: { mainThreads: 2 } },
      'jobManager: unknown field "mainThreads" (fields: ioPoolSize)'],
    ['a seed that is no string', { ...base(), seed: 7 }, 'seed: must be a string, got 7'],
    ['an unknown job', { ...base(), job: { kind: 'tpch' } },
      'job.kind: must be one of flights, wordcount, generated, module, got "tpch"'],
    ['a bad flights selection', { ...base(), job: { kind: 'flights', selection: { from: 5, to: 2 } } },
      'job.selection.to: must be an integer in 5..20000, got 2'],
    ['a bad generated job', { ...base(), job: { kind: 'generated', spec: {
      records: [], stages: [], sourceParallelism: 1, sinkParallelism: 1, maxParallelism: 8 } } },
    'job.spec: generated job: records must be 1..16 splits'],
    ['an unknown mode', { ...base(), checkpoint: { mode: 'exactly', intervalMs: 20 } },
      'checkpoint.mode: must be one of aligned, at-least-once, unaligned, aligned-timeout, none, got "exactly"'],
    ['mode unaligned', { ...base(), checkpoint: { mode: 'unaligned', intervalMs: 20 } },
      'checkpoint.mode: mode unaligned is not available yet (available: aligned, at-least-once, none)'],
    ['mode aligned-timeout', { ...base(), checkpoint: { mode: 'aligned-timeout', intervalMs: 20 } },
      'checkpoint.mode: mode aligned-timeout is not available yet (available: aligned, at-least-once, none)'],
    ['a negative interval', { ...base(), checkpoint: { mode: 'aligned', intervalMs: -5 } },
      'checkpoint.intervalMs: must be a number of ms >= 10, got -5'],
    ['an interval in fractions of µs', { ...base(), checkpoint: { mode: 'aligned', intervalMs: 20.0001 } },
      'checkpoint.intervalMs: must be a whole number of µs, got 20.0001 ms'],
    ['a bad max concurrent', { ...base(), checkpoint: { mode: 'aligned', intervalMs: 20, maxConcurrent: 0 } },
      'checkpoint.maxConcurrent: must be an integer >= 1, got 0'],
    ['an unknown uid in parallelism', { ...base(), parallelism: { 'airport-statz': 2 } },
      'parallelism: unknown operator uid "airport-statz" (operators: flights-source, airport-stats, flights-sink)'],
    ['a bad parallelism', { ...base(), parallelism: 0 }, 'parallelism: must be an integer in 1..64, got 0'],
    ['mixed wordcount parallelism', { ...base(), job: { kind: 'wordcount' }, parallelism: { 'wordcount-count': 2 } },
      'parallelism: wordcount runs every operator at one parallelism'],
    ['an unknown uid in costs', { ...base(), costsMs: { sink: 1 } },
      'costsMs: unknown field "sink" (fields: flights-source, airport-stats, flights-sink)'],
    ['a negative cost', { ...base(), costsMs: { 'flights-sink': -1 } },
      'costsMs.flights-sink: must be a number of ms >= 0, got -1'],
    // Found by a fresh-eyes pass: 1e20 ms passed validation and broke the mailbox's whole-µs
    // assertion mid-run (exit 3 with a stack trace instead of a bad-input error).
    ['a cost beyond what whole microseconds hold exactly', { ...base(), costsMs: { 'flights-source': 1e20 } },
      'costsMs.flights-source: must be at most 1000000000 ms, got 100000000000000000000'],
    ['too few TaskManagers', { ...base(), parallelism: 4, taskManagers: 1 },
      'taskManagers: 1 with 2 slots each cannot run parallelism 4 (needs at least 2)'],
    ['a max parallelism below the parallelism', { ...base(), maxParallelism: 1 },
      'maxParallelism: must be at least the largest parallelism (2), got 1'],
    ['a heartbeat timeout not above the interval', { ...base(), heartbeat: { intervalMs: 5, timeoutMs: 5 } },
      'heartbeat.timeoutMs: must be above heartbeat.intervalMs (5), got 5'],
    ['a bad latency', { ...base(), network: { rpcLatency: { minMs: 2, medianMs: 1, maxMs: 3 } } },
      'network.rpcLatency: must have minMs <= medianMs <= maxMs'],
    ['a bad restart strategy', { ...base(), restartStrategy: { kind: 'fixed-delay', attempts: -1, delayMs: 1 } },
      'restartStrategy.attempts: must be an integer >= 0, got -1'],
    ['a negative heal time', { ...base(), healTimeMs: -1 }, 'healTimeMs: must be a number of ms >= 0, got -1'],
    ['an unknown planted bug', { ...base(), mutations: ['sink-commits-only-notified', 'no-such-bug'] },
      // Every id, sorted (PLANTED_BUG_IDS is; the list grows with every planted bug).
      `mutations[1]: unknown planted bug "no-such-bug" (planted bugs: ${[...PLANTED_BUG_IDS].sort().join(', ')})`],
    ['a missing budget', { ...base(), budgets: { maxEvents: 10 } },
      'budgets.maxTimeMs: missing'],
    ['a fault at an unknown host', { ...base(), faults: [{ ...tm1Crash, host: 'taskmanager-2' }] },
      'faults[0].host: unknown host "taskmanager-2" (hosts: jobmanager, taskmanager-1; or a task <vertex>#<subtask>, for the TaskManager that runs it)'],
    ['a JobManager crash', { ...base(), faults: [{ ...tm1Crash, host: 'jobmanager' }] },
      'faults[0].host: no JobManager crash until HA exists'],
    ['an unknown fault type', { ...base(), faults: [{ type: 'meteor' }] },
      'faults[0].type: must be one of crash, global-failure, pause, partition, rpc-loss, rpc-delay, store-failure, '
      + 'store-unknown-outcome, slow-store, async-snapshot-failure, slow-task, coordinator-stall, message, channel-event, got "meteor"'],
    // A field the file leaves out is `missing`, not the reason its check gives for undefined.
    ['a fault without type', { ...base(), faults: [{ host: 'taskmanager-1', when: { atMs: 10 } }] },
      'faults[0].type: missing (types: crash, global-failure, pause, partition, rpc-loss, rpc-delay, store-failure, '
      + 'store-unknown-outcome, slow-store, async-snapshot-failure, slow-task, coordinator-stall, message, channel-event)'],
    ['a crash without host', { ...base(), faults: [{ type: 'crash', when: { atMs: 10 } }] }, 'faults[0].host: missing'],
    ['a message fault without method', { ...base(), faults: [{ type: 'message', action: 'lose' }] }, 'faults[0].method: missing'],
    ['a misspelt host in a fault at a point',
      { ...base(), faults: [{ type: 'crash', hots: 'taskmanager-1', when: { at: { kind: 'jobmaster', checkpoint: 1, phase: 'completed' } } }] },
      'faults[0]: unknown field "hots" (fields: type, host, when, downMs)'],
    ['a misspelt checkpoint in a point',
      { ...base(), faults: [{ ...tm1Crash, when: { at: { kind: 'jobmaster', checkpiont: 1, phase: 'completed' } } }] },
      'faults[0].when.at: unknown field "checkpiont" (fields: kind, checkpoint, savepoint, phase, jobRun)'],
    ['a probability above 1', { ...base(), faults: [{ type: 'store-failure', probability: 1.5 }] },
      'faults[0].probability: must be a probability in [0, 1], got 1.5'],
    ['a negative probability', { ...base(), faults: [{ type: 'async-snapshot-failure', probability: -0.1 }] },
      'faults[0].probability: must be a probability in [0, 1], got -0.1'],
    ['an unknown RPC kind', { ...base(), faults: [{ type: 'rpc-loss', kind: 'gossip', probability: 0.5 }] },
      'faults[0].kind: unknown RPC kind "gossip" (kinds: trigger, ack, decline, notifyComplete, notifyAborted, '
      + 'coordinatorEvent, heartbeat, deployment, registration, taskState, control)'],
    ['an unknown slow-task operator', { ...base(), faults: [
      { type: 'slow-task', operator: 'v1', factor: 2, when: { atMs: 1 }, durationMs: 5 }] },
    'faults[0].operator: unknown operator uid "v1" (operators: flights-source, airport-stats, flights-sink)'],
    ['a slowdown factor below 1', { ...base(), faults: [{ type: 'slow-store', factor: 0.5 }] },
      'faults[0].factor: must be a finite number >= 1, got 0.5'],
    // Found by a fresh-eyes pass: 1e300 was accepted (two such slowdowns multiply to Infinity).
    ['a slowdown factor above 1e6', { ...base(), faults: [{ type: 'slow-store', factor: 1e300 }] },
      'faults[0].factor: must be at most 1000000, got 1e+300'],
    ['a partition of a host with itself', { ...base(), faults: [
      { type: 'partition', a: 'jobmanager', b: 'jobmanager', when: { atMs: 1 }, durationMs: 5 }] },
    'faults[0]: a partition needs two different hosts, got jobmanager twice'],
    ['a fault time at the heal time', { ...base(), faults: [{ ...tm1Crash, when: { atMs: 100 } }] },
      'faults[0].when.atMs: must be before healTimeMs (100), got 100: faults stop at the heal time'],
    ['a malformed trigger', { ...base(), faults: [{ ...tm1Crash, when: 10 }] },
      'faults[0].when: must be { atMs } or { at: <protocol point> }, got 10'],
    ['a trigger with neither form', { ...base(), faults: [{ ...tm1Crash, when: {} }] },
      'faults[0].when: must be { atMs } or { at: <protocol point> }, got an object'],
    ['a trigger time below 0 (the atMs form is the one meant)', { ...base(), faults: [{ ...tm1Crash, when: { atMs: -1 } }] },
      'faults[0].when.atMs: must be a number of ms >= 0, got -1'],
    ['a point with a field of another kind', { ...base(), faults: [
      { ...tm1Crash, when: { at: { kind: 'jobmaster', checkpoint: 1, phase: 'completed', task: 'v1#0' } } }] },
    'faults[0].when.at: unknown field "task" (fields: kind, checkpoint, savepoint, phase, jobRun)'],
    ['an unknown point kind', { ...base(), faults: [{ ...tm1Crash, when: { at: { kind: 'clock' } } }] },
      'faults[0].when.at.kind: must be one of task, jobmaster, sink, restore, job, execution, got "clock"'],
    ['a fault that is no object', { ...base(), faults: [5] }, 'faults[0]: must be an object, got 5'],
    ['a fault with a field of another type', { ...base(), faults: [{ type: 'store-failure', probability: 0.1, host: 'jobmanager' }] },
      'faults[0]: unknown field "host" (fields: type, probability)'],
    ['faults that are no array', { ...base(), faults: {} }, 'faults: must be an array, got an object'],
    ['an unknown phase', { ...base(), faults: [{ ...tm1Crash, when: { at: { kind: 'task', checkpoint: 1, phase: 'done' } } }] },
      'faults[0].when.at.phase: must be one of triggered, first-barrier, aligned, sync-done, async-done, acked, '
      + 'ack-received, notified, got "done"'],
    ['a malformed task name', { ...base(), faults: [
      { ...tm1Crash, when: { at: { kind: 'task', checkpoint: 1, phase: 'acked', task: 'v1#0@0' } } }] },
    'faults[0].when.at.task: must name a task as <vertex>#<subtask> (e.g. v1#0), got "v1#0@0"'],
    ['a sink point without nth', { ...base(), faults: [{ ...tm1Crash, when: { at: { kind: 'sink', phase: 'committed' } } }] },
      'faults[0].when.at.nth: missing'],
    ['a bad override', { ...base(), overrides: [{ decision: -1, alternative: 0 }] },
      'overrides[0].decision: must be a non-negative integer'],
    ['a decision overridden twice', { ...base(), overrides: [{ decision: 3, alternative: 0 }, { decision: 3, alternative: 1 }] },
      'overrides name decision 3 twice'],
    ['a mutation that is no string', { ...base(), mutations: [3] }, 'mutations[0]: must be a string, got 3'],
    ['PCT change points out of order', { ...base(), pct: { changePoints: [40, 7] } }, 'pct.changePoints: must be ascending and distinct'],
    ['a negative PCT change point', { ...base(), pct: { changePoints: [-2] } }, 'pct.changePoints[0]: must be a non-negative integer'],
    ['too many PCT change points', { ...base(), pct: { changePoints: Array.from({ length: 17 }, (_x, i) => i) } },
      'pct.changePoints: at most 16 change points, got 17'],
    ['a PCT schedule with a seed of its own', { ...base(), pct: { changePoints: [], seed: 'x' } },
      'pct: unknown field "seed" (fields: changePoints)'],
  ])('refuses %s with one line', (_what, spec, message) => {
    expect(rejection(spec)).toBe(message);
  });

  test('a $schema field (for editors) is accepted and changes nothing', () => {
    const spec = { ...base(), $schema: './node_modules/checkpoint-sim/schemas/runspec.schema.json' };
    expect(validateRunSpec(spec)).toBe(spec);
    expect(expandRunSpec(spec)).toEqual(expandRunSpec(base()));
  });

  test('every planted bug id is accepted', () => {
    expect(() => validateRunSpec({ ...base(), mutations: [...PLANTED_BUG_IDS] })).not.toThrow();
  });

  test('non-finite numbers are described in words', () => {
    expect(rejection({ ...base(), healTimeMs: Number.POSITIVE_INFINITY }))
      .toBe('healTimeMs: must be a number of ms >= 0, got a non-finite number');
  });
});

describe('expandRunSpec', () => {
  test('fills every default (DESIGN.md)', () => {
    const e = expandRunSpec(base());
    expect(e.job).toEqual({ kind: 'flights', selection: { from: 0, to: 200 }, splits: 16 });
    expect(e.taskManagers).toBe(1);
    expect(e.slotsPerTaskManager).toBe(2);
    expect(e.costsMs).toEqual({ 'flights-source': 0.4, 'airport-stats': 0.04, 'flights-sink': 0.02 });
    expect(e.network).toEqual({
      recordsPerBuffer: 32, bufferTimeoutMs: 2, dataLatency: { minMs: 0.05, medianMs: 0.2, maxMs: 1 },
      rpcLatency: { minMs: 0.1, medianMs: 0.5, maxMs: 2 }, rpcTimeoutMs: 20,
    });
    expect(e.heartbeat).toEqual({ intervalMs: 5, timeoutMs: 25 });
    expect(e.checkpoint).toEqual({
      mode: 'aligned', intervalMs: 20, timeoutMs: 1000, minPauseMs: 0, maxConcurrent: 1, tolerableFailures: 0, retained: 1, retention: 'NO_EXTERNALIZED_CHECKPOINTS',
    });
    expect(e.restartStrategy).toEqual({ kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 });
    expect(e.maxParallelism).toBeUndefined();
    expect(JSON.parse(JSON.stringify(e))).toEqual(e);
  });

  test('keeps what the spec gives and fills per-uid parallelism', () => {
    const e = expandRunSpec({
      ...base(), parallelism: { 'airport-stats': 3 }, costsMs: { 'flights-sink': 0.5 }, slotsPerTaskManager: 1,
    });
    expect(e.parallelism).toEqual({ 'flights-source': 4, 'airport-stats': 3, 'flights-sink': 4 });
    expect(e.taskManagers).toBe(4);
    expect(e.costsMs['flights-sink']).toBe(0.5);
  });

  // Found by a fresh-eyes pass: a printed generated job showed its shape's stage parallelism
  // (1) next to the run's parallelism (2) that replaced it.
  test('a generated job is expanded with the parallelism each operator runs at', () => {
    const shape = {
      records: [[1, 2]], stages: [{ kind: 'keyed' as const, key: 0, fn: 0, parallelism: 1 }],
      sourceParallelism: 1, sinkParallelism: 1, maxParallelism: 8,
    };
    const all = expandRunSpec({ ...base(), job: { kind: 'generated', spec: shape }, parallelism: 2 });
    expect(all.job).toEqual({ kind: 'generated', spec: { ...shape, sourceParallelism: 2, sinkParallelism: 2,
      stages: [{ ...shape.stages[0], parallelism: 2 }] } });
    const some = expandRunSpec({ ...base(), job: { kind: 'generated', spec: shape }, parallelism: { 'gen-sink': 3 } });
    expect(some.job).toEqual({ kind: 'generated', spec: { ...shape, sinkParallelism: 3 } });
  });

  test.each<[string, RunSpec]>([
    ['flights', base()],
    ['wordcount', { ...base(), job: { kind: 'wordcount' }, parallelism: 2, checkpoint: { mode: 'at-least-once', intervalMs: 30 } }],
    ['generated', { ...base(), parallelism: { 'gen-source': 1 }, job: { kind: 'generated', spec: {
      records: [[1, 2], [3]], stages: [{ kind: 'keyed', key: 0, fn: 0, parallelism: 2 }],
      sourceParallelism: 2, sinkParallelism: 2, maxParallelism: 4,
    } } }],
    ['faults and settings', { ...base(), maxParallelism: 8, restartStrategy: { kind: 'none' },
      faults: [{ type: 'crash', host: 'taskmanager-1', when: { atMs: 5 } }], overrides: [{ decision: 3, alternative: 1 }] }],
  ])('is idempotent (%s)', (_what, spec) => {
    const once = expandRunSpec(spec);
    expect(expandRunSpec(once)).toEqual(once);
  });
});
