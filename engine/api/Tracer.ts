/**
 * The trace port. The engine records what it does as typed events; the sim stamps each with the
 * virtual time and the host, appends it to the trace and folds it into the trace hash (so a
 * changed interleaving changes the hash). Protocol-point faults ("crash when checkpoint 3 is
 * aligned on map#1") are matched against these events, and take effect right after the task
 * that recorded the event.
 *
 * Marks are the "sometimes" situations of ORACLES.md 9: suites assert that the marks they target
 * were reached.
 */

/** Flat attributes of one event: primitives only, so traces serialise and hash cheaply. */
export type TraceAttrs = Readonly<Record<string, string | number | boolean | null>>;

/**
 * An event's reference in the trace (its `seq`), for cause links: the sim records, for each
 * event, the event that caused it (by default, the one behind the work being done now: an RPC's
 * delivery is caused by its send, a timer's task by what scheduled it). {@link NO_EVENT} when
 * there is none, or when the tracer keeps no references (a unit test's tracer).
 */
export type EventRef = number;

/** No event: a root cause, or a tracer that keeps no references. */
export const NO_EVENT: EventRef = -1;

export interface Tracer {
  /**
   * Records one event of `type` (dotted, e.g. `checkpoint.triggered`), caused by `cause` when
   * given (else by the work being done now). Returns the event's reference.
   */
  event(type: string, attrs?: TraceAttrs, cause?: EventRef): EventRef;
  /** Records that situation `name` was reached (ORACLES.md 9). */
  mark(name: string, attrs?: TraceAttrs): void;
  /**
   * Says that the rest of the work being done now is caused by event `cause`, where the engine
   * knows better than the order of work: a redeploy runs when the last old attempt is gone, but
   * it is the failover's doing (DefaultScheduler). {@link NO_EVENT} changes nothing.
   */
  causedBy(cause: EventRef): void;
  /**
   * The event behind the work being done now (what a new event would be caused by), so that work
   * the engine queues itself, outside the sim's lanes (a mail in a task's mailbox), can be run with
   * it later ({@link causedBy}). {@link NO_EVENT} for a tracer that keeps no references.
   */
  current(): EventRef;
}
