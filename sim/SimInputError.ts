/**
 * SimInputError: bad input to the sim's API (a negative delay, an unknown host, a malformed
 * override list, a non-integer time). The CLI maps it to exit code 2 with its one-line message;
 * it is never a counterexample and never a harness failure.
 */
export class SimInputError extends Error {
  override readonly name = 'SimInputError';
}

/**
 * Checks that `value` is a non-negative integer (a virtual time or duration in microseconds).
 * @throws SimInputError naming `what` otherwise.
 */
export function requireNonNegativeInteger(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new SimInputError(`${what} must be a non-negative integer, got ${String(value)}`);
  }
}

/**
 * Checks that `p` is a probability in [0, 1].
 * @throws SimInputError naming `what` otherwise.
 */
export function requireProbability(p: number, what: string): void {
  if (typeof p !== 'number' || !(p >= 0 && p <= 1)) {
    throw new SimInputError(`${what} must be a probability in [0, 1], got ${String(p)}`);
  }
}
