/**
 * The exactly-once event valve of one subtask (reference 1.6): while a coordinator checkpoint is
 * between "coordinator snapshot done" and that subtask's AcknowledgeCheckpointEvent (or the
 * checkpoint's completion or abort), new events to the subtask are held back, so an event the
 * coordinator sent after its snapshot can never reach the task before the task's own snapshot.
 * It also tracks events in flight, because a coordinator checkpoint must wait until every event
 * sent before it was received.
 *
 * @see org.apache.flink.runtime.operators.coordination.SubtaskGatewayImpl
 * Invariants: marked ids strictly increase; held events leave in the order they were sent.
 */
import { assert } from '../util/assert.ts';
import { CompletableFuture } from '../util/CompletableFuture.ts';

interface HeldEvent {
  readonly event: unknown;
  readonly result: CompletableFuture<void>;
}

export class SubtaskEventValve {
  /** Marked checkpoint ids, ascending; `closed` says which are closed. */
  private readonly marked: number[] = [];
  private readonly closed = new Set<number>();
  private readonly held = new Map<number, HeldEvent[]>();
  private latestMarked = -1;
  private readonly inFlight = new Set<CompletableFuture<void>>();

  constructor(
    readonly subtask: number,
    /** Actually sends an event (an RPC); the future completes when the task accepted it. */
    private readonly send: (event: unknown) => CompletableFuture<void>,
    private readonly onHeld: (checkpointId: number) => void,
  ) {}

  /** Marks checkpoint `id` (before the coordinator is asked for its snapshot). */
  markForCheckpoint(id: number): void {
    assert(id >= this.latestMarked, () => `Regressing checkpoint IDs: ${id} after ${this.latestMarked}`);
    if (id === this.latestMarked) return;
    this.latestMarked = id;
    this.marked.push(id);
  }

  /** Closes for `id` (the coordinator's snapshot completed). Unmarked ids are ignored. */
  tryCloseGateway(id: number): boolean {
    if (!this.marked.includes(id)) return false;
    this.closed.add(id);
    return true;
  }

  /** Sends or holds `event`. The result completes when the task accepted it. */
  sendEvent(event: unknown): CompletableFuture<void> {
    const latestClosed = [...this.closed].sort((a, b) => a - b).pop();
    if (latestClosed !== undefined) {
      const result = new CompletableFuture<void>();
      const list = this.held.get(latestClosed) ?? [];
      list.push({ event, result });
      this.held.set(latestClosed, list);
      this.onHeld(latestClosed);
      return result;
    }
    return this.sendNow(event);
  }

  /**
   * Opens for `id` and unmarks it: its held events go out now, or, when an earlier checkpoint is
   * still closed, join that one's list (they were sent after its snapshot too, so they must wait
   * for it). Unknown ids are ignored; an id above every marked id throws.
   */
  openGatewayAndUnmarkCheckpoint(id: number): void {
    assert(id <= this.latestMarked || this.marked.length === 0, () => `open of ${id} above the latest marked ${this.latestMarked}`);
    const i = this.marked.indexOf(id);
    if (i < 0) return;
    this.marked.splice(i, 1);
    this.closed.delete(id);
    const events = this.held.get(id) ?? [];
    this.held.delete(id);
    const earlierClosed = [...this.closed].filter((c) => c < id).sort((a, b) => a - b).pop();
    if (earlierClosed !== undefined) {
      this.held.set(earlierClosed, [...(this.held.get(earlierClosed) ?? []), ...events]);
      return;
    }
    for (const h of events) this.forward(h);
  }

  /** Opens the most recently marked checkpoint (abortCurrentTriggering). */
  openLatest(): void {
    const latest = this.marked[this.marked.length - 1];
    if (latest !== undefined) this.openGatewayAndUnmarkCheckpoint(latest);
  }

  /** Forgets everything (reset): held events are dropped with a failure. */
  reset(): void {
    for (const list of this.held.values()) {
      for (const h of list) h.result.completeExceptionally(new Error('event dropped: coordinator reset'));
    }
    this.held.clear();
    this.closed.clear();
    this.marked.length = 0;
  }

  /**
   * Completes when every event sent so far was accepted, including events still held back for an
   * earlier checkpoint; fails if one was not. Called when checkpoint c's valve closes, so it
   * covers exactly the events the coordinator sent before its snapshot for c. Counting the held
   * ones matters when checkpoints overlap (max concurrent > 1): an event held under c-1 goes out
   * only when the subtask acknowledges c-1, and without waiting for it c's trigger could reach the
   * reader first, so c would record the split as assigned while no reader holds it (found by
   * explore; Flink's contract says events sent before the snapshot are acknowledged before it
   * completes).
   */
  eventsInFlightDone(): CompletableFuture<void[]> {
    const held: CompletableFuture<void>[] = [];
    for (const list of this.held.values()) for (const h of list) held.push(h.result);
    return CompletableFuture.allOf([...this.inFlight, ...held]);
  }

  get heldCount(): number {
    let n = 0;
    for (const l of this.held.values()) n += l.length;
    return n;
  }

  checkInvariants(): void {
    for (let k = 1; k < this.marked.length; k++) assert((this.marked[k - 1] ?? 0) < (this.marked[k] ?? 0), 'marked ids not ascending');
    for (const id of this.held.keys()) assert(this.closed.has(id), `events held under open id ${id}`);
  }

  private forward(h: HeldEvent): void {
    this.sendNow(h.event).whenComplete((_v, e) => {
      if (e === undefined) h.result.complete(undefined);
      else h.result.completeExceptionally(e);
    });
  }

  private sendNow(event: unknown): CompletableFuture<void> {
    const f = this.send(event);
    this.inFlight.add(f);
    const done = f.whenComplete(() => this.inFlight.delete(f));
    return done;
  }
}
