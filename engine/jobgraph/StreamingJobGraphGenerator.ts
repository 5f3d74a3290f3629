/**
 * Turns a StreamGraph into a JobGraph. A node is chained to its input when chaining is on, it has
 * exactly one input, that input has exactly one output, the edge is `forward` and both have the
 * same parallelism (Flink's isChainable, without slot sharing groups or disabled chaining per
 * operator). Sources start chains.
 *
 * @see org.apache.flink.streaming.api.graph.StreamingJobGraphGenerator
 */
import { toCoordinatorConfiguration } from '../streaming/api/CheckpointConfig.ts';
import type { StreamGraph, StreamNode } from '../streaming/api/StreamGraph.ts';
import type { JobEdge, JobGraph, JobVertex } from './JobGraph.ts';

/** Builds the JobGraph of `graph`. @throws Error for a cyclic graph. */
export function createJobGraph(graph: StreamGraph): JobGraph {
  const inEdges = (id: number) => graph.edges.filter((e) => e.target === id);
  const outEdges = (id: number) => graph.edges.filter((e) => e.source === id);
  const chainedToInput = (n: StreamNode): boolean => {
    if (!graph.chaining || n.spec.kind === 'source') return false;
    const ins = inEdges(n.id);
    if (ins.length !== 1) return false;
    const e = ins[0];
    if (e === undefined || e.partitioner !== 'forward') return false;
    const up = graph.nodes[e.source];
    return up !== undefined && up.parallelism === n.parallelism && outEdges(up.id).length === 1;
  };

  const order = topologicalOrder(graph);
  const chainOf = new Map<number, number[]>(); // head node id -> chain
  const headOf = new Map<number, number>();
  for (const id of order) {
    const n = graph.nodes[id];
    if (n === undefined) continue;
    const ins = inEdges(id);
    const e = ins[0];
    if (chainedToInput(n) && e !== undefined) {
      const head = headOf.get(e.source) ?? e.source;
      headOf.set(id, head);
      chainOf.get(head)?.push(id);
    } else {
      headOf.set(id, id);
      chainOf.set(id, [id]);
    }
  }

  const vertexIdOfHead = new Map<number, string>();
  const vertices: JobVertex[] = [];
  for (const [head, chain] of chainOf) {
    const ops = chain.map((i) => graph.nodes[i]).filter((x): x is StreamNode => x !== undefined);
    const h = ops[0];
    if (h === undefined) continue;
    const id = `v${vertices.length}`;
    vertexIdOfHead.set(head, id);
    vertices.push({
      id,
      name: ops.map((o) => o.name).join(' -> '),
      parallelism: h.parallelism,
      maxParallelism: h.maxParallelism,
      maxParallelismConfigured: h.maxParallelismConfigured,
      operators: ops,
      isSource: h.spec.kind === 'source',
    });
  }

  const edges: JobEdge[] = [];
  for (const e of graph.edges) {
    const sHead = headOf.get(e.source);
    const tHead = headOf.get(e.target);
    if (sHead === undefined || tHead === undefined || tHead !== e.target) continue; // chained
    const source = vertexIdOfHead.get(sHead);
    const target = vertexIdOfHead.get(tHead);
    if (source === undefined || target === undefined) continue;
    const base = { index: edges.length, source, target, partitioner: e.partitioner };
    edges.push(e.keySelector === undefined ? base : { ...base, keySelector: e.keySelector });
  }
  const base = { jobName: graph.jobName, vertices, edges };
  return graph.checkpointing === undefined ? base : { ...base, checkpointing: toCoordinatorConfiguration(graph.checkpointing) };
}

function topologicalOrder(graph: StreamGraph): number[] {
  const indegree = graph.nodes.map((n) => graph.edges.filter((e) => e.target === n.id).length);
  const ready = graph.nodes.filter((n) => indegree[n.id] === 0).map((n) => n.id);
  const order: number[] = [];
  while (ready.length > 0) {
    ready.sort((a, b) => a - b);
    const id = ready.shift() as number;
    order.push(id);
    for (const e of graph.edges) {
      if (e.source !== id) continue;
      const d = (indegree[e.target] ?? 0) - 1;
      indegree[e.target] = d;
      if (d === 0) ready.push(e.target);
    }
  }
  if (order.length !== graph.nodes.length) throw new Error('the stream graph has a cycle');
  return order;
}
