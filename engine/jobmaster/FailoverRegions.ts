/**
 * Pipelined regions: the connected components of the ExecutionVertex graph, where every
 * (pipelined) edge joins producer and consumer. An all-to-all edge (hash, rebalance, broadcast)
 * joins every subtask of both vertices; a forward edge joins subtask i with subtask i. A streaming
 * job with a shuffle is therefore one region.
 *
 * @see org.apache.flink.runtime.executiongraph.failover.RestartPipelinedRegionFailoverStrategy,
 *      SchedulingPipelinedRegionComputeUtil
 */
import type { JobGraph } from '../jobgraph/JobGraph.ts';

/** Region id for each `<vertex>#<subtask>` name; region ids are the smallest member's order. */
export function computePipelinedRegions(graph: JobGraph): Map<string, number> {
  const names: string[] = [];
  for (const v of graph.vertices) for (let i = 0; i < v.parallelism; i++) names.push(`${v.id}#${i}`);
  const parent = names.map((_n, i) => i);
  const index = new Map(names.map((n, i) => [n, i]));
  const find = (i: number): number => {
    let r = i;
    while (parent[r] !== r) r = parent[r] ?? r;
    return r;
  };
  const union = (a: string, b: string) => {
    const ra = find(index.get(a) ?? 0);
    const rb = find(index.get(b) ?? 0);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  };
  for (const e of graph.edges) {
    const s = graph.vertices.find((v) => v.id === e.source);
    const t = graph.vertices.find((v) => v.id === e.target);
    if (s === undefined || t === undefined) continue;
    if (e.partitioner === 'forward') {
      for (let i = 0; i < Math.min(s.parallelism, t.parallelism); i++) union(`${s.id}#${i}`, `${t.id}#${i}`);
    } else {
      for (let i = 0; i < s.parallelism; i++) for (let j = 0; j < t.parallelism; j++) union(`${s.id}#${i}`, `${t.id}#${j}`);
    }
  }
  return new Map(names.map((n, i) => [n, find(i)]));
}
