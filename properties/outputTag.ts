/**
 * The tag rules for operators with several outputs per input, mirrored from the engine:
 * - a keyed process function's output 0 keeps the input record's tag and output i >= 1 appends
 *   `/i` (this function), so one-to-one keyed stages keep `''`;
 * - a flatMap appends `/i` to every output, from `/0` (the fold does that inline), so a flatMap
 *   followed by any multi-output stage never gives two records one tag.
 *
 * Known limit: two multi-output KEYED stages in a row can give two records one tag (output 1 of
 * output 0 and output 0 of output 1 are both `/1`). Oracles compare outputs as multisets of
 * (identity, value), so exactly-once judging stays exact, but such an identity no longer names
 * one record. A collision-free variant would append the operator too (`/<node id>.<i>`).
 */

/**
 * The tag of the `outputIndex`-th output (0-based, in emission order) of a record tagged
 * `inputTag`. @throws Error if `outputIndex` is not a non-negative integer.
 */
export function outputTag(inputTag: string, outputIndex: number): string {
  if (!Number.isInteger(outputIndex) || outputIndex < 0) {
    throw new Error(`output index must be a non-negative integer, got ${outputIndex}`);
  }
  return outputIndex === 0 ? inputTag : `${inputTag}/${outputIndex}`;
}

/**
 * Orders two tags of the same input record by emission order: segment by segment as numbers, a
 * missing segment counting as output 0 (`'' < '/1' < '/1/1' < '/2'`). Exact unless two paths
 * collide on one tag (see the note above).
 */
export function compareTags(a: string, b: string): number {
  const sa = a === '' ? [] : a.slice(1).split('/').map(Number);
  const sb = b === '' ? [] : b.slice(1).split('/').map(Number);
  for (let i = 0; i < Math.max(sa.length, sb.length); i++) {
    const d = (sa[i] ?? 0) - (sb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
