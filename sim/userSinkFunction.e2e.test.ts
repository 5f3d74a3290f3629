/**
 * A user's own TwoPhaseCommitSinkFunction, run end to end on the MiniCluster through a global
 * failover and judged by oracle 3 (end-to-end exactly-once) like the built-in sink: one that
 * buffers in invoke and writes in preCommit is exactly-once; one that commits in preCommit (in
 * the snapshot, before the checkpoint completes) duplicates what the restore replays; one with
 * only the defaults is the built-in sink, to the trace hash; one that throws fails its task.
 */
import { describe, expect, test } from 'vitest';
import {
  StreamExecutionEnvironment, TwoPhaseCommitSinkFunction, consecutiveSplits, recordIdentity,
  splitSource, twoPhaseCommitSink,
  type SinkTransaction, type StreamGraph, type StreamRecord, type TwoPhaseCommitSinkFunctionFactory,
} from '../engine/index.ts';
import type { CommittedRecord } from '../properties/oracles/compareOutputs.ts';
import { endToEndExactlyOnce } from '../properties/oracles/endToEndExactlyOnce.ts';
import { MiniCluster, type MiniClusterResult } from './MiniCluster.ts';
import type { TraceEvent } from './Trace.ts';

const INPUT = Array.from({ length: 2000 }, (_, i) => i);

/** 2,000 numbers in 4 splits, doubled, into sink `out`; parallelism 2, checkpoints every 10 ms. */
function graph(create?: TwoPhaseCommitSinkFunctionFactory<number>): StreamGraph {
  const env = new StreamExecutionEnvironment({ jobName: 'user-sink', parallelism: 2 })
    .enableCheckpointing(10, { mode: 'EXACTLY_ONCE' });
  env.fromSource(splitSource(consecutiveSplits(INPUT, 4)), { name: 'numbers' })
    .map<number>((n) => n * 2)
    .sinkTo(twoPhaseCommitSink('out', create));
  return env.getStreamGraph();
}

class BufferingSink extends TwoPhaseCommitSinkFunction<number> {
  private buffer: StreamRecord<number>[] = [];
  override invoke(_txn: SinkTransaction, record: StreamRecord<number>): void {
    this.buffer.push(record);
  }
  override preCommit(txn: SinkTransaction): void {
    for (const r of this.buffer) txn.write(r);
    this.buffer = [];
    txn.preCommit();
  }
}

class CommitInPreCommitSink extends TwoPhaseCommitSinkFunction<number> {
  override preCommit(txn: SinkTransaction): void {
    txn.preCommit();
    txn.commit();
  }
}

function run(g: StreamGraph, failAtUs?: number): { cluster: MiniCluster; result: MiniClusterResult } {
  const cluster = new MiniCluster({ world: { seed: 'user-sink' }, streamGraph: g });
  if (failAtUs !== undefined) {
    cluster.world.at(failAtUs, 'fail globally', () => cluster.jobManagerProcess.jobMaster.failGlobal('test'));
  }
  return { cluster, result: cluster.run() };
}

const committed = (r: MiniClusterResult): CommittedRecord[] => r.committed.map((c) => c.record as CommittedRecord);
const judge = (g: StreamGraph, r: MiniClusterResult): ReturnType<typeof endToEndExactlyOnce> =>
  endToEndExactlyOnce({ graph: g, committed: committed(r), finalState: r.finalState });
const ofType = (c: MiniCluster, type: string): TraceEvent[] => c.world.trace.events.filter((e) => e.type === type);

/**
 * A time when every sink subtask has pre-committed checkpoint c but c has not completed (c not
 * the first), found on a run without faults: a failure then restores from c - 1. The schedule
 * up to that time does not depend on the sink function (its calls take no virtual time).
 */
function betweenPreCommitAndCompletion(): { atUs: number; checkpoint: number } {
  const { cluster } = run(graph());
  const completed = ofType(cluster, 'checkpoint.completed');
  for (const done of completed.slice(1)) {
    const c = Number(done.attrs['checkpointId']);
    const preCommits = ofType(cluster, 'sink.pre-committed').filter((e) => e.attrs['checkpoint'] === c);
    const last = Math.max(...preCommits.map((e) => e.timeUs));
    if (preCommits.length === 2 && last < done.timeUs) return { atUs: last + Math.floor((done.timeUs - last) / 2), checkpoint: c };
  }
  throw new Error('no checkpoint completes after its sink pre-commits');
}

describe('a user TwoPhaseCommitSinkFunction on the MiniCluster, through a global failover', () => {
  const fault = betweenPreCommitAndCompletion();

  test('the failure lands between the pre-commits of a checkpoint and its completion', () => {
    const { cluster, result } = run(graph(), fault.atUs);
    expect(result.jobStatus).toBe('FINISHED');
    expect(ofType(cluster, 'checkpoint.completed').some((e) => e.attrs['checkpointId'] === fault.checkpoint && e.timeUs < fault.atUs)).toBe(false);
    const restored = ofType(cluster, 'checkpoint.restored').map((e) => Number(e.attrs['checkpointId']));
    expect(restored.length).toBeGreaterThan(0);
    expect(restored.every((id) => id < fault.checkpoint)).toBe(true);
    expect(judge(graph(), result).ok).toBe(true);
  });

  test('a sink that buffers in invoke and writes in preCommit is exactly-once', () => {
    const g = graph(() => new BufferingSink());
    const { result } = run(g, fault.atUs);
    expect(result.jobStatus).toBe('FINISHED');
    expect(committed(result)).toHaveLength(INPUT.length);
    const verdict = judge(g, result);
    expect(verdict.ok).toBe(true);
  });

  test('a sink that commits in preCommit duplicates the replayed records, and oracle 3 flags it', () => {
    const g = graph(() => new CommitInPreCommitSink());
    const { cluster, result } = run(g, fault.atUs);
    expect(result.jobStatus).toBe('FINISHED');
    const records = committed(result);
    expect(records.length).toBeGreaterThan(INPUT.length);
    const seen = new Set(records.map(recordIdentity));
    expect(seen.size).toBe(INPUT.length); // nothing lost, only duplicated
    const verdict = judge(g, result);
    expect(verdict.ok).toBe(false);
    expect(verdict.details.surplusCount).toBe(records.length - INPUT.length);
    expect(verdict.details.missingCount).toBe(0);
    // The restore's recoverAndAbort found the transactions open at the restored snapshot committed.
    expect(ofType(cluster, 'sink.abort-of-committed').length).toBeGreaterThan(0);
    // Without the failure, committing early is invisible to the oracle.
    expect(judge(g, run(g).result).ok).toBe(true);
  });

  test('a function with only the defaults runs exactly as no function: the same trace hash', () => {
    const none = run(graph(), fault.atUs).result;
    const defaults = run(graph(() => new TwoPhaseCommitSinkFunction()), fault.atUs).result;
    expect(defaults.traceHash).toBe(none.traceHash);
    expect(defaults.committed).toEqual(none.committed);
  });

  test('an error thrown by the function fails the task like any user function: the job restarts and finishes', () => {
    let thrown = 0;
    class FailsOnce extends TwoPhaseCommitSinkFunction<number> {
      override invoke(txn: SinkTransaction, record: StreamRecord<number>): void {
        if (record.value === 1000 && thrown === 0) {
          thrown++;
          throw new Error('user sink broke');
        }
        super.invoke(txn, record);
      }
    }
    const g = graph(() => new FailsOnce());
    const { cluster, result } = run(g);
    expect(thrown).toBe(1);
    expect(result.run.reason).not.toBe('engine-assertion');
    expect(ofType(cluster, 'job.status').map((e) => e.attrs['status'])).toContain('RESTARTING');
    expect(result.jobStatus).toBe('FINISHED');
    expect(judge(g, result).ok).toBe(true);
  });
});
