/**
 * Reads a completed checkpoint's source positions `p_s(c)` (ORACLES.md, notation): for every split
 * of every source, the offset of the next record to read. A split held by a reader has its stored
 * offset; a split in the enumerator's unassigned pool has its pool offset (0 unless it came back);
 * a split the enumerator assigned that no reader holds has been read to its end `n_s` (its reader
 * finished it, or finished altogether).
 *
 * Only the engine's decoded, plain view of the checkpoint is read (SourceOperator.decode for the
 * reader state, the enumerator's `{ unassigned, assigned }` JSON); nothing of the engine's
 * restore path runs.
 */
import { SourceOperator } from '../../engine/index.ts';
import type { DecodedCheckpoint, StreamGraph } from '../../engine/index.ts';

/** The enumerator checkpoint as the source coordinator stores it (plain JSON). */
interface EnumeratorStateJson {
  readonly unassigned: readonly { readonly splitId: number; readonly offset: number }[];
  readonly assigned: readonly number[];
}

/** What {@link splitPositions} found. */
export interface SplitPositions {
  /** split id -> p_s(c), for every split of every source of the graph. */
  readonly positions: ReadonlyMap<number, number>;
  /** Contradictions in the stored state (a split held twice, in no state, out of range). */
  readonly problems: readonly string[];
}

/** Split id -> n_s, the number of records of each split of every source. */
export function splitSizes(graph: StreamGraph): Map<number, number> {
  const sizes = new Map<number, number>();
  for (const node of graph.nodes) {
    if (node.spec.kind !== 'source') continue;
    for (const split of node.spec.source.splits) sizes.set(split.id, split.records.length);
  }
  return sizes;
}

/**
 * Decodes `p_s(c)` for every split of `graph` from `checkpoint`; `checkpoint` undefined means a
 * start from nothing (every split at 0). Problems are reported, never thrown; a split with a
 * problem still gets a position (the stored one if any, else 0) so callers can go on.
 */
export function splitPositions(
  checkpoint: DecodedCheckpoint | undefined,
  graph: StreamGraph,
): SplitPositions {
  const positions = new Map<number, number>();
  const problems: string[] = [];
  for (const node of graph.nodes) {
    if (node.spec.kind !== 'source') continue;
    const sizes = new Map(node.spec.source.splits.map((s) => [s.id, s.records.length] as const));
    if (checkpoint === undefined) {
      for (const id of sizes.keys()) positions.set(id, 0);
      continue;
    }
    const held = new Map<number, number>();
    // Object.keys rather than Object.entries: no [key, value] pair is built per entry.
    const subtasks = checkpoint.operators[node.uid] ?? {};
    for (const subtask of Object.keys(subtasks)) {
      const offsets: Record<string, number> = SourceOperator.decode((subtasks[subtask] as { data: unknown }).data);
      for (const split of Object.keys(offsets)) {
        const offset = offsets[split] as number;
        const id = Number(split);
        if (held.has(id)) problems.push(`split ${id} is held by two readers (one is subtask ${subtask})`);
        held.set(id, offset);
      }
    }
    const enumerator = asEnumeratorState(checkpoint.coordinators[node.uid]);
    if (enumerator === undefined) {
      problems.push(`source ${node.uid} has no enumerator state in checkpoint ${checkpoint.checkpointId}`);
    }
    const pooled = new Map((enumerator?.unassigned ?? []).map((s) => [s.splitId, s.offset] as const));
    const assigned = new Set(enumerator?.assigned ?? []);
    for (const [id, size] of sizes) {
      const h = held.get(id);
      const p = pooled.get(id);
      if (h !== undefined && p !== undefined) {
        problems.push(`split ${id} is both held by a reader (at ${h}) and unassigned (at ${p})`);
      }
      let position: number;
      if (h !== undefined) position = h;
      else if (p !== undefined) position = p;
      else if (assigned.has(id)) position = size;
      else {
        problems.push(`split ${id} is in no reader state and not known to the enumerator`);
        position = 0;
      }
      if (!Number.isInteger(position) || position < 0 || position > size) {
        problems.push(`split ${id} has position ${position} outside 0..${size}`);
        position = Math.min(Math.max(0, Math.trunc(position) || 0), size);
      }
      positions.set(id, position);
    }
  }
  return { positions, problems };
}

function asEnumeratorState(value: unknown): EnumeratorStateJson | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as { unassigned?: unknown; assigned?: unknown };
  if (!Array.isArray(v.unassigned) || !Array.isArray(v.assigned)) return undefined;
  return v as EnumeratorStateJson;
}
