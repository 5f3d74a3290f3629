/**
 * harnessAssert: the assertion of the sim's own bookkeeping (DESIGN.md "Size and shape": an
 * assertion inside the sim or the harness is a harness failure, exit code 3; one inside the
 * engine is a counterexample).
 *
 * Which assertion a check in sim/ uses depends on what it checks, not on where it is written:
 *
 * - a check of what the engine asked of its EngineEnv (a cost or delay that is not a
 *   non-negative integer, a send without credit or on a closed connection, a second endpoint at
 *   one address, blocking outside a task, a bad delay distribution) is the port's documented
 *   contract (`@throws AssertionError` in engine/api): failing it is the engine's bug, so it
 *   uses the engine's `assert` and counts as an engine assertion;
 * - a check of the sim's own state (its event queue, its order decisions, its executor pools,
 *   its run loop) can only fail through a bug of the sim, so it uses {@link harnessAssert}.
 *
 * HarnessAssertionError extends the engine's AssertionError, so code that stops a run at any
 * assertion (an RPC handler's, a mailbox's) stops it at this one too; `simulate` tells the two
 * apart by class (sim/engineAssertion.ts).
 */
import { AssertionError } from '../engine/api/index.ts';

/** Thrown by {@link harnessAssert}: the sim's own bookkeeping is broken (a harness failure). */
export class HarnessAssertionError extends AssertionError {
  override readonly name = 'HarnessAssertionError';
}

/**
 * Stops the run when `cond` is false, as a harness failure.
 * @throws HarnessAssertionError with `message`.
 */
export function harnessAssert(cond: unknown, message: string | (() => string)): asserts cond {
  if (!cond) throw new HarnessAssertionError(typeof message === 'string' ? message : message());
}
