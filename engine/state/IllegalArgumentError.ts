/**
 * The error thrown where Flink throws `IllegalArgumentException` from a precondition check on
 * caller-supplied values (parallelism bounds, key-group range bounds). Unlike an
 * {@link AssertionError} it is part of the documented contract of the function that throws it,
 * so callers (and tests) may expect it.
 *
 * @see org.apache.flink.util.Preconditions#checkArgument
 */

/** A caller passed an argument outside the documented domain, as Flink's `checkArgument`. */
export class IllegalArgumentError extends Error {
  override readonly name = 'IllegalArgumentError';
}

/**
 * Throws {@link IllegalArgumentError} with `message` when `cond` is false.
 * @throws IllegalArgumentError
 */
export function checkArgument(cond: boolean, message: string): asserts cond {
  if (!cond) {
    throw new IllegalArgumentError(message);
  }
}
