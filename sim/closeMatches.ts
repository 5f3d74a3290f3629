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

/**
 * Up to `limit` of `known` that look like `typed`: containing it, contained in it, or within an
 * edit distance of a third of its length (at least 3), closest first.
 */
export function closeMatches(typed: string, known: readonly string[], limit = 3): string[] {
  return known
    .filter((n) => n.includes(typed) || typed.includes(n) || editDistance(n, typed) <= Math.max(3, Math.floor(typed.length / 3)))
    .sort((a, b) => editDistance(a, typed) - editDistance(b, typed)).slice(0, limit);
}
