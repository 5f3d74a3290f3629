/**
 * formatDetails: a violation's `details` (any JSON-like value an oracle attached) as lines a
 * person reads: one field a line, lists as a count and one item a line (at most `maxItems`),
 * nested objects indented, empty lists and zero counts of nothing left out. `--json` keeps the
 * full structure; this is for the plain output of explore and replay.
 */

/** Options: how many items of a list to print, and the indent of the first level. */
export interface FormatDetailsOptions {
  readonly maxItems?: number;
  readonly indent?: string;
}

/** The lines of `details`, without trailing newlines. */
export function formatDetails(details: unknown, options: FormatDetailsOptions = {}): string[] {
  const maxItems = options.maxItems ?? 10;
  const lines: string[] = [];
  walk(details, options.indent ?? '  ', maxItems, lines, undefined);
  return lines;
}

function walk(value: unknown, indent: string, maxItems: number, out: string[], name: string | undefined): void {
  const label = name === undefined ? '' : `${name}: `;
  if (Array.isArray(value)) {
    if (value.length === 0) return;
    out.push(`${indent}${name ?? 'items'} (${value.length}):`);
    for (const item of value.slice(0, maxItems)) out.push(`${indent}  - ${inline(item)}`);
    if (value.length > maxItems) out.push(`${indent}  ... ${value.length - maxItems} more (--json has them all)`);
    return;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([k, v]) => !isEmpty(k, v, value));
    if (entries.length === 0) return;
    if (name !== undefined) out.push(`${indent}${name}:`);
    const inner = name === undefined ? indent : `${indent}  `;
    for (const [k, v] of entries) walk(v, inner, maxItems, out, k);
    return;
  }
  out.push(`${indent}${label}${typeof value === 'string' ? value : value === undefined ? '(none)' : JSON.stringify(value)}`);
}

/**
 * Left out: an empty list, and a `<name>Count` of 0 beside its empty list (`missing: []` with
 * `missingCount: 0` says nothing a reader needs).
 */
function isEmpty(key: string, v: unknown, parent: object): boolean {
  if (Array.isArray(v)) return v.length === 0;
  if (v === 0 && key.endsWith('Count')) {
    const list = (parent as Record<string, unknown>)[key.slice(0, -'Count'.length)];
    return list === undefined || (Array.isArray(list) && list.length === 0);
  }
  return false;
}

/** One list item on one line: an object's fields as `key value`, nested values as JSON. */
function inline(item: unknown): string {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return typeof item === 'string' ? item : JSON.stringify(item);
  return Object.entries(item as Record<string, unknown>)
    .map(([k, v]) => `${k} ${typeof v === 'string' ? v : v === undefined ? '(none)' : JSON.stringify(v)}`).join(', ');
}
