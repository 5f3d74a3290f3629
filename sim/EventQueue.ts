/**
 * EventQueue: the sim's one queue of events, a binary min-heap ordered by (dueUs, priority, seq).
 *
 * An entry is a *lane* (an executor, an RPC link direction, a data connection direction, or a
 * one-shot timer) that sits in the heap at most once, keyed by its next event. Lanes keep their
 * own FIFO and re-enter the heap after each event, so events of one lane are never reordered.
 * When several lanes are due at the same instant and priority, which runs next is an ORDER
 * decision (alternative j picks the j-th candidate, candidates in seq order); the common case of
 * one ready lane makes no decision.
 *
 * Invariants: `heapIndex` is the entry's position in the heap, or -1 when not queued; keys are
 * unique (seq grows), so the order is total.
 */
import { assert } from '../engine/api/index.ts';

/** Spacing of priorities inside the combined key; seq stays below it. */
const PRIORITY_STRIDE = 2 ** 44;

/** Something that can sit in the queue: one lane's next event. */
export abstract class QueueEntry {
  // The fields are declared and assigned in the constructor rather than initialized as class
  // fields: one field initializer shared by every kind of lane defines properties on many
  // object shapes, which V8 does on a slow path; plain assignments stay fast, and timers and
  // one-shot entries are created per event.
  /** Due time of the lane's next event, virtual µs. */
  declare dueUs: number;
  /** priority * 2^44 + seq: the tie-break after `dueUs`. */
  declare key: number;
  /** Position in the heap, -1 when not queued. */
  declare heapIndex: number;

  constructor() {
    this.dueUs = 0;
    this.key = 0;
    this.heapIndex = -1;
  }

  /** Runs the lane's next event (the queue has already removed the entry). */
  abstract fire(): void;
}

/** Priority of sim-level actions (faults at a time): before engine events at the same instant. */
export const PRIORITY_SIM = 0;
/** Priority of everything else. */
export const PRIORITY_NORMAL = 1;

export class EventQueue {
  private readonly heap: QueueEntry[] = [];
  private seq = 0;

  /** `chooseOrder(n)` takes the order decision among `n` >= 2 ready entries. */
  constructor(private readonly chooseOrder: (n: number) => number) {}

  /** Number of queued entries. */
  get size(): number {
    return this.heap.length;
  }

  /** Due time of the next entry, or +Infinity when empty. */
  peekDueUs(): number {
    const top = this.heap[0];
    return top === undefined ? Number.POSITIVE_INFINITY : top.dueUs;
  }

  /**
   * Queues `entry` at `dueUs` with `priority` (0..255, lower first).
   * @throws AssertionError if the entry is already queued.
   */
  push(entry: QueueEntry, dueUs: number, priority: number = PRIORITY_NORMAL): void {
    if (entry.heapIndex >= 0) assert(false, 'entry is already queued');
    entry.dueUs = dueUs;
    entry.key = priority * PRIORITY_STRIDE + this.seq++;
    const heap = this.heap;
    entry.heapIndex = heap.length;
    heap.push(entry);
    this.siftUp(entry.heapIndex);
  }

  /** Removes `entry` if queued; otherwise does nothing. */
  remove(entry: QueueEntry): void {
    const i = entry.heapIndex;
    if (i < 0) return;
    const heap = this.heap;
    const last = heap.pop() as QueueEntry;
    entry.heapIndex = -1;
    if (last === entry) return;
    heap[i] = last;
    last.heapIndex = i;
    this.siftDown(i);
    this.siftUp(last.heapIndex);
  }

  /**
   * Removes and returns the next entry; among several due at the same instant and priority the
   * order decision picks one (the others stay queued with their keys). Undefined when empty.
   */
  pop(): QueueEntry | undefined {
    const heap = this.heap;
    const top = heap[0];
    if (top === undefined) return undefined;
    this.removeTop();
    const next = heap[0];
    if (next === undefined || next.dueUs !== top.dueUs || !samePriority(next, top)) return top;
    return this.chooseAmongTies(top);
  }

  private chooseAmongTies(top: QueueEntry): QueueEntry {
    const heap = this.heap;
    const ties: QueueEntry[] = [top];
    for (;;) {
      const n = heap[0];
      if (n === undefined || n.dueUs !== top.dueUs || !samePriority(n, top)) break;
      this.removeTop();
      ties.push(n);
    }
    const j = this.chooseOrder(ties.length);
    const chosen = ties[j];
    assert(chosen !== undefined, `order decision out of range: ${j} of ${ties.length}`);
    for (let i = 0; i < ties.length; i++) {
      if (i === j) continue;
      const e = ties[i] as QueueEntry;
      e.heapIndex = heap.length;
      heap.push(e);
      this.siftUp(e.heapIndex);
    }
    return chosen;
  }

  private removeTop(): void {
    const heap = this.heap;
    const top = heap[0] as QueueEntry;
    const last = heap.pop() as QueueEntry;
    top.heapIndex = -1;
    if (last !== top) {
      heap[0] = last;
      last.heapIndex = 0;
      this.siftDown(0);
    }
  }

  private siftUp(start: number): void {
    const heap = this.heap;
    const e = heap[start] as QueueEntry;
    let i = start;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pe = heap[p] as QueueEntry;
      if (pe.dueUs < e.dueUs || (pe.dueUs === e.dueUs && pe.key < e.key)) break;
      heap[i] = pe;
      pe.heapIndex = i;
      i = p;
    }
    heap[i] = e;
    e.heapIndex = i;
  }

  private siftDown(start: number): void {
    const heap = this.heap;
    const n = heap.length;
    const e = heap[start] as QueueEntry;
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      let ce = heap[l] as QueueEntry;
      if (r < n) {
        const re = heap[r] as QueueEntry;
        if (re.dueUs < ce.dueUs || (re.dueUs === ce.dueUs && re.key < ce.key)) {
          c = r;
          ce = re;
        }
      }
      if (e.dueUs < ce.dueUs || (e.dueUs === ce.dueUs && e.key < ce.key)) break;
      heap[i] = ce;
      ce.heapIndex = i;
      i = c;
    }
    heap[i] = e;
    e.heapIndex = i;
  }
}

function samePriority(a: QueueEntry, b: QueueEntry): boolean {
  return Math.floor(a.key / PRIORITY_STRIDE) === Math.floor(b.key / PRIORITY_STRIDE);
}

/** A one-shot lane running one closure (a store operation, a sim-level action). */
export class OneShotEntry extends QueueEntry {
  constructor(private readonly run: () => void) {
    super();
  }

  fire(): void {
    this.run();
  }
}
