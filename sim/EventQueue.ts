/**
 * EventQueue: the sim's one queue of events, a binary min-heap ordered by (dueUs, priority, seq).
 *
 * An entry is a *lane* (an executor, an RPC link direction, a data connection direction, or a
 * one-shot timer) that sits in the heap at most once, keyed by its next event. Lanes keep their
 * own FIFO and re-enter the heap after each event, so events of one lane are never reordered.
 * When several lanes are due at the same instant and priority, which runs next is an ORDER
 * decision (alternative j picks the j-th candidate, candidates in seq order); the common case of
 * one ready lane makes no decision. The chooser sees the candidates (a PCT schedule ranks them by
 * their lanes, PctScheduler.ts).
 *
 * Invariants: `heapIndex` is the entry's position in the heap, or -1 when not queued; keys are
 * unique (seq grows), so the order is total.
 */
import { harnessAssert } from './harnessAssert.ts';

/** Spacing of priorities inside the combined key; seq stays below it. */
const PRIORITY_STRIDE = 2 ** 44;

/**
 * Where an entry sits in the heap: one object of one class per entry, so that the heap, which
 * moves many entries per push and pop, writes positions through a monomorphic store. Lanes are
 * instances of many classes (executors, timers, RPC links, data lanes, one-shots); writing a
 * field on the lane itself at every sift step was a megamorphic store, most of the queue's cost.
 */
export class QueueSlot {
  /** Position in the heap, -1 when not queued. */
  index = -1;

  constructor(readonly entry: QueueEntry) {}
}

/** Something that can sit in the queue: one lane's next event. */
export abstract class QueueEntry {
  // The field is declared and assigned in the constructor rather than initialized as a class
  // field: one field initializer shared by every kind of lane defines properties on many
  // object shapes, which V8 does on a slow path; plain assignments stay fast, and timers and
  // one-shot entries are created per event.
  /** The entry's place in the heap (read by the queue, which owns it). */
  declare readonly slot: QueueSlot;

  constructor() {
    (this as { slot: QueueSlot }).slot = new QueueSlot(this);
  }

  /** Position in the heap, -1 when not queued. */
  get heapIndex(): number {
    return this.slot.index;
  }

  /** Runs the lane's next event (the queue has already removed the entry). */
  abstract fire(): void;

  /**
   * The lane's name for a priority schedule (PctScheduler.ts): stable for the lane's life and
   * the same in every run of the same spec, e.g. `exec:taskmanager-1/main`. Read only at order
   * decisions of a PCT run.
   */
  abstract laneKey(): string;
}

/** The candidates of one order decision, `0..n-1` in seq order (valid only during the decision). */
export interface TieCandidates {
  candidate(j: number): QueueEntry;
}

/** Priority of sim-level actions (faults at a time): before engine events at the same instant. */
export const PRIORITY_SIM = 0;
/** Priority of everything else. */
export const PRIORITY_NORMAL = 1;

export class EventQueue {
  // The heap is three parallel arrays indexed by heap position: the entries' slots, their due
  // times (virtual µs) and their tie-break keys (priority * 2^44 + seq). Reading a due time off
  // an entry would be a megamorphic property load (lanes are of many classes), several times
  // slower than reading a packed array of doubles; sifting compares only through the arrays and
  // writes a moved entry's position into its slot, whose class is always the same.
  private readonly slots: QueueSlot[] = [];
  private readonly dues: number[] = [];
  private readonly keys: number[] = [];
  /** Scratch space of {@link chooseAmongTies}: heap positions of tied entries. */
  private readonly tieIndexes: number[] = [];
  /** How many of {@link tieIndexes} the decision under way has (0 outside one). */
  private tieCount = 0;
  /** The view of the tied entries the chooser gets (one object, no allocation per decision). */
  private readonly ties: TieCandidates = {
    candidate: (j) => {
      if (!(Number.isInteger(j) && j >= 0 && j < this.tieCount)) harnessAssert(false, `no tie candidate ${j} of ${this.tieCount}`);
      return (this.slots[this.tieIndexes[j] as number] as QueueSlot).entry;
    },
  };
  private seq = 0;

  /**
   * `chooseOrder(n, candidates)` takes the order decision among `n` >= 2 ready entries, which
   * `candidates` shows in seq order, and returns the index of the one to run.
   */
  constructor(private readonly chooseOrder: (n: number, candidates: TieCandidates) => number) {}

  /** Number of queued entries. */
  get size(): number {
    return this.slots.length;
  }

  /**
   * Every queued entry, in no particular order; a copy, so the caller may remove entries while
   * going through it.
   */
  entries(): QueueEntry[] {
    return this.slots.map((s) => s.entry);
  }

  /** Due time of the next entry, or +Infinity when empty. */
  peekDueUs(): number {
    return this.slots.length === 0 ? Number.POSITIVE_INFINITY : (this.dues[0] as number);
  }

  /**
   * Queues `entry` at `dueUs` with `priority` (0..255, lower first).
   * @throws HarnessAssertionError if the entry is already queued.
   */
  push(entry: QueueEntry, dueUs: number, priority: number = PRIORITY_NORMAL): void {
    const slot = entry.slot;
    if (slot.index >= 0) harnessAssert(false, 'entry is already queued');
    const i = this.slots.length;
    this.slots.push(slot);
    this.dues.push(dueUs);
    this.keys.push(priority * PRIORITY_STRIDE + this.seq++);
    slot.index = i;
    this.siftUp(i);
  }

  /** Removes `entry` if queued; otherwise does nothing. */
  remove(entry: QueueEntry): void {
    const slot = entry.slot;
    const i = slot.index;
    if (i < 0) return;
    slot.index = -1;
    const last = this.slots.length - 1;
    if (i !== last) this.moveLastTo(i);
    this.slots.pop();
    this.dues.pop();
    this.keys.pop();
    if (i !== last) {
      this.siftDown(i);
      this.siftUp(i);
    }
  }

  /**
   * Removes and returns the next entry; among several due at the same instant and priority the
   * order decision picks one (the others stay queued with their keys). Undefined when empty.
   * The returned entry was due at {@link peekDueUs} as read just before.
   */
  pop(): QueueEntry | undefined {
    const slots = this.slots;
    if (slots.length === 0) return undefined;
    const top = slots[0] as QueueSlot;
    if (slots.length > 1 && this.tiesWithTop()) return this.chooseAmongTies();
    this.removeTop();
    return top.entry;
  }

  /** Whether the entry after the top (one of its children) is due with it at its priority. */
  private tiesWithTop(): boolean {
    const dues = this.dues;
    const keys = this.keys;
    const due = dues[0] as number;
    const priority = Math.floor((keys[0] as number) / PRIORITY_STRIDE);
    const n = dues.length;
    // The second smallest entry is a child of the root.
    return (dues[1] === due && Math.floor((keys[1] as number) / PRIORITY_STRIDE) === priority)
      || (n > 2 && dues[2] === due && Math.floor((keys[2] as number) / PRIORITY_STRIDE) === priority);
  }

  /** Several entries are due at the top's instant and priority: take an order decision. */
  private chooseAmongTies(): QueueEntry {
    // The entries due at the top's instant and priority form a subtree at the root (a heap puts
    // every entry after its parent), so a walk from the root that stops at later entries finds
    // them without taking them off the heap. Sorted by key (ascending seq), the j-th is chosen
    // and only it leaves the heap; the others stay where they are, with their keys. Ties are
    // common (every instant where two lanes are due together) and usually two or three.
    const dues = this.dues;
    const keys = this.keys;
    const n = dues.length;
    const at = this.tieIndexes;
    const due = dues[0] as number;
    const priority = Math.floor((keys[0] as number) / PRIORITY_STRIDE);
    at[0] = 0;
    let count = 1;
    for (let k = 0; k < count; k++) {
      const l = 2 * (at[k] as number) + 1;
      for (let c = l; c <= l + 1 && c < n; c++) {
        if (dues[c] === due && Math.floor((keys[c] as number) / PRIORITY_STRIDE) === priority) at[count++] = c;
      }
    }
    // Insertion sort by key: a handful of entries, keys unique.
    for (let i = 1; i < count; i++) {
      const x = at[i] as number;
      const kx = keys[x] as number;
      let j = i - 1;
      while (j >= 0 && (keys[at[j] as number] as number) > kx) {
        at[j + 1] = at[j] as number;
        j--;
      }
      at[j + 1] = x;
    }
    this.tieCount = count;
    const j = this.chooseOrder(count, this.ties);
    this.tieCount = 0;
    if (!(Number.isInteger(j) && j >= 0 && j < count)) {
      harnessAssert(false, `order decision out of range: ${j} of ${count}`);
    }
    const chosen = (this.slots[at[j] as number] as QueueSlot).entry;
    this.remove(chosen);
    return chosen;
  }

  private removeTop(): void {
    const slots = this.slots;
    (slots[0] as QueueSlot).index = -1;
    const last = slots.length - 1;
    if (last > 0) this.moveLastTo(0);
    slots.pop();
    this.dues.pop();
    this.keys.pop();
    if (last > 1) this.siftDown(0);
  }

  /** Copies the last heap slot over slot `i` (the caller then drops the last slot). */
  private moveLastTo(i: number): void {
    const last = this.slots.length - 1;
    const e = this.slots[last] as QueueSlot;
    this.slots[i] = e;
    this.dues[i] = this.dues[last] as number;
    this.keys[i] = this.keys[last] as number;
    e.index = i;
  }

  // The sift functions take a position only: keys above 2^31 are doubles, and passing doubles
  // between functions would box each one in a heap number.

  /** Moves the entry at `start` up to its place. */
  private siftUp(start: number): void {
    const slots = this.slots;
    const dues = this.dues;
    const keys = this.keys;
    const e = slots[start] as QueueSlot;
    const due = dues[start] as number;
    const key = keys[start] as number;
    let i = start;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pd = dues[p] as number;
      if (pd < due || (pd === due && (keys[p] as number) < key)) break;
      const pe = slots[p] as QueueSlot;
      slots[i] = pe;
      dues[i] = pd;
      keys[i] = keys[p] as number;
      pe.index = i;
      i = p;
    }
    if (i === start) return;
    slots[i] = e;
    dues[i] = due;
    keys[i] = key;
    e.index = i;
  }

  /** Moves the entry at `start` down to its place. */
  private siftDown(start: number): void {
    const slots = this.slots;
    const dues = this.dues;
    const keys = this.keys;
    const n = slots.length;
    const e = slots[start] as QueueSlot;
    const due = dues[start] as number;
    const key = keys[start] as number;
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      let cd = dues[l] as number;
      let ck = keys[l] as number;
      if (r < n) {
        const rd = dues[r] as number;
        const rk = keys[r] as number;
        if (rd < cd || (rd === cd && rk < ck)) {
          c = r;
          cd = rd;
          ck = rk;
        }
      }
      if (due < cd || (due === cd && key < ck)) break;
      const ce = slots[c] as QueueSlot;
      slots[i] = ce;
      dues[i] = cd;
      keys[i] = ck;
      ce.index = i;
      i = c;
    }
    if (i === start) return;
    slots[i] = e;
    dues[i] = due;
    keys[i] = key;
    e.index = i;
  }
}

/** A one-shot lane running one closure (a store operation, a sim-level action). */
export class OneShotEntry extends QueueEntry {
  /**
   * @param run what to do when due.
   * @param cause the trace's current cause to restore when it runs (Trace.ts, cause links);
   *   -1 for none.
   */
  constructor(
    private readonly run: () => void,
    private readonly cause: number = -1,
    private readonly trace?: { cause: number },
    /** Its lane's name for a priority schedule (see {@link QueueEntry.laneKey}). */
    private readonly lane = 'one-shot',
  ) {
    super();
  }

  fire(): void {
    if (this.trace !== undefined) this.trace.cause = this.cause;
    this.run();
  }

  laneKey(): string {
    return this.lane;
  }
}
