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

export interface Tracer {
  /** Records one event of `type` (dotted, e.g. `checkpoint.triggered`). */
  event(type: string, attrs?: TraceAttrs): void;
  /** Records that situation `name` was reached (ORACLES.md 9). */
  mark(name: string, attrs?: TraceAttrs): void;
}
