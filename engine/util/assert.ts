/**
 * Programmer-error assertions. Inside the engine a failed assertion is a counterexample (it
 * shrinks and replays like any property violation); inside the sim or the harness it is a
 * harness failure. The error class lets the harness tell the two apart: the sim's own checks
 * throw HarnessAssertionError (sim/harnessAssert.ts), every other AssertionError is the engine's.
 */

/**
 * Thrown by {@link assert}. The sim's checks of its own bookkeeping throw a subclass
 * (sim/harnessAssert.ts), named after itself, hence `name` is a string, not the literal.
 */
export class AssertionError extends Error {
  override readonly name: string = 'AssertionError';
}

/**
 * Stops the run when `cond` is false.
 * @throws AssertionError with `message`.
 */
export function assert(cond: unknown, message: string | (() => string)): asserts cond {
  if (!cond) {
    throw new AssertionError(typeof message === 'string' ? message : message());
  }
}

/** Marks a branch the type system proves unreachable. @throws AssertionError always. */
export function unreachable(value: never, what = 'value'): never {
  throw new AssertionError(`unexpected ${what}: ${String(value)}`);
}
