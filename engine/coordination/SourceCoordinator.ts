/**
 * The OperatorCoordinator of a FLIP-27 source: it runs the SplitEnumerator, answers reader split
 * requests over coordinator events, tracks assignments per checkpoint (SplitAssignmentTracker) and
 * returns a failed reader's uncheckpointed splits to the enumerator, all as reference 5.3 describes.
 *
 * Threads: as Flink's SourceCoordinator, it owns a single-threaded executor, the coordinator thread
 * (`<run>/coordinator-<uid>`, SourceCoordinatorContext's coordinatorExecutor), and every entry
 * point the holder calls on the JobMaster main thread (start, operator events, the checkpoint
 * snapshot, complete and abort notifications, attempt ready and failed, subtask reset) only queues
 * its work there (runInEventLoop). So a coordinator thread that is busy with enumerator work makes
 * all of these wait, in the order they came. What it sends goes back through the holder's gateways,
 * which hop to the main thread; the snapshot completes its future on this thread and the holder
 * handles that on the main thread too. After {@link close} nothing queued runs any more (Flink
 * shuts the executor down with shutdownNow: queued work is dropped).
 *
 * A coordinator is reset to a checkpoint only before it starts: a global failover replaces the
 * whole coordinator (RecreateOnResetOperatorCoordinator), so an instance is never reset in place.
 *
 * Events to a subtask go through the gateway of its latest ready attempt; while a subtask has no
 * ready gateway (between a failure and the next `executionAttemptReady`) events for it wait in
 * order and are flushed when the gateway arrives. A reset of the subtask drops the waiting events,
 * because the tracker returns their splits to the enumerator. Split requests from an attempt that
 * has failed or been superseded are ignored (the new attempt asks again when it opens).
 * The exactly-once event valve (reference 1.6) sits in front of the gateways, in the
 * OperatorCoordinatorHolder, not here.
 *
 * @see org.apache.flink.runtime.source.coordinator.SourceCoordinator,
 *      org.apache.flink.runtime.source.coordinator.SourceCoordinatorContext,
 *      org.apache.flink.runtime.operators.coordination.RecreateOnResetOperatorCoordinator
 *
 * Invariants: the enumerator's and the tracker's invariants; a ready gateway's attempt is the
 * subtask's latest known attempt; a subtask with a ready gateway has no waiting events.
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { Executor } from '../api/Executor.ts';
import { assert } from '../util/assert.ts';
import type { CompletableFuture } from '../util/CompletableFuture.ts';
import type { OperatorCoordinator, SubtaskGateway } from './OperatorCoordinator.ts';
import {
  addSplitEvent, isSourceEvent, noMoreSplitsEvent, type SourceEvent, type SourceSplit,
} from './SourceEvent.ts';
import { SplitAssignmentTracker } from './SplitAssignmentTracker.ts';
import { SplitEnumerator, type SplitEnumeratorState } from './SplitEnumerator.ts';

/**
 * Planted bug FLINK-20290 (fixed by FLINK-20396): a failed reader's splits go back to the
 * enumerator at its failure, against the latest checkpoint the coordinator was notified of.
 */
export const SPLITS_RETURNED_AT_FAILURE = 'splits-returned-at-failure';

/** A subtask restored to no checkpoint (OperatorCoordinator.NO_CHECKPOINT). */
const NO_CHECKPOINT = -1;

/** Constructor options of {@link SourceCoordinator}. */
export interface SourceCoordinatorOptions {
  /** The JobMaster's environment (tracer, invariants). */
  readonly env: EngineEnv;
  /** The source operator's uid, for traces. */
  readonly operatorUid: string;
  /** Every split id of the source. */
  readonly splitIds: readonly number[];
  /** Number of reader subtasks. */
  readonly parallelism: number;
  /** The coordinator thread (see the file comment); shared by the coordinators that replace this one. */
  readonly executor: Executor;
}

/** The coordinator; see the file comment. */
export class SourceCoordinator implements OperatorCoordinator {
  private readonly env: EngineEnv;
  private readonly uid: string;
  private readonly splitIds: readonly number[];
  private readonly parallelism: number;
  private readonly executor: Executor;
  private enumerator: SplitEnumerator;
  private readonly tracker = new SplitAssignmentTracker();
  private readonly gateways = new Map<number, SubtaskGateway>();
  private readonly waiting = new Map<number, SourceEvent[]>();
  /** Latest attempt number seen ready, per subtask. */
  private readonly latestAttempt = new Map<number, number>();
  /** Highest attempt number reported failed, per subtask. */
  private readonly failedAttempt = new Map<number, number>();
  private started = false;
  private closed = false;
  private unregisterInvariants: (() => void) | undefined;

  constructor(options: SourceCoordinatorOptions) {
    assert(Number.isInteger(options.parallelism) && options.parallelism > 0,
      'bad source parallelism');
    this.env = options.env;
    this.uid = options.operatorUid;
    this.splitIds = [...options.splitIds];
    this.parallelism = options.parallelism;
    this.executor = options.executor;
    this.enumerator = new SplitEnumerator(this.splitIds);
  }

  /**
   * Starts the enumerator, as the first task of the coordinator thread (Flink relies on that
   * thread's order so that every later call finds the enumerator started).
   * @throws AssertionError after close.
   */
  start(): void {
    assert(!this.closed, 'start after close');
    if (this.started) return;
    this.started = true;
    this.runInEventLoop('start-enumerator', () => {
      this.unregisterInvariants = this.env.invariants.register(`source-coordinator/${this.uid}`,
        () => this.checkInvariants());
      this.env.tracer.event('source.coordinator-started', { source: this.uid });
    });
  }

  /**
   * Stops handling anything, at once: work queued on the coordinator thread is dropped when its
   * turn comes, and waiting events are dropped (SourceCoordinatorContext.close shuts the executor
   * down with shutdownNow).
   */
  close(): void {
    this.closed = true;
    this.waiting.clear();
    this.gateways.clear();
    this.unregisterInvariants?.();
    this.unregisterInvariants = undefined;
  }

  /**
   * Handles a reader event. A RequestSplitEvent is answered with one split (recorded in the
   * tracker) or with NoMoreSplitsEvent.
   * @throws AssertionError on an event that is not a reader-to-coordinator source event.
   */
  handleEventFromOperator(subtask: number, attemptNumber: number, event: unknown): void {
    this.checkSubtask(subtask);
    assert(isSourceEvent(event) && event.type === 'RequestSplitEvent',
      () => `unexpected event for source coordinator ${this.uid}: ${JSON.stringify(event)}`);
    this.runInEventLoop('handle-split-request', () => this.handleSplitRequest(subtask, attemptNumber));
  }

  private handleSplitRequest(subtask: number, attemptNumber: number): void {
    if (this.isStale(subtask, attemptNumber)) {
      this.env.tracer.event('source.stale-split-request',
        { source: this.uid, subtask, attempt: attemptNumber });
      return;
    }
    const answer = this.enumerator.handleSplitRequest(subtask);
    if (answer.kind === 'assign') {
      this.tracker.recordSplitAssignment(subtask, [answer.split]);
      this.env.tracer.event('source.split-assigned',
        { source: this.uid, subtask, split: answer.split.splitId, offset: answer.split.offset });
      this.sendToSubtask(subtask, addSplitEvent([answer.split]));
    } else {
      this.env.tracer.event('source.no-more-splits', { source: this.uid, subtask });
      this.sendToSubtask(subtask, noMoreSplitsEvent());
    }
  }

  /**
   * On the coordinator thread: files the assignments made so far under `checkpointId`, then
   * completes `result` there with the enumerator's state ({@link SplitEnumeratorState}). The
   * tracker is not part of the state.
   */
  checkpointCoordinator(checkpointId: number, result: CompletableFuture<unknown>): void {
    this.runInEventLoop('checkpoint-coordinator', () => {
      this.tracker.onCheckpoint(checkpointId);
      const state = this.enumerator.snapshotState();
      this.env.tracer.event('source.coordinator-checkpoint',
        { source: this.uid, checkpoint: checkpointId, unassigned: state.unassigned.length });
      result.complete(state);
    });
  }

  /** On the coordinator thread: drops the tracker's records up to `checkpointId`. */
  notifyCheckpointComplete(checkpointId: number): void {
    this.runInEventLoop('checkpoint-complete', () => {
      this.tracker.onCheckpointComplete(checkpointId);
      this.env.tracer.event('source.coordinator-notified',
        { source: this.uid, checkpoint: checkpointId, notification: 'complete' });
    });
  }

  /**
   * On the coordinator thread, and nothing to do there: assignments stay recorded until a later
   * completion subsumes them.
   */
  notifyCheckpointAborted(checkpointId: number): void {
    this.runInEventLoop('checkpoint-aborted', () => {
      this.env.tracer.event('source.coordinator-notified',
        { source: this.uid, checkpoint: checkpointId, notification: 'aborted' });
    });
  }

  /**
   * Before the start only (Flink: "The coordinator can only be reset if it was not yet started"):
   * a fresh enumerator from `state` (undefined: every split unassigned). A global failover
   * recreates the coordinator and resets the new one (RecreateOnResetOperatorCoordinator).
   * @throws AssertionError once started, or when `state` is not a SplitEnumeratorState of this
   *   source.
   */
  resetToCheckpoint(checkpointId: number, state: unknown): void {
    assert(!this.started && !this.closed, 'The coordinator can only be reset if it was not yet started');
    assert(state === undefined || isEnumeratorState(state),
      () => `bad enumerator state for ${this.uid}: ${JSON.stringify(state)}`);
    this.enumerator = new SplitEnumerator(this.splitIds, state);
    this.env.tracer.event('source.coordinator-reset',
      { source: this.uid, checkpoint: checkpointId });
  }

  /**
   * Regional failover of `subtask`, restored to `checkpointId` (-1: none), on the coordinator
   * thread: the splits assigned to it after that checkpoint go back to the enumerator; events
   * waiting for it are dropped.
   */
  subtaskReset(subtask: number, checkpointId: number): void {
    this.checkSubtask(subtask);
    this.runInEventLoop('subtask-reset', () => this.resetSubtask(subtask, checkpointId));
  }

  private resetSubtask(subtask: number, checkpointId: number): void {
    this.gateways.delete(subtask);
    this.waiting.delete(subtask);
    const splits = this.tracker.getAndRemoveUncheckpointedAssignment(subtask, checkpointId);
    this.env.tracer.event('source.subtask-reset',
      { source: this.uid, subtask, checkpoint: checkpointId, returned: splits.length });
    this.addSplitsBack(subtask, checkpointId, splits);
  }

  /** Hands `splits`, taken from `subtask` (returned against `checkpointId`), back to the enumerator. */
  private addSplitsBack(subtask: number, checkpointId: number, splits: readonly SourceSplit[]): void {
    if (splits.length === 0) return;
    this.enumerator.addSplitsBack(splits, subtask);
    this.env.tracer.mark('splits-returned', {
      source: this.uid, subtask, checkpoint: checkpointId,
      splits: splits.map((s) => s.splitId).join(','),
    });
  }

  /**
   * The attempt failed, on the coordinator thread: its gateway is gone, and its later requests are
   * ignored.
   */
  executionAttemptFailed(subtask: number, attemptNumber: number, _reason: unknown): void {
    this.checkSubtask(subtask);
    this.runInEventLoop('attempt-failed', () => {
      this.failedAttempt.set(subtask, Math.max(attemptNumber, this.failedAttempt.get(subtask) ?? -1));
      if (this.gateways.get(subtask)?.attemptNumber === attemptNumber) this.gateways.delete(subtask);
      // Planted FLINK-20290: Flink before FLINK-20396 returned a failed reader's splits here, at its
      // failure, as everything the tracker still held: whatever was assigned after the latest
      // checkpoint the coordinator had been notified of, not after the checkpoint the reader will
      // restore. A checkpoint that completes (or whose notification is still on its way) by then
      // holds some of those splits in the reader's own state too: they are read twice.
      if (this.env.bugs.has(SPLITS_RETURNED_AT_FAILURE)) {
        this.addSplitsBack(subtask, NO_CHECKPOINT, this.tracker.getAndRemoveUncheckpointedAssignment(subtask, NO_CHECKPOINT));
      }
    });
  }

  /**
   * The attempt can receive events, on the coordinator thread: store its gateway and flush what
   * waits for the subtask.
   * @throws AssertionError (at the call) when the gateway is not of that subtask attempt.
   */
  executionAttemptReady(subtask: number, attemptNumber: number, gateway: SubtaskGateway): void {
    this.checkSubtask(subtask);
    assert(gateway.subtask === subtask && gateway.attemptNumber === attemptNumber,
      'gateway does not match its subtask attempt');
    this.runInEventLoop('attempt-ready', () => this.attemptReady(subtask, attemptNumber, gateway));
  }

  private attemptReady(subtask: number, attemptNumber: number, gateway: SubtaskGateway): void {
    const latest = this.latestAttempt.get(subtask);
    if (latest !== undefined && attemptNumber < latest) return;
    this.latestAttempt.set(subtask, attemptNumber);
    this.gateways.set(subtask, gateway);
    const queued = this.waiting.get(subtask) ?? [];
    this.waiting.delete(subtask);
    for (const event of queued) this.send(gateway, event);
  }

  /** The enumerator's current state (tests, reports). */
  enumeratorState(): SplitEnumeratorState {
    return this.enumerator.snapshotState();
  }

  /** The tracker as plain JSON (tests, reports). */
  trackerState(): ReturnType<SplitAssignmentTracker['toJson']> {
    return this.tracker.toJson();
  }

  /** Asserts the invariants of the file comment. */
  checkInvariants(): void {
    this.enumerator.checkInvariants();
    this.tracker.checkInvariants();
    for (const [subtask, gateway] of this.gateways) {
      assert(gateway.attemptNumber === this.latestAttempt.get(subtask),
        () => `gateway of ${this.uid}#${subtask} is not the latest attempt`);
      assert(!this.waiting.has(subtask),
        () => `events wait for ready subtask ${this.uid}#${subtask}`);
    }
  }

  /**
   * Queues `action` on the coordinator thread (SourceCoordinator.runInEventLoop). It is dropped
   * there if the coordinator has closed meanwhile (the executor's shutdownNow).
   * @throws AssertionError before start, as Flink's ensureStarted.
   */
  private runInEventLoop(label: string, action: () => void): void {
    assert(this.started, () => `source coordinator ${this.uid} has not started yet (${label})`);
    this.executor.execute(label, () => {
      if (!this.closed) action();
    });
  }

  private sendToSubtask(subtask: number, event: SourceEvent): void {
    const gateway = this.gateways.get(subtask);
    if (gateway !== undefined) {
      this.send(gateway, event);
      return;
    }
    const queue = this.waiting.get(subtask) ?? [];
    queue.push(event);
    this.waiting.set(subtask, queue);
    this.env.tracer.event('source.event-waits-for-gateway',
      { source: this.uid, subtask, event: event.type });
  }

  private send(gateway: SubtaskGateway, event: SourceEvent): void {
    // A failed send fails the subtask over (the gateway's holder does that, as Flink's
    // SubtaskGatewayImpl); the split then comes back through subtaskReset.
    gateway.sendEvent(event).exceptionally((error) => {
      this.env.tracer.event('source.event-send-failed', {
        source: this.uid, subtask: gateway.subtask, attempt: gateway.attemptNumber,
        event: event.type, error: error instanceof Error ? error.message : String(error),
      });
    });
  }

  private isStale(subtask: number, attemptNumber: number): boolean {
    const failed = this.failedAttempt.get(subtask);
    const latest = this.latestAttempt.get(subtask);
    return (failed !== undefined && attemptNumber <= failed)
      || (latest !== undefined && attemptNumber < latest);
  }

  private checkSubtask(subtask: number): void {
    assert(Number.isInteger(subtask) && subtask >= 0 && subtask < this.parallelism,
      () => `subtask ${subtask} outside [0, ${this.parallelism}) of ${this.uid}`);
  }
}

function isEnumeratorState(state: unknown): state is SplitEnumeratorState {
  if (typeof state !== 'object' || state === null) return false;
  const s = state as { unassigned?: unknown; assigned?: unknown };
  return Array.isArray(s.unassigned) && Array.isArray(s.assigned);
}
