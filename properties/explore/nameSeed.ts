/**
 * nameSeed: the fast-check seed a search takes when none is given, a 32-bit hash of a name (a
 * scenario's for `--fuzz`, a job's for the library explore), so a plain rerun explores the same
 * runs and two names explore different ones.
 */

/** A 32-bit signed hash of `name` (Java's String.hashCode). */
export function nameSeed(name: string): number {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (Math.imul(h, 31) + name.charCodeAt(i)) | 0;
  return h;
}
