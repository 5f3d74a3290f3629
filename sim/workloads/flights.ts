/**
 * The main job (DESIGN.md "The main job"): real US flights read as splits of consecutive file
 * records, keyed by origin airport for running delay statistics (count, total, maximum), each
 * flight emitted with its per-airport sequence number, into a sink.
 *
 * The user functions are exported so the reference fold (properties/) runs the very same code
 * the engine runs. A run selects a range of file indices `{from, to}` (to exclusive), which is
 * what shrinking narrows.
 *
 * Cost suggestion ({@link DEFAULT_FLIGHTS_COSTS}): sources read at 400 µs per record, so at
 * parallelism 4 over the whole file each source subtask reads 4 splits = 5,000 records in about
 * 2 virtual seconds; the keyed statistics cost 40 µs per record and the sink 20 µs, well under
 * the source rate, so the sources set the pace and a 100 ms checkpoint interval gives about 20
 * checkpoints per run.
 */
import {
  consecutiveSplits, splitSource, StreamExecutionEnvironment,
} from '../../engine/index.ts';
import type {
  Collector, KeyedContext, KeyedProcessFunction, KeySelector, SinkDefinition, SplitData, StreamGraph,
} from '../../engine/index.ts';
import { FLIGHTS_FILE_SIZE, loadFlights } from './loadFlights.ts';
import type { Flight } from './loadFlights.ts';

export type { Flight } from './loadFlights.ts';
export { FLIGHTS_FILE_SIZE } from './loadFlights.ts';

/** A range of file indices, `to` exclusive. */
export interface FlightSelection {
  readonly from: number;
  readonly to: number;
}

/** Per-airport running statistics kept in keyed state. */
export interface AirportStats {
  readonly count: number;
  /** Sum of delays, minutes. */
  readonly total: number;
  /** Largest delay seen, minutes. */
  readonly max: number;
}

/** What the job emits per flight. `seq` is the flight's number at its airport, from 1. */
export interface FlightOutput {
  readonly flightId: number;
  readonly origin: string;
  readonly seq: number;
  readonly delay: number;
}

/** Per-record costs in virtual microseconds. */
export interface FlightsCosts {
  readonly sourceCostUs: number;
  readonly statsCostUs: number;
  readonly sinkCostUs: number;
}

/** Suggested costs: the job at parallelism 4 over the whole file spans about 2 virtual seconds. */
export const DEFAULT_FLIGHTS_COSTS: FlightsCosts = Object.freeze({
  sourceCostUs: 400,
  statsCostUs: 40,
  sinkCostUs: 20,
});

/** Stable operator uids (state is matched to operators by uid on restore). */
export const FLIGHTS_UIDS = Object.freeze({
  source: 'flights-source',
  stats: 'airport-stats',
  sink: 'flights-sink',
});

/** Name of the keyed ValueState holding {@link AirportStats}. */
export const AIRPORT_STATS_STATE = 'stats';

/** The whole file. */
export const ALL_FLIGHTS: FlightSelection = Object.freeze({ from: 0, to: FLIGHTS_FILE_SIZE });

/** The key selector: a flight's origin airport. */
export const flightOrigin: KeySelector<Flight> = (flight) => flight.origin;

/**
 * The keyed process function: updates the airport's {@link AirportStats} and emits the flight
 * with its sequence number, which is the new count.
 */
export const airportStatsFunction: KeyedProcessFunction<string, Flight, FlightOutput> = {
  processElement(flight: Flight, ctx: KeyedContext<string>, out: Collector<FlightOutput>): void {
    const state = ctx.getState<AirportStats>({ kind: 'value', name: AIRPORT_STATS_STATE });
    const old = state.value();
    const next: AirportStats = old === undefined
      ? { count: 1, total: flight.delay, max: flight.delay }
      : {
        count: old.count + 1,
        total: old.total + flight.delay,
        max: Math.max(old.max, flight.delay),
      };
    state.update(next);
    const { id: flightId, origin, delay } = flight;
    out.collect({ flightId, origin, seq: next.count, delay });
  },
};

/**
 * Checks a selection.
 * @throws Error unless `from` and `to` are integers with 0 ≤ from ≤ to ≤ 20000.
 */
export function validateFlightSelection(selection: FlightSelection): void {
  const { from, to } = selection;
  const ok = Number.isInteger(from) && Number.isInteger(to) && from >= 0 && from <= to
    && to <= FLIGHTS_FILE_SIZE;
  if (!ok) {
    throw new Error(`flight selection must be integers with 0 <= from <= to <= `
      + `${FLIGHTS_FILE_SIZE}, got {from: ${from}, to: ${to}}`);
  }
}

/** The selected flights, in file order. @throws Error for an invalid selection. */
export function selectFlights(selection: FlightSelection): readonly Flight[] {
  validateFlightSelection(selection);
  return loadFlights().slice(selection.from, selection.to);
}

/** Parallelism of the job: one number for every operator, or per operator. */
export type FlightsParallelism =
  | number
  | { readonly source: number; readonly stats: number; readonly sink: number };

/** Options of {@link flightsJob}. */
export interface FlightsJobOptions {
  readonly selection: FlightSelection;
  readonly parallelism: FlightsParallelism;
  /** Max parallelism of every operator; default Flink's computeDefaultMaxParallelism. */
  readonly maxParallelism?: number;
  /** Number of splits of consecutive records; default 16. */
  readonly splits?: number;
  readonly sink: SinkDefinition;
  /** Per-record costs; default {@link DEFAULT_FLIGHTS_COSTS}. */
  readonly costs?: FlightsCosts;
}

/**
 * Builds the flights job: `splits` splits of consecutive selected flights (split ids 0..n-1) →
 * keyBy(origin) → {@link airportStatsFunction} → sink. The stats → sink edge is forward (chained)
 * when their parallelism is equal, rebalance otherwise.
 * @throws Error for an invalid selection or split count; InvalidJobError for bad parallelism.
 */
export function flightsJob(options: FlightsJobOptions): StreamGraph {
  const flights = selectFlights(options.selection);
  const p = options.parallelism;
  const par = typeof p === 'number' ? { source: p, stats: p, sink: p } : p;
  const env = new StreamExecutionEnvironment({
    jobName: 'flights',
    parallelism: par.source,
    operatorParallelism: { [FLIGHTS_UIDS.source]: par.source, [FLIGHTS_UIDS.stats]: par.stats, [FLIGHTS_UIDS.sink]: par.sink },
    ...(options.maxParallelism === undefined ? {} : { maxParallelism: options.maxParallelism }),
  });
  buildFlightsPipeline(env, consecutiveSplits(flights, options.splits ?? 16), options.sink, options.costs);
  return env.getStreamGraph();
}

/**
 * Adds the flights job's operators to `env` over `splits`: source (uid flights-source) →
 * keyBy(origin) → {@link airportStatsFunction} (airport-stats) → `sink` (flights-sink), at the
 * environment's parallelism (its per-uid overrides included) and max parallelism. The stats →
 * sink edge is forward at equal parallelism and rebalance otherwise (Flink's default).
 * @throws InvalidJobError for bad parallelism.
 */
export function buildFlightsPipeline(
  env: StreamExecutionEnvironment,
  splits: readonly SplitData<Flight>[],
  sink: SinkDefinition,
  costs: FlightsCosts = DEFAULT_FLIGHTS_COSTS,
): void {
  env
    .fromSource(splitSource(splits), { name: 'flights', uid: FLIGHTS_UIDS.source, costUs: costs.sourceCostUs })
    .keyBy<string>(flightOrigin)
    .process(airportStatsFunction, { name: 'airport-stats', uid: FLIGHTS_UIDS.stats, costUs: costs.statsCostUs })
    .sinkTo(sink, { name: 'flights-sink', uid: FLIGHTS_UIDS.sink, costUs: costs.sinkCostUs });
}
