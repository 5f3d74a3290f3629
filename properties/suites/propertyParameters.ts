/**
 * fast-check parameters of the property suites, from the environment (STYLE.md "Tests"): the
 * seed, the replay path and the run count come from `FC_SEED`, `FC_PATH` and `FC_NUM_RUNS`, so a
 * failure printed by one run of `npm test` replays exactly and test names never change.
 */
import type fc from 'fast-check';

/** The seed every suite uses unless `FC_SEED` says otherwise. */
export const DEFAULT_FC_SEED = 42;

/**
 * Parameters for `fc.assert`: `FC_SEED` (an integer, default {@link DEFAULT_FC_SEED}),
 * `FC_PATH` (a fast-check path, replays one run and its shrink steps) and `FC_NUM_RUNS` (a
 * positive integer, default `defaultRuns`, the count tuned for CI).
 * @throws Error when a variable is set but malformed.
 */
export function propertyParameters<T>(defaultRuns: number): fc.Parameters<T> {
  const seed = integerFromEnv('FC_SEED', DEFAULT_FC_SEED);
  const numRuns = integerFromEnv('FC_NUM_RUNS', defaultRuns);
  if (numRuns < 1) throw new Error(`FC_NUM_RUNS must be positive, got ${numRuns}`);
  const path = process.env['FC_PATH'];
  return { seed, numRuns, ...(path === undefined || path === '' ? {} : { path }) };
}

/** Whether `FC_PATH` replays a single run (then a suite's marks are not required). */
export function replaysOnePath(): boolean {
  const path = process.env['FC_PATH'];
  return path !== undefined && path !== '';
}

function integerFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new Error(`${name} must be an integer, got '${raw}'`);
  return Number(raw);
}
