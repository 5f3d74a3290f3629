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
  // Indexed and keyed loops rather than Object.values: this runs on every state update.
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) deepFreezeChild(value[i]);
    return value;
  }
  const obj = value as Record<string, unknown>;
  // Only object children need the own-property check (for-in also visits inherited enumerable
  // keys); most state values are flat records of primitives, which then cost no call at all.
  for (const key in obj) {
    const child = obj[key];
    if (typeof child === 'object' && child !== null
      && Object.prototype.propertyIsEnumerable.call(obj, key)) {
      deepFreeze(child);
    }
  }
  return value;
}

function deepFreezeChild(child: unknown): void {
  if (typeof child === 'object' && child !== null) deepFreeze(child);
}
