/**
 * The iteration order of a `java.util.HashMap<String, ?>` created with the default capacity and
 * filled with the given keys in order. Flink's round-robin repartitioner visits split-distribute
 * state names in this order, and the order decides which subtasks get the extra elements, so the
 * simulation reproduces it.
 *
 * @see java.util.HashMap (bucket index = (h ^ (h >>> 16)) & (capacity - 1); capacity 16,
 *   doubling when size exceeds 3/4 of it, or when a bucket reaches 9 entries while the table is
 *   smaller than 64; iteration by bucket, insertion order within a bucket)
 *
 * Limitation: a bucket of 9+ keys in a table of 64+ becomes a tree in Java, whose order can
 * differ from insertion order; that needs 9 state names colliding in one bucket and is not
 * modelled.
 */
import { javaHashCode } from './KeyGroupRangeAssignment.ts';

const DEFAULT_CAPACITY = 16;
const TREEIFY_THRESHOLD = 8;
const MIN_TREEIFY_CAPACITY = 64;

/** `keys` (duplicates dropped) in the order a default java.util.HashMap iterates them. */
export function javaHashMapKeyOrder(keys: Iterable<string>): string[] {
  const unique = [...new Set(keys)];
  const spread = unique.map((k) => {
    const h = javaHashCode(k);
    return h ^ (h >>> 16);
  });
  let capacity = DEFAULT_CAPACITY;
  const bucketSizes = new Map<number, number>();
  const rebucket = (count: number): void => {
    bucketSizes.clear();
    for (let i = 0; i < count; i++) {
      const b = (spread[i] as number) & (capacity - 1);
      bucketSizes.set(b, (bucketSizes.get(b) ?? 0) + 1);
    }
  };
  for (let i = 0; i < unique.length; i++) {
    const bucket = (spread[i] as number) & (capacity - 1);
    const before = bucketSizes.get(bucket) ?? 0;
    bucketSizes.set(bucket, before + 1);
    if (before >= TREEIFY_THRESHOLD && capacity < MIN_TREEIFY_CAPACITY) {
      capacity *= 2;
      rebucket(i + 1);
    }
    if (i + 1 > capacity * 0.75) {
      capacity *= 2;
      rebucket(i + 1);
    }
  }
  const order = unique.map((key, index) => ({
    key, index, bucket: (spread[index] as number) & (capacity - 1),
  }));
  order.sort((a, b) => a.bucket - b.bucket || a.index - b.index);
  return order.map((o) => o.key);
}
