import { describe, expect, test } from 'vitest';
import {
  StreamExecutionEnvironment, consecutiveSplits, splitSource, twoPhaseCommitSink,
  type StreamGraph,
} from '../engine/index.ts';
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
