/**
 * When a run records its keyed operators' inputs (ClusterConfiguration.traceKeyedInputs, the
 * engine's KeyedInputLog): in at-least-once mode, for a graph in which a record can be
 * duplicated downstream of a keyed operator without its state. There the output's duplicates
 * need not be the state's, and the at-least-once oracle judges the state from this evidence
 * (properties/oracles/stateFromEvidence.ts). Other runs do not pay for it: their state is judged
 * from the output's duplicates, or (mode none, aligned) needs no duplicates at all.
 */
import type { StreamGraph } from '../../engine/index.ts';
import type { RunMode } from './RunSpec.ts';

/**
 * True when a record can be duplicated downstream of a keyed operator without its state: some
 * edge that leaves a keyed operator, or anything after one, is not a single-channel (forward)
 * edge. (Such a task with several input channels takes records behind a barrier into its
 * snapshot while the keyed state does not.)
 */
export function duplicatesAfterKeyedState(graph: StreamGraph): boolean {
  const after = new Set<number>(graph.nodes.filter((n) => n.spec.kind === 'keyedProcess').map((n) => n.id));
  let grew = true;
  while (grew) {
    grew = false;
    for (const e of graph.edges) {
      if (after.has(e.source) && !after.has(e.target)) {
        after.add(e.target);
        grew = true;
      }
    }
  }
  return graph.edges.some((e) => after.has(e.source) && e.partitioner !== 'forward');
}

/** Whether a run of `graph` in `mode` traces its keyed operators' inputs (see the file comment). */
export function tracesKeyedInputs(mode: RunMode, graph: StreamGraph): boolean {
  return mode === 'at-least-once' && duplicatesAfterKeyedState(graph);
}
