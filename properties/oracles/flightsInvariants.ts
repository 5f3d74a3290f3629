/**
 * The flights-specific part of the end-to-end oracle (ORACLES.md 3): every flight id is committed
 * exactly once, and the per-airport count, total and maximum delay computed from the committed
 * output equal the reference fold's airport state. (Per-airport sequence numbers are judged by
 * sequenceInvariants.ts with {@link FLIGHTS_SEQUENCE}; the engine's own final state is compared
 * with the fold's by compareKeyedState.)
 */
import { FLIGHTS_OUTPUT_COMPARISON } from '../../sim/jobs/builtInOutputComparisons.ts';
import { AIRPORT_STATS_STATE, FLIGHTS_UIDS } from '../../sim/workloads/flights.ts';
import type { AirportStats, FlightOutput } from '../../sim/workloads/flights.ts';
import { canonicalString } from '../canonicalString.ts';
import type { KeyedStateView } from '../referenceFold.ts';
import type { CommittedRecord } from './compareOutputs.ts';
import { sequencedOf } from './jobJudging.ts';
import type { SequencedOutput } from './sequenceInvariants.ts';

/**
 * Flights' sequence numbers: per origin airport, `seq`; the rest of the value must match F. The
 * same functions as FLIGHTS_OUTPUT_COMPARISON, which a JobJudging holds.
 */
export const FLIGHTS_SEQUENCE: SequencedOutput = Object.freeze(
  sequencedOf(FLIGHTS_OUTPUT_COMPARISON) as SequencedOutput);

/** An airport whose statistics over the committed output differ from F's. */
export interface AirportStatsDiff {
  readonly airport: string;
  readonly expected: AirportStats | undefined;
  readonly actual: AirportStats | undefined;
}

/** Result of {@link checkFlights}: lists truncated to `maxListed`. */
export interface FlightsReport {
  /** Flight ids F emits that were never committed. */
  readonly missingFlightIds: readonly number[];
  /** Flight ids committed more than once (each listed once). */
  readonly duplicatedFlightIds: readonly number[];
  /** Committed flight ids F does not emit. */
  readonly unexpectedFlightIds: readonly number[];
  readonly airportStatsDiffs: readonly AirportStatsDiff[];
  /** Sum of the above list lengths before truncation. */
  readonly problemCount: number;
}

/**
 * Checks flight ids and per-airport statistics of the committed output.
 * `expectedIds` are the flight ids of F's output; `foldState` is F's keyed state.
 */
export function checkFlights(
  expectedIds: readonly number[],
  foldState: KeyedStateView,
  actual: readonly CommittedRecord[],
  maxListed = 100,
): FlightsReport {
  const expected = new Set(expectedIds);
  const counts = new Map<number, number>();
  const stats = new Map<string, AirportStats>();
  for (const r of actual) {
    const f = r.value as FlightOutput;
    counts.set(f.flightId, (counts.get(f.flightId) ?? 0) + 1);
    const old = stats.get(f.origin);
    stats.set(f.origin, old === undefined
      ? { count: 1, total: f.delay, max: f.delay }
      : { count: old.count + 1, total: old.total + f.delay, max: Math.max(old.max, f.delay) });
  }
  const missing = expectedIds.filter((id) => !counts.has(id));
  const duplicated = [...counts].filter(([, c]) => c > 1).map(([id]) => id).sort((a, b) => a - b);
  const unexpected = [...counts.keys()].filter((id) => !expected.has(id)).sort((a, b) => a - b);
  const foldStats = (foldState[FLIGHTS_UIDS.stats]?.[AIRPORT_STATS_STATE] ?? {}) as
    Record<string, AirportStats>;
  const diffs: AirportStatsDiff[] = [];
  for (const airport of new Set([...Object.keys(foldStats), ...stats.keys()])) {
    const e = foldStats[airport];
    const a = stats.get(airport);
    if (canonicalString(e) !== canonicalString(a)) diffs.push({ airport, expected: e, actual: a });
  }
  return {
    missingFlightIds: missing.slice(0, maxListed),
    duplicatedFlightIds: duplicated.slice(0, maxListed),
    unexpectedFlightIds: unexpected.slice(0, maxListed),
    airportStatsDiffs: diffs.slice(0, maxListed),
    problemCount: missing.length + duplicated.length + unexpected.length + diffs.length,
  };
}
