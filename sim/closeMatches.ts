/**
 * closeMatches: the known names closest to one a person typed, for "did you mean" in bad-input
 * messages (a misspelt mark, reason, method or scenario name).
 */

/** Levenshtein distance between `a` and `b` (single-character inserts, deletes, substitutions). */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_x, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j] as number;
      row[j] = Math.min(cur + 1, (row[j - 1] as number) + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length] as number;
}

/** How close a name must be: edit distance at most `maxDistance`, or (with `substrings`) containing or contained. */
export interface CloseMatchOptions {
  readonly limit?: number;
  readonly maxDistance?: number;
  readonly substrings?: boolean;
}

/**
 * Up to `limit` (default 3) of `known` that look like `typed`, closest first: containing it or
 * contained in it (unless `substrings` is false), or within `maxDistance` edits (default a third
 * of its length, at least 3).
 */
export function closeMatches(typed: string, known: readonly string[], options: CloseMatchOptions = {}): string[] {
  const maxDistance = options.maxDistance ?? Math.max(3, Math.floor(typed.length / 3));
  const substrings = options.substrings ?? true;
  return known
    .map((n) => ({ n, d: editDistance(n, typed) }))
    .filter(({ n, d }) => (substrings && (n.includes(typed) || typed.includes(n))) || d <= maxDistance)
    .sort((a, b) => a.d - b.d).slice(0, options.limit ?? 3).map(({ n }) => n);
}
