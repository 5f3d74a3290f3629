/**
 * The exactly-once event valve of one subtask gateway (reference 1.6): while a coordinator
 * checkpoint is between "coordinator snapshot done" and that subtask's AcknowledgeCheckpointEvent
 * (or the checkpoint's completion or abort), new events to the subtask are held back, so an event
 * the coordinator sent after its snapshot can never reach the task before the task's own snapshot.
 * It also tracks events in flight, because a coordinator checkpoint must wait until every event
 * sent before it was received.
 *
 * A valve lives as long as the gateway it belongs to: the holder replaces it with a fresh one on
 * a reset (Flink sets up a new SubtaskGatewayImpl), so `latestAttemptedCheckpointId` is never
 * lowered. A fresh valve has seen no checkpoint, and opening one for a checkpoint it never marked
 * is refused (returned, not thrown: see {@link openGatewayAndUnmarkCheckpoint}).
 *
 * @see org.apache.flink.runtime.operators.coordination.SubtaskGatewayImpl
 * Invariants: marked ids strictly increase and are at most latestAttemptedCheckpointId; events
 * are held only under closed (marked) ids; held events leave in the order they were sent.
 */
import { assert } from '../util/assert.ts';
import { CompletableFuture } from '../util/CompletableFuture.ts';

interface HeldEvent {
  readonly event: unknown;
  readonly result: CompletableFuture<void>;
}

/**
 * No checkpoint marked yet. Flink's gateway uses Long.MIN_VALUE; checkpoint ids start at 1, so
 * -1 behaves the same and stays a plain number in traces.
 */
const NO_CHECKPOINT = -1;

export class SubtaskEventValve {
  /** Marked, not yet unmarked checkpoint ids, ascending (currentMarkedCheckpointIds). */
  private readonly marked: number[] = [];
  /** Events held per closed id, by ascending id (blockedEventsMap); closed ids are its keys. */
  private readonly held = new Map<number, HeldEvent[]>();
  private latestAttempted = NO_CHECKPOINT;
  private readonly inFlight = new Set<CompletableFuture<void>>();

  constructor(
    readonly subtask: number,
    /** Actually sends an event (an RPC); the future completes when the task accepted it. */
    private readonly send: (event: unknown) => CompletableFuture<void>,
    private readonly onHeld: (checkpointId: number) => void,
    /** False only for the planted FLINK-16986 (the holder's COORDINATOR_EVENTS_BYPASS_VALVE). */
    private readonly holdsEvents = true,
  ) {}

  /** The latest checkpoint ever marked; -1 for a fresh valve. */
  get latestAttemptedCheckpointId(): number {
    return this.latestAttempted;
  }

  /**
   * Marks checkpoint `id` (before the coordinator is asked for its snapshot).
   * @throws AssertionError "Regressing checkpoint IDs" unless `id` is above every id marked
   *   before, as Flink's IllegalStateException (the holder never marks an id twice).
   */
  markForCheckpoint(id: number): void {
    assert(id > this.latestAttempted,
      () => `Regressing checkpoint IDs: ${id} after ${this.latestAttempted}`);
    this.latestAttempted = id;
    this.marked.push(id);
  }

  /** Closes for `id` (the coordinator's snapshot completed); false when `id` is not marked. */
  tryCloseGateway(id: number): boolean {
    if (!this.marked.includes(id)) return false;
    if (!this.held.has(id)) this.insertClosed(id);
    return true;
  }

  /** Sends `event`, or holds it under the latest closed id. Completes when the task accepted it. */
  sendEvent(event: unknown): CompletableFuture<void> {
    const latestClosed = [...this.held.keys()].at(-1);
    if (latestClosed !== undefined && this.holdsEvents) {
      const result = new CompletableFuture<void>();
      (this.held.get(latestClosed) as HeldEvent[]).push({ event, result });
      this.onHeld(latestClosed);
      return result;
    }
    return this.sendNow(event);
  }

  /**
   * Opens for `id` and unmarks it: its held events go out now, or, when an earlier checkpoint is
   * still closed, join that one's list (they were sent after its snapshot too, so they must wait
   * for it). An id no longer marked (already opened, or aborted) is ignored.
   * @returns false, changing nothing, when `id` is above every id this valve ever marked: Flink's
   *   gateway throws IllegalStateException ("Trying to open gateway for unseen checkpoint") there,
   *   which the caller has to model.
   */
  openGatewayAndUnmarkCheckpoint(id: number): boolean {
    if (this.latestAttempted < id) return false;
    const i = this.marked.indexOf(id);
    if (i < 0) return true;
    this.marked.splice(i, 1);
    const events = this.held.get(id);
    if (events === undefined) return true;
    this.held.delete(id);
    const earlierClosed = [...this.held.keys()].filter((c) => c < id).at(-1);
    if (earlierClosed !== undefined) {
      (this.held.get(earlierClosed) as HeldEvent[]).push(...events);
    } else {
      for (const h of events) this.forward(h);
    }
    return true;
  }

  /** Opens the most recently marked checkpoint, if any (abortCurrentTriggering). */
  openGatewayAndUnmarkLastCheckpointIfAny(): void {
    const latest = this.marked.at(-1);
    if (latest !== undefined) this.openGatewayAndUnmarkCheckpoint(latest);
  }

  /**
   * Opens for every checkpoint (a global reset): every held event goes out now, in id order and
   * then in the order sent, through this valve's sender, and nothing stays marked.
   */
  openGatewayAndUnmarkAllCheckpoint(): void {
    const lists = [...this.held.values()];
    this.held.clear();
    this.marked.length = 0;
    for (const list of lists) for (const h of list) this.forward(h);
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
    for (let k = 1; k < this.marked.length; k++) {
      assert((this.marked[k - 1] ?? 0) < (this.marked[k] ?? 0), 'marked ids not ascending');
    }
    const last = this.marked.at(-1);
    assert(last === undefined || last <= this.latestAttempted,
      () => `marked ${String(last)} above the latest attempted ${this.latestAttempted}`);
    let previous = NO_CHECKPOINT;
    for (const id of this.held.keys()) {
      assert(this.marked.includes(id), () => `events held under unmarked id ${id}`);
      assert(id > previous, 'closed ids not ascending');
      previous = id;
    }
  }

  /** Adds closed id `id` with no events, keeping {@link held} in ascending id order. */
  private insertClosed(id: number): void {
    const later = [...this.held].filter(([c]) => c > id);
    for (const [c] of later) this.held.delete(c);
    this.held.set(id, []);
    for (const [c, list] of later) this.held.set(c, list);
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
