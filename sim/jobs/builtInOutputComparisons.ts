/**
 * The output comparisons of the built-in jobs whose values depend on the order records arrive in,
 * as {@link OutputComparison}s a {@link JobJudging} can hold (sim/jobs/JobDefinition.ts): flights'
 * per-airport `seq` and wordcount's running `count` are numbered per key in arrival order, so
 * the rest of the value is compared per record identity and the numbers are judged on their own
 * (exactly 1..n per key). The oracles' detection by operator uid (properties/oracles/
 * endToEndExactlyOnce.ts `detectSequenced`) reads these very objects, so a built-in job judged
 * through its JobJudging and one judged by detection get the same verdict.
 *
 * Here, in sim, because a JobDefinition (sim/jobs) may hold them and sim never imports properties.
 */
import type { JobJudging, OutputComparison } from './JobDefinition.ts';
import { FLIGHTS_UIDS } from '../workloads/flights.ts';
import type { FlightOutput } from '../workloads/flights.ts';
import { WORDCOUNT_UIDS } from '../workloads/wordcount.ts';
import type { WordCountOutput } from '../workloads/wordcount.ts';

/** Flights' output: per origin airport, `seq` from 1; flight id, origin and delay per identity. */
export const FLIGHTS_OUTPUT_COMPARISON: OutputComparison = Object.freeze({
  name: 'flights seq per airport',
  project: (v: unknown) => {
    const { flightId, origin, delay } = v as FlightOutput;
    return { flightId, origin, delay };
  },
  sequence: Object.freeze({
    key: (v: unknown) => (v as FlightOutput).origin,
    seq: (v: unknown) => (v as FlightOutput).seq,
  }),
});

/** Wordcount's output: per word, `count` from 1; the word itself per identity. */
export const WORDCOUNT_OUTPUT_COMPARISON: OutputComparison = Object.freeze({
  name: 'wordcount count per word',
  project: (v: unknown) => ({ word: (v as WordCountOutput).word }),
  sequence: Object.freeze({
    key: (v: unknown) => (v as WordCountOutput).word,
    seq: (v: unknown) => (v as WordCountOutput).count,
  }),
});

/**
 * The flights job's judging: its sink by {@link FLIGHTS_OUTPUT_COMPARISON}, its airport
 * statistics' state exactly (the default).
 */
export const FLIGHTS_JUDGING: JobJudging = Object.freeze({
  output: Object.freeze({ [FLIGHTS_UIDS.sink]: FLIGHTS_OUTPUT_COMPARISON }),
});

/** The wordcount job's judging: its sink by {@link WORDCOUNT_OUTPUT_COMPARISON}, state exactly. */
export const WORDCOUNT_JUDGING: JobJudging = Object.freeze({
  output: Object.freeze({ [WORDCOUNT_UIDS.sink]: WORDCOUNT_OUTPUT_COMPARISON }),
});
