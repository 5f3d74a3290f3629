import { describe, expect, test } from 'vitest';
import {
  StreamExecutionEnvironment, assert, consecutiveSplits, splitSource, twoPhaseCommitSink,
  type StreamGraph,
} from '../engine/index.ts';
import { HarnessAssertionError } from './harnessAssert.ts';
import { MiniCluster, type MiniClusterOptions } from './MiniCluster.ts';
import { SimInputError } from './SimInputError.ts';

/** A tiny job: words of a few lines, upper-cased, into a two-phase-commit sink. */
function tinyGraph(parallelism = 2): StreamGraph {
  const lines = ['to be or not to be', 'that is the question'];
  const env = new StreamExecutionEnvironment({ jobName: 'tiny', parallelism });
  env.fromSource(splitSource(consecutiveSplits(lines, 2)), { name: 'lines' })
    .flatMap<string>((line, out) => line.split(' ').forEach((w) => out.collect(w.toUpperCase())))
    .sinkTo(twoPhaseCommitSink('tiny'));
  return env.getStreamGraph();
}

/** The one-line SimInputError message `options` are rejected with. */
function rejection(options: Partial<MiniClusterOptions> & Record<string, unknown>): string {
  const full = { world: { seed: 'mc' }, streamGraph: tinyGraph(), ...options } as MiniClusterOptions;
  try {
    new MiniCluster(full);
  } catch (e) {
    expect(e).toBeInstanceOf(SimInputError);
    const message = (e as Error).message;
    expect(message).not.toMatch(/\n|Infinity|NaN/);
    return message;
  }
  throw new Error('expected a SimInputError');
}

describe('MiniCluster', () => {
  test('runs a job to the end once; a second run() throws at once instead of hanging', () => {
    const cluster = new MiniCluster({ world: { seed: 'mc' }, streamGraph: tinyGraph(), drainUs: 1_000 });
    const result = cluster.run();
    expect(result.jobStatus).toBe('FINISHED');
    expect(result.run.reason).toBe('stopped');
    expect(result.committed).toHaveLength(10);
    expect(result.jobEndUs).toBeDefined();
    expect(result.run.timeUs).toBe((result.jobEndUs ?? 0) + 1_000);
    expect(() => cluster.run()).toThrow(SimInputError);
    expect(() => cluster.run()).toThrow('MiniCluster.run() can be called once');
  });

  test('a budget-ended run cannot be continued with run() either', () => {
    const cluster = new MiniCluster({ world: { seed: 'mc', budgets: { maxEvents: 10 } }, streamGraph: tinyGraph() });
    expect(cluster.run().run.reason).toBe('max-events');
    expect(() => cluster.run()).toThrow('MiniCluster.run() can be called once');
  });

  test.each([
    [{ config: { slotsPerTaskManager: 0 } }, 'config.slotsPerTaskManager must be a positive integer, got 0'],
    [{ config: { slotsPerTaskManager: Number.POSITIVE_INFINITY } },
      'config.slotsPerTaskManager must be a positive integer, got a non-finite number'],
    [{ config: { rpcTimeoutUs: -5 } }, 'config.rpcTimeoutUs must be a positive integer (µs), got -5'],
    [{ config: { heartbeatIntervalUs: 30_000 } }, 'config.heartbeatTimeoutUs must be above heartbeatIntervalUs'],
    [{ config: { recordsPerBuffer: 0 } }, 'config.recordsPerBuffer must be a positive integer'],
    [{ config: { bufferTimeoutUs: Number.NaN } }, 'config.bufferTimeoutUs must be a non-negative integer'],
    [{ config: { restartStrategy: { kind: 'bogus' } } }, 'config.restartStrategy.kind must be'],
    [{ config: { rpcTimeoutMs: 20 } }, 'config.rpcTimeoutMs is not a configuration field'],
    [{ config: 'fast' }, 'config must be an object of ClusterConfiguration overrides'],
    [{ drainUs: -1 }, 'drainUs must be a non-negative integer, got -1'],
    [{ drainUs: 0.5 }, 'drainUs must be a non-negative integer, got 0.5'],
    [{ drainUs: Number.POSITIVE_INFINITY }, 'drainUs must be a non-negative integer, got a non-finite number'],
    [{ taskManagers: 0 }, 'taskManagers must be a positive integer, got 0'],
    [{ taskManagers: 1.5 }, 'taskManagers must be a positive integer, got 1.5'],
    [{ taskManagers: Number.NaN }, 'taskManagers must be a positive integer, got a non-finite number'],
    [{ taskManagers: 1, streamGraph: tinyGraph(4) },
      'taskManagers: 1 with 2 slots each cannot run parallelism 4 (needs at least 2)'],
    [{ streamGraph: { jobName: 'empty', nodes: [], edges: [], chaining: true } }, 'streamGraph has no nodes'],
    [{ streamGraph: undefined }, 'streamGraph must be a StreamGraph (env.getStreamGraph())'],
    [{ world: undefined }, 'world options must be an object'],
  ])('rejects %o up front with one line', (options, expected) => {
    expect(rejection(options as Record<string, unknown>)).toContain(expected);
  });

  test('a graph with a malformed parallelism is rejected without printing NaN', () => {
    const g = tinyGraph();
    const nodes = g.nodes.map((n, i) => (i === 0 ? { ...n, parallelism: Number.NaN } : n));
    expect(rejection({ streamGraph: { ...g, nodes } }))
      .toBe('streamGraph.nodes[0].parallelism must be a positive integer, got a non-finite number');
  });

  test('valid overrides are merged with the defaults', () => {
    const cluster = new MiniCluster({
      world: { seed: 'mc' }, streamGraph: tinyGraph(), config: { slotsPerTaskManager: 1 }, drainUs: 0,
    });
    expect(cluster.config.slotsPerTaskManager).toBe(1);
    expect(cluster.taskManagerHosts).toEqual(['taskmanager-1', 'taskmanager-2']);
    expect(cluster.run().jobStatus).toBe('FINISHED');
  });
});

describe('The JobMaster ioExecutor is a pool (ExecutionGraphHandler submits each ack and decline on its own)', () => {
  function ackWorkers(ioPoolSize: number): Set<string> {
    const env = new StreamExecutionEnvironment({ jobName: 'acks', parallelism: 4 });
    env.enableCheckpointing(10, { mode: 'EXACTLY_ONCE' });
    env.fromSource(splitSource(consecutiveSplits(Array.from({ length: 400 }, (_x, i) => `r${i}`), 8)), { name: 'src' })
      .map<string>((s) => s.toUpperCase())
      .sinkTo(twoPhaseCommitSink('acks'));
    const cluster = new MiniCluster({
      world: { seed: 'io-pool', traceTasks: true }, streamGraph: env.getStreamGraph(),
      config: { jobManagerIoPoolSize: ioPoolSize },
    });
    const result = cluster.run();
    expect(result.jobStatus).toBe('FINISHED');
    expect(result.completedCheckpoints.length).toBeGreaterThan(0);
    return new Set(cluster.world.trace.events
      .filter((e) => e.type === 'task' && e.attrs['label'] === 'receive-ack')
      .map((e) => String(e.attrs['executor'])));
  }

  test('acks run on the workers of a pool of the configured size', () => {
    const workers = ackWorkers(4);
    expect(workers.size).toBeGreaterThan(0);
    expect([...workers].every((w) => /^jobmanager\/jobmaster\/io-[1-4]$/.test(w))).toBe(true);
    expect(ackWorkers(1)).toEqual(new Set(['jobmanager/jobmaster/io-1']));
  });
});

describe('An engine assertion ends the run as a result; a harness assertion propagates', () => {
  /**
   * A test-only job: 400 records through a map whose user function fails the engine's own
   * `assert` on record `r350` (the mailbox lets an AssertionError through, so it ends the run),
   * with checkpoints every 10 ms so that some output is committed before.
   */
  function plantedJob(): StreamGraph {
    const env = new StreamExecutionEnvironment({ jobName: 'planted', parallelism: 2 });
    env.enableCheckpointing(10, { mode: 'EXACTLY_ONCE' });
    env.fromSource(splitSource(consecutiveSplits(Array.from({ length: 400 }, (_x, i) => `r${i}`), 4)), { name: 'src' })
      .map<string>((s) => {
        assert(s !== 'r350', () => `planted: the map got ${s}`);
        return s.toUpperCase();
      })
      .sinkTo(twoPhaseCommitSink('planted'));
    return env.getStreamGraph();
  }

  // A budget, so that an engine which fails the task over instead (and restarts it for ever)
  // ends the run too.
  const PLANTED_WORLD = { seed: 'planted', budgets: { maxEvents: 200_000 } } as const;

  test('with its message, its place in the engine, its time and what the run produced until then', () => {
    const run = () => new MiniCluster({ world: PLANTED_WORLD, streamGraph: plantedJob() }).run();
    const result = run();
    expect(result.run.reason).toBe('engine-assertion');
    const a = result.engineAssertion;
    expect(a?.message).toBe('planted: the map got r350');
    // The user function is in this test file; the first engine frame under it is the operator
    // that called it (engine/util/assert.ts itself is skipped).
    expect(a?.location).toMatch(/^engine\/streaming\/operators\/MapOperator\.ts:\d+$/);
    expect(a?.stack[0]).toMatch(/^at assert \(engine\/util\/assert\.ts:\d+:\d+\)$/);
    expect(a?.timeUs).toBe(result.run.timeUs);
    expect(result.run.message).toBe(`engine assertion at ${a?.location}: planted: the map got r350`);
    expect(result.jobStatus).toBe('RUNNING');
    expect(result.jobEndUs).toBeUndefined();
    // Cut short, yet everything until then is there: checkpoints, committed output, the trace.
    expect(result.completedCheckpoints.length).toBeGreaterThan(0);
    expect(result.committed.length).toBeGreaterThan(0);
    expect(result.committed.length).toBeLessThan(400);
    // The trace ends with the assertion, and the same run gives the same hash.
    const again = run();
    expect(again.traceHash).toBe(result.traceHash);
    expect(again.run).toEqual(result.run);
  });

  test('the trace ends with an engine.assertion event carrying the message', () => {
    const cluster = new MiniCluster({ world: PLANTED_WORLD, streamGraph: plantedJob() });
    const result = cluster.run();
    const last = cluster.world.trace.events.at(-1);
    expect(last?.type).toBe('engine.assertion');
    expect(last?.attrs).toEqual({ message: 'planted: the map got r350' });
    expect(last?.timeUs).toBe(result.run.timeUs);
  });

  test('a harness assertion (the sim\'s own run loop misused) propagates out of run()', () => {
    const cluster = new MiniCluster({ world: { seed: 'harness' }, streamGraph: tinyGraph() });
    cluster.world.at(1_000, 'nested run', () => cluster.world.run());
    expect(() => cluster.run()).toThrow(HarnessAssertionError);
  });

  test('so does any error that is not an AssertionError', () => {
    const env = new StreamExecutionEnvironment({ jobName: 'harness', parallelism: 1 });
    env.fromSource(splitSource(consecutiveSplits(['a', 'b'], 1)), { name: 'src' })
      .sinkTo(twoPhaseCommitSink('out'));
    const cluster = new MiniCluster({ world: { seed: 'harness' }, streamGraph: env.getStreamGraph() });
    cluster.world.at(1_000, 'broken action', () => {
      throw new TypeError('a bug of the harness');
    });
    expect(() => cluster.run()).toThrow(TypeError);
  });
});
