/**
 * Deep-freezes plain data (objects, arrays, Maps are not expected) so that a value shared between
 * a live backend and its snapshots cannot be changed through either. Primitives pass through.
 *
 * Invariant: the returned value is the argument itself, frozen all the way down.
 */

/** Freezes `value` and everything reachable through own enumerable properties; returns it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) {
    return value;
  }
  Object.freeze(value);
  for (const child of Object.values(value as object) as unknown[]) {
    deepFreeze(child);
  }
  return value;
}
