/**
 * The engine-assertion check (DESIGN.md exit codes: "an engine assertion or invariant failing"
 * is a counterexample, which shrinks and replays like any other). A run that an assertion of the
 * engine ended (RunResult.engineAssertion: simulate tells it from a harness assertion, see
 * sim/engineAssertion.ts) violates property `engine-assertion`: the summary is the assertion's
 * message, the details its location in the engine, the virtual time and the stack's frames
 * inside the project.
 *
 * Two engine-assertion violations are the same failure only when they were thrown at the same
 * location (or, when the stack named none, with the same message): a shrunk run that trips
 * another assertion found another bug, and explore does not swap one for the other.
 */
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';

/** The property of a run an engine assertion ended. */
export const ENGINE_ASSERTION = 'engine-assertion';

/** What an engine-assertion violation's details hold. */
export interface EngineAssertionDetails {
  /** `<path>:<line>` in the engine, relative to the project; absent if the stack named none. */
  readonly location?: string;
  /** Virtual time of the assertion, ms. */
  readonly timeMs: number;
  /** The stack's frames inside the project, innermost first. */
  readonly stack: readonly string[];
}

/** The violation of a run an engine assertion ended; none for any other run. */
export function engineAssertion(result: RunResult): Violation[] {
  const a = result.engineAssertion;
  if (a === undefined) return [];
  const details: EngineAssertionDetails = {
    ...(a.location === undefined ? {} : { location: a.location }),
    timeMs: a.timeMs,
    stack: a.stack,
  };
  return [{ property: ENGINE_ASSERTION, summary: a.message, details, timeMs: a.timeMs }];
}

/**
 * Whether `b` is the same failure as `a`: the same property and, for engine assertions, the same
 * location (the same message when `a` has none).
 */
export function sameFailure(a: Violation, b: Violation | undefined): boolean {
  if (b === undefined || b.property !== a.property) return false;
  return a.property !== ENGINE_ASSERTION || identity(a) === identity(b);
}

function identity(v: Violation): string {
  const location = (v.details as Partial<EngineAssertionDetails> | undefined)?.location;
  return location === undefined ? `message ${v.summary}` : `at ${location}`;
}
