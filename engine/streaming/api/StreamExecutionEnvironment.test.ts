import { describe, expect, test } from 'vitest';
import { InvalidJobError } from './InvalidJobError.ts';
import { splitSource, twoPhaseCommitSink } from './sources.ts';
import { StreamExecutionEnvironment } from './StreamExecutionEnvironment.ts';

const source = splitSource([{ id: 0, records: [1, 2, 3] }]);

describe('StreamExecutionEnvironment', () => {
  test('an edge without partitioning is forward at equal parallelism and rebalance otherwise (StreamGraph#addEdgeInternal)', () => {
    const env = new StreamExecutionEnvironment({ parallelism: 2 });
    env.fromSource(source, { uid: 'src' })
      .map((x: number) => x + 1, { uid: 'same' })
      .map((x: number) => x * 2, { uid: 'narrow', parallelism: 1 })
      .sinkTo(twoPhaseCommitSink('out'), { uid: 'sink', parallelism: 1 });
    expect(env.getStreamGraph().edges.map((e) => e.partitioner)).toEqual(['forward', 'rebalance', 'forward']);
  });

  test('an explicit forward() across a change of parallelism is refused, as Flink refuses it', () => {
    const env = new StreamExecutionEnvironment({ parallelism: 2 });
    expect(() => env.fromSource(source).forward().map((x: number) => x, { parallelism: 1 }))
      .toThrow(/forward partitioning does not allow a change of parallelism/);
    expect(() => env.fromSource(source).forward().map((x: number) => x, { parallelism: 1 })).toThrow(InvalidJobError);
  });

  test('operatorParallelism overrides what the job sets, per uid; the edge follows the overridden parallelism', () => {
    const env = new StreamExecutionEnvironment({ parallelism: 2, operatorParallelism: { m: 3, sink: 3 } });
    env.fromSource(source, { uid: 'src', parallelism: 1 })
      .map((x: number) => x, { uid: 'm', parallelism: 1 })
      .sinkTo(twoPhaseCommitSink('out'), { uid: 'sink' });
    const g = env.getStreamGraph();
    expect(g.nodes.map((n) => [n.uid, n.parallelism])).toEqual([['src', 1], ['m', 3], ['sink', 3]]);
    expect(g.edges.map((e) => e.partitioner)).toEqual(['rebalance', 'forward']);
  });

  test('maxParallelism is the default of operators that set none and counts as configured (env.setMaxParallelism)', () => {
    const env = new StreamExecutionEnvironment({ maxParallelism: 8 });
    env.fromSource(source, { uid: 'src' })
      .map((x: number) => x, { uid: 'm', maxParallelism: 4 })
      .sinkTo(twoPhaseCommitSink('out'), { uid: 'sink' });
    const g = env.getStreamGraph();
    expect(g.nodes.map((n) => [n.uid, n.maxParallelism, n.maxParallelismConfigured]))
      .toEqual([['src', 8, true], ['m', 4, true], ['sink', 8, true]]);
    const derived = new StreamExecutionEnvironment();
    derived.fromSource(source, { uid: 'src' }).sinkTo(twoPhaseCommitSink('out'));
    expect(derived.getStreamGraph().nodes[0]).toMatchObject({ maxParallelism: 128, maxParallelismConfigured: false });
  });

  test('a max parallelism below an operator\'s parallelism names the operator', () => {
    expect(() => new StreamExecutionEnvironment({ parallelism: 4, maxParallelism: 2 }).fromSource(source, { uid: 'src' }))
      .toThrow('maxParallelism 2 of operator src is below its parallelism 4');
  });
});
