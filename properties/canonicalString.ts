/**
 * A canonical text form of plain data, so oracles can compare values and use them as multiset
 * keys: object keys are sorted, Maps and Sets are written in sorted entry order, bigints and
 * -0 are told apart from numbers and 0, and `undefined` is written out.
 *
 * Invariant: `canonicalString(a) === canonicalString(b)` iff a and b are equal as plain data
 * (ignoring object key order and Map/Set insertion order).
 */

/** The canonical text of `value`. @throws Error on a cycle or a function. */
export function canonicalString(value: unknown): string {
  return write(value, new Set());
}

/** Whether `a` and `b` are equal as plain data (see {@link canonicalString}). */
export function canonicalEqual(a: unknown, b: unknown): boolean {
  return canonicalString(a) === canonicalString(b);
}

function write(value: unknown, seen: Set<object>): string {
  switch (typeof value) {
    case 'undefined': return 'undefined';
    case 'bigint': return `${value}n`;
    case 'number': return Object.is(value, -0) ? '-0' : String(value);
    case 'string': return JSON.stringify(value);
    case 'boolean': return String(value);
    case 'function':
    case 'symbol': throw new Error(`canonicalString: cannot compare a ${typeof value}`);
    default: break;
  }
  if (value === null) return 'null';
  const obj = value as object;
  if (seen.has(obj)) throw new Error('canonicalString: cyclic value');
  seen.add(obj);
  let text: string;
  if (Array.isArray(obj)) {
    text = `[${obj.map((v) => write(v, seen)).join(',')}]`;
  } else if (obj instanceof Map) {
    const entries = [...obj.entries()]
      .map(([k, v]) => `${write(k, seen)}=>${write(v, seen)}`)
      .sort();
    text = `Map{${entries.join(',')}}`;
  } else if (obj instanceof Set) {
    text = `Set{${[...obj].map((v) => write(v, seen)).sort().join(',')}}`;
  } else {
    const entries = Object.keys(obj).sort()
      .map((k) => `${JSON.stringify(k)}:${write((obj as Record<string, unknown>)[k], seen)}`);
    text = `{${entries.join(',')}}`;
  }
  seen.delete(obj);
  return text;
}
