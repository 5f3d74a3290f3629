/**
 * Shared helpers for end-to-end runs of jobs on the MiniCluster: runs a job and judges it with
 * oracle 3 (end-to-end exactly-once) against the reference fold.
 */
import type { StreamGraph } from '../../engine/index.ts';
import { MiniCluster, type MiniClusterOptions, type MiniClusterResult } from '../../sim/MiniCluster.ts';
import type { CommittedRecord } from '../oracles/compareOutputs.ts';
import { endToEndExactlyOnce, type EndToEndVerdict } from '../oracles/endToEndExactlyOnce.ts';

/** The committed sink records of a run, in the shape the oracles read. */
export function committedRecords(result: MiniClusterResult): CommittedRecord[] {
  return result.committed.map((c) => c.record as CommittedRecord);
}

/** Judges a finished run of `graph` with oracle 3. */
export function judgeExactlyOnce(graph: StreamGraph, result: MiniClusterResult): EndToEndVerdict {
  return endToEndExactlyOnce({ graph, committed: committedRecords(result), finalState: result.finalState });
}

/** Builds a MiniCluster for `graph`; `setUp` may schedule faults before it runs. */
export function runJob(
  graph: StreamGraph,
  options: Omit<MiniClusterOptions, 'streamGraph'>,
  setUp: (cluster: MiniCluster) => void = () => {},
): { cluster: MiniCluster; result: MiniClusterResult } {
  const cluster = new MiniCluster({ ...options, streamGraph: graph });
  setUp(cluster);
  return { cluster, result: cluster.run() };
}
