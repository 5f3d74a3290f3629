/**
 * Compares a job's final keyed state, as decoded by the engine, with the reference fold's:
 * operator uid → state name → String(key) → value. A key present on one side only is a diff with
 * `undefined` on the other; a state name or operator with no keys equals an absent one.
 */
import { canonicalEqual } from '../canonicalString.ts';
import type { KeyedStateView } from '../referenceFold.ts';

/** One key whose state differs. */
export interface StateDiff {
  readonly operator: string;
  readonly state: string;
  readonly key: string;
  readonly expected: unknown;
  readonly actual: unknown;
}

/** Result of {@link compareKeyedState}: diffs truncated to `maxListed`, count exact. */
export interface StateComparison {
  readonly diffs: readonly StateDiff[];
  readonly diffCount: number;
}

/**
 * Every (operator, state, key) whose value differs between `expected` and `actual`, in the order
 * operators, states and keys first appear in `expected`, then in `actual`.
 */
export function compareKeyedState(
  expected: KeyedStateView,
  actual: KeyedStateView,
  maxListed = 100,
): StateComparison {
  const diffs: StateDiff[] = [];
  for (const operator of union(Object.keys(expected), Object.keys(actual))) {
    const e = expected[operator] ?? {};
    const a = actual[operator] ?? {};
    for (const state of union(Object.keys(e), Object.keys(a))) {
      const ek = e[state] ?? {};
      const ak = a[state] ?? {};
      // Keys of `expected`, then those only in `actual` (the union, without building it).
      const eKeys = Object.keys(ek);
      for (let i = 0; i < eKeys.length; i++) {
        const key = eKeys[i] as string;
        const ev = ek[key];
        const av = ak[key];
        if (!canonicalEqual(ev, av)) diffs.push({ operator, state, key, expected: ev, actual: av });
      }
      const aKeys = Object.keys(ak);
      for (let i = 0; i < aKeys.length; i++) {
        const key = aKeys[i] as string;
        if (hasOwn.call(ek, key)) continue;
        const av = ak[key];
        if (!canonicalEqual(undefined, av)) {
          diffs.push({ operator, state, key, expected: undefined, actual: av });
        }
      }
    }
  }
  return { diffs: diffs.slice(0, maxListed), diffCount: diffs.length };
}

const hasOwn = Object.prototype.hasOwnProperty;

function union(a: readonly string[], b: readonly string[]): string[] {
  const seen = new Set(a);
  return [...a, ...b.filter((x) => !seen.has(x))];
}
