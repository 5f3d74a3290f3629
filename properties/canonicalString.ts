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

/**
 * Whether `a` and `b` are equal as plain data: exactly `canonicalString(a) ===
 * canonicalString(b)`, errors included. Oracles compare thousands of values per run that are
 * mostly equal numbers and flat records, so equal values are first walked side by side without
 * building text; anything that walk cannot decide goes to canonicalString.
 */
export function canonicalEqual(a: unknown, b: unknown): boolean {
  return sameShape(a, b, 0) || canonicalString(a) === canonicalString(b);
}

/** Nesting past which {@link sameShape} gives up (so a cycle ends in canonicalString's error). */
const MAX_SHAPE_DEPTH = 64;

/**
 * True only if `a` and `b` certainly have the same canonical text (and canonicalString would not
 * throw on them): equal primitives, or arrays and objects whose elements, keys (in any order)
 * and values have the same shape. False means "not decided here": values that differ, Maps and
 * Sets, functions, symbols, nesting deeper than {@link MAX_SHAPE_DEPTH}.
 */
function sameShape(a: unknown, b: unknown, depth: number): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    return Object.is(a, b) && typeof a !== 'function' && typeof a !== 'symbol';
  }
  if (depth > MAX_SHAPE_DEPTH || a instanceof Map || a instanceof Set
    || b instanceof Map || b instanceof Set) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      if (!sameShape(a[i], b[i], depth + 1)) return false;
    }
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i] as string;
    // As many keys on both sides, each of a's an enumerable own key of b: the same key sets.
    if (k !== kb[i] && !isEnumerable.call(b, k)) return false;
    if (!sameShape(ra[k], rb[k], depth + 1)) return false;
  }
  return true;
}

const isEnumerable = Object.prototype.propertyIsEnumerable;

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
