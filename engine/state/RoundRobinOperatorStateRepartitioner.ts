/**
 * Redistributes operator (non-keyed) state handles from `oldParallelism` subtasks to
 * `newParallelism` subtasks, as Flink's round-robin repartitioner does (reference 4.3):
 *
 * - Same parallelism: the lists come back unchanged unless there is UNION state or BROADCAST
 *   state that only some subtasks reported; then each subtask keeps its own handles, UNION
 *   entries are added to every subtask, and the partly reported BROADCAST entries are re-spread
 *   (new subtask i takes reported entry `i mod reportedCount`).
 * - Changed parallelism: per SPLIT_DISTRIBUTE name (names in Java HashMap order), all elements in
 *   old-subtask-then-handle order are cut into `newParallelism` contiguous chunks of
 *   `total / newP`, the first `total % newP` chunks, counted from a rotating start subtask, one
 *   larger; the next name starts at the first subtask that got no extra element. UNION entries
 *   go to every subtask; BROADCAST entry `i mod count` goes to new subtask i.
 * - Pieces of the same file landing on one subtask merge into one handle.
 *
 * @see org.apache.flink.runtime.checkpoint.RoundRobinOperatorStateRepartitioner
 *
 * Invariants (checked by the tests): split elements are neither lost nor duplicated; union
 * entries appear newP times; when parallelism changes, split loads differ by at most one.
 * Output order: Flink's order of handles inside a subtask is HashMap order and meaningless; here
 * a subtask's handles follow the first appearance of their file in the old lists, which is
 * deterministic.
 */
import { assert } from '../util/assert.ts';
import { javaHashMapKeyOrder } from './javaHashMapKeyOrder.ts';
import type {
  OperatorStateHandle, OperatorStateMode, StateMetaInfo,
} from './OperatorStateHandle.ts';

/** One state entry of one old handle, with the subtask that reported it. */
interface Located<E> {
  readonly handleId: string;
  readonly subtask: number;
  readonly meta: StateMetaInfo<E>;
}

/** Per new subtask: file id -> (state name -> meta), insertion-ordered. */
type MergeMap<E> = Map<string, Map<string, StateMetaInfo<E>>>;

/** The round-robin operator state repartitioner; stateless. */
export class RoundRobinOperatorStateRepartitioner {
  /** A shared instance (the class holds no state). */
  static readonly INSTANCE = new RoundRobinOperatorStateRepartitioner();

  /**
   * Repartitions `previous` (one list of handles per old subtask, `previous.length ===
   * oldParallelism`) for `newParallelism` subtasks.
   * @returns one list of handles per new subtask; with unchanged parallelism and nothing to
   *   re-spread, copies of the old lists holding the very same handles.
   * @throws AssertionError when `previous.length !== oldParallelism` or a parallelism is < 1.
   */
  repartitionState<E>(
    previous: readonly (readonly OperatorStateHandle<E>[])[],
    oldParallelism: number,
    newParallelism: number,
  ): OperatorStateHandle<E>[][] {
    assert(Number.isInteger(newParallelism) && newParallelism > 0,
      () => `new parallelism must be positive: ${newParallelism}`);
    assert(previous.length === oldParallelism,
      () => `${previous.length} old subtask lists for old parallelism ${oldParallelism}`);
    if (newParallelism === oldParallelism && onlySplitDistribute(previous)) {
      // No UNION and no BROADCAST entry: nothing to add or re-spread (the usual restore).
      return previous.map((handles) => handles.slice());
    }
    const fileOrder = firstAppearance(previous);
    let merge: MergeMap<E>[];
    if (newParallelism === oldParallelism) {
      const union = collect(previous, 'UNION');
      const broadcast = collect(previous, 'BROADCAST');
      const partlyReported = new Map([...broadcast].filter(([, located]) =>
        new Set(located.map((l) => l.subtask)).size < oldParallelism));
      if (union.size === 0 && partlyReported.size === 0) {
        return previous.map((handles) => handles.slice());
      }
      merge = previous.map((handles) => {
        const m: MergeMap<E> = new Map();
        for (const h of handles) {
          m.set(h.handleId, new Map(h.states));
        }
        return m;
      });
      addUnion(union, merge);
      addBroadcast(partlyReported, merge);
    } else {
      merge = Array.from({ length: newParallelism }, (): MergeMap<E> => new Map());
      distributeSplit(collect(previous, 'SPLIT_DISTRIBUTE'), merge);
      addUnion(collect(previous, 'UNION'), merge);
      addBroadcast(collect(previous, 'BROADCAST'), merge);
    }
    return merge.map((m) => toHandles(m, fileOrder));
  }
}

/** True when every state entry of every old handle is SPLIT_DISTRIBUTE. */
function onlySplitDistribute<E>(previous: readonly (readonly OperatorStateHandle<E>[])[]): boolean {
  for (const handles of previous) {
    for (const h of handles) {
      for (const meta of h.states.values()) if (meta.mode !== 'SPLIT_DISTRIBUTE') return false;
    }
  }
  return true;
}

/** File id -> index of its first appearance over all old subtasks and their handle lists. */
function firstAppearance<E>(previous: readonly (readonly OperatorStateHandle<E>[])[]):
  Map<string, number> {
  const order = new Map<string, number>();
  for (const handles of previous) {
    for (const h of handles) {
      if (!order.has(h.handleId)) {
        order.set(h.handleId, order.size);
      }
    }
  }
  return order;
}

/**
 * The entries of `mode`, per state name, in old-subtask-then-handle order; names in the order a
 * Java HashMap filled in that same order iterates them.
 */
function collect<E>(
  previous: readonly (readonly OperatorStateHandle<E>[])[],
  mode: OperatorStateMode,
): Map<string, Located<E>[]> {
  const byName = new Map<string, Located<E>[]>();
  previous.forEach((handles, subtask) => {
    for (const h of handles) {
      for (const [name, meta] of h.states) {
        if (meta.mode !== mode) {
          continue;
        }
        let located = byName.get(name);
        if (located === undefined) {
          located = [];
          byName.set(name, located);
        }
        located.push({ handleId: h.handleId, subtask, meta });
      }
    }
  });
  const ordered = new Map<string, Located<E>[]>();
  for (const name of javaHashMapKeyOrder(byName.keys())) {
    ordered.set(name, byName.get(name) as Located<E>[]);
  }
  return ordered;
}

function put<E>(merge: MergeMap<E>, handleId: string, name: string, meta: StateMetaInfo<E>): void {
  let states = merge.get(handleId);
  if (states === undefined) {
    states = new Map();
    merge.set(handleId, states);
  }
  states.set(name, meta);
}

/** SPLIT_DISTRIBUTE: contiguous chunks with a rotating start; see the file comment. */
function distributeSplit<E>(byName: Map<string, Located<E>[]>, merge: MergeMap<E>[]): void {
  const newParallelism = merge.length;
  let start = 0;
  for (const [name, located] of byName) {
    const total = located.reduce((n, l) => n + l.meta.elements.length, 0);
    const base = Math.floor(total / newParallelism);
    let remainder = total % newParallelism;
    let nextStart = start;
    let entryIdx = 0;
    let elementIdx = 0;
    for (let i = 0; i < newParallelism; i++) {
      const subtask = (i + start) % newParallelism;
      let toAssign = base;
      if (remainder > 0) {
        toAssign++;
        remainder--;
      } else if (remainder === 0) {
        nextStart = subtask;
        remainder--;
      }
      // Take `toAssign` elements from the cursor. An entry reached with elements left to assign
      // is taken even when it has no elements, so empty lists travel along as Flink's do.
      while (toAssign > 0) {
        const entry = located[entryIdx] as Located<E>;
        const elements = entry.meta.elements;
        const available = elements.length - elementIdx;
        let piece: readonly E[];
        if (available > toAssign) {
          piece = elements.slice(elementIdx, elementIdx + toAssign);
          elementIdx += toAssign;
        } else {
          piece = elements.slice(elementIdx);
          elementIdx = 0;
          entryIdx++;
        }
        toAssign -= available;
        put(merge[subtask] as MergeMap<E>, entry.handleId, name,
          Object.freeze({ mode: 'SPLIT_DISTRIBUTE', elements: Object.freeze(piece) }));
      }
    }
    start = nextStart;
  }
}

/** UNION: every subtask gets every entry. */
function addUnion<E>(byName: Map<string, Located<E>[]>, merge: MergeMap<E>[]): void {
  for (const m of merge) {
    for (const [name, located] of byName) {
      for (const l of located) {
        put(m, l.handleId, name, l.meta);
      }
    }
  }
}

/** BROADCAST: new subtask i gets entry `i mod count` of each name. */
function addBroadcast<E>(byName: Map<string, Located<E>[]>, merge: MergeMap<E>[]): void {
  merge.forEach((m, i) => {
    for (const [name, located] of byName) {
      const l = located[i % located.length] as Located<E>;
      put(m, l.handleId, name, l.meta);
    }
  });
}

function toHandles<E>(merge: MergeMap<E>, fileOrder: Map<string, number>):
  OperatorStateHandle<E>[] {
  return [...merge]
    .sort(([a], [b]) => (fileOrder.get(a) ?? 0) - (fileOrder.get(b) ?? 0))
    .map(([handleId, states]) => Object.freeze({ handleId, states }));
}
