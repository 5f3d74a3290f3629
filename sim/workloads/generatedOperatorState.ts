/**
 * The two operator-state functions generated jobs may hold (generatedJob.ts stage kinds
 * `splitLog` and `splitOwners`). Both run on a pass-through operator (the job API's
 * `passThrough`), which forwards every record unchanged, so their state never reaches the
 * output and the reference fold F treats them as the identity.
 *
 * - {@link splitLog}: split-distribute list state {@link SPLIT_LOG_STATE}: the ids of the splits
 *   whose records this subtask has seen, each added once by the subtask that first sees it (a
 *   subtask restored with an id keeps it and does not add it again; after a scale-in a subtask
 *   may hold an id twice, from two old subtasks).
 * - {@link splitOwners}: union list state {@link SPLIT_OWNERS_STATE} of entries `{ owner }`, the
 *   owner a split id. The ownership rule: **subtask i of parallelism p owns the entries whose
 *   `owner % p === i`**. A subtask adds an entry `{ owner: s }` only for a split s it owns, once,
 *   on the first record of s it sees; on restore it reads the union (every old subtask's entries)
 *   and keeps exactly the entries it owns. The rule deals every entry to one subtask at any
 *   parallelism, so the kept entries over all subtasks are the union, each once: totals are
 *   preserved, and a subtask never holds an entry another subtask owns (so a regional restore of
 *   some subtasks duplicates nothing).
 *
 * Invariants: deterministic; state elements are plain JSON (numbers and `{ owner }` objects).
 */
import type { CheckpointedPassThroughFunction, ListState } from '../../engine/index.ts';

/** The list state of {@link splitLog}. */
export const SPLIT_LOG_STATE = 'splits-seen';
/** The union list state of {@link splitOwners}. */
export const SPLIT_OWNERS_STATE = 'split-owners';

/** An entry of {@link SPLIT_OWNERS_STATE}. */
export interface SplitOwnerEntry {
  readonly owner: number;
}

/** True when subtask `subtaskIndex` of `parallelism` owns `entry` (the rule of the file comment). */
export function ownsSplitEntry(entry: SplitOwnerEntry, subtaskIndex: number, parallelism: number): boolean {
  return entry.owner % parallelism === subtaskIndex;
}

/** A new split-log function (one per subtask); see the file comment. */
export function splitLog(): CheckpointedPassThroughFunction<number> {
  let state: ListState<number> | undefined;
  const seen = new Set<number>();
  return {
    initializeState(ctx) {
      state = ctx.getOperatorStateStore().getListState<number>(SPLIT_LOG_STATE);
      for (const id of state.get()) seen.add(id);
    },
    observe(_value, split) {
      if (seen.has(split)) return;
      seen.add(split);
      state?.add(split);
    },
    snapshotState() {},
  };
}

/** A new split-owners function (one per subtask); see the file comment. */
export function splitOwners(): CheckpointedPassThroughFunction<number> {
  let state: ListState<SplitOwnerEntry> | undefined;
  let subtask = 0;
  let parallelism = 1;
  const held = new Set<number>();
  return {
    initializeState(ctx) {
      subtask = ctx.subtaskIndex;
      parallelism = ctx.parallelism;
      state = ctx.getOperatorStateStore().getUnionListState<SplitOwnerEntry>(SPLIT_OWNERS_STATE);
      // Every entry of the union that this subtask owns, duplicates included: dropping a
      // duplicate here would hide a restore that handed an entry over twice.
      const kept = state.get().filter((e) => ownsSplitEntry(e, subtask, parallelism));
      state.update(kept);
      for (const e of kept) held.add(e.owner);
    },
    observe(_value, split) {
      if (held.has(split) || !ownsSplitEntry({ owner: split }, subtask, parallelism)) return;
      held.add(split);
      state?.add({ owner: split });
    },
    snapshotState() {},
  };
}
