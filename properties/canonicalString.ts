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
  // Oracles call this once per compared value, and most values are primitives or flat records:
  // primitives need no cycle set.
  if (typeof value !== 'object' || value === null) return primitive(value);
  return write(value, new Set());
}

/** Whether `a` and `b` are equal as plain data (see {@link canonicalString}). */
export function canonicalEqual(a: unknown, b: unknown): boolean {
  return canonicalString(a) === canonicalString(b);
}

function primitive(value: unknown): string {
  switch (typeof value) {
    case 'undefined': return 'undefined';
    case 'bigint': return `${value}n`;
    case 'number': return Object.is(value, -0) ? '-0' : String(value);
    case 'string': return JSON.stringify(value);
    case 'boolean': return String(value);
    case 'function':
    case 'symbol': throw new Error(`canonicalString: cannot compare a ${typeof value}`);
    default: return 'null';
  }
}

function write(value: unknown, seen: Set<object>): string {
  if (typeof value !== 'object' || value === null) return primitive(value);
  const obj = value;
  if (seen.has(obj)) throw new Error('canonicalString: cyclic value');
  seen.add(obj);
  let text: string;
  if (Array.isArray(obj)) {
    text = '[';
    for (let i = 0; i < obj.length; i++) text += (i === 0 ? '' : ',') + write(obj[i], seen);
    text += ']';
  } else if (obj instanceof Map) {
    const entries: string[] = [];
    for (const [k, v] of obj) entries.push(`${write(k, seen)}=>${write(v, seen)}`);
    text = `Map{${entries.sort().join(',')}}`;
  } else if (obj instanceof Set) {
    const entries: string[] = [];
    for (const v of obj) entries.push(write(v, seen));
    text = `Set{${entries.sort().join(',')}}`;
  } else {
    const keys = Object.keys(obj).sort();
    const rec = obj as Record<string, unknown>;
    text = '{';
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      text += `${i === 0 ? '' : ','}${JSON.stringify(k)}:${write(rec[k], seen)}`;
    }
    text += '}';
  }
  seen.delete(obj);
  return text;
}
