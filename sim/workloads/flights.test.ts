import { describe, expect, test } from 'vitest';
import { collectSink, twoPhaseCommitSink } from '../../engine/index.ts';
import type { KeyedContext, ValueState } from '../../engine/index.ts';
import {
  AIRPORT_STATS_STATE, airportStatsFunction, ALL_FLIGHTS, DEFAULT_FLIGHTS_COSTS, flightOrigin,
  flightsJob, FLIGHTS_FILE_SIZE, FLIGHTS_UIDS, selectFlights, validateFlightSelection,
} from './flights.ts';
import type { AirportStats, FlightOutput } from './flights.ts';
import { flightsFilePath, loadFlights, parseFlights } from './loadFlights.ts';

describe('loadFlights', () => {
  test('loads the 20k real flights with ids = file index, frozen and cached', () => {
    const flights = loadFlights();
    expect(flights).toHaveLength(FLIGHTS_FILE_SIZE);
    expect(flights[0]).toEqual({
      id: 0, date: '2001/01/01 00:47', delay: 66, distance: 1750, origin: 'DTW', destination: 'LAS',
    });
    flights.forEach((f, i) => expect(f.id).toBe(i));
    expect(Object.isFrozen(flights[5])).toBe(true);
    expect(loadFlights()).toBe(flights);
    expect(flightsFilePath()).toMatch(/vega-datasets[/\\]data[/\\]flights-20k\.json$/);
  });

  test('rejects malformed files', () => {
    expect(() => parseFlights('{}')).toThrow(/JSON array/);
    expect(() => parseFlights('[1]')).toThrow(/record 0: not an object/);
    expect(() => parseFlights('[{"date":"x","delay":"1","distance":1,"origin":"A","destination":"B"}]'))
      .toThrow(/record 0: unexpected shape/);
    expect(() => parseFlights('[{"date":"x","delay":1,"distance":1,"origin":"A","destination":"B"}]'))
      .toThrow(/expected 20000 records, got 1/);
  });
});

describe('flight selection', () => {
  test('accepts valid ranges and slices the file', () => {
    expect(selectFlights({ from: 10, to: 13 }).map((f) => f.id)).toEqual([10, 11, 12]);
    expect(selectFlights({ from: 7, to: 7 })).toEqual([]);
    expect(selectFlights(ALL_FLIGHTS)).toHaveLength(FLIGHTS_FILE_SIZE);
  });

  test.each([
    [{ from: -1, to: 3 }], [{ from: 5, to: 4 }], [{ from: 0, to: 20001 }], [{ from: 0.5, to: 3 }],
    [{ from: 0, to: Number.NaN }],
  ])('rejects %j with a clear error', (selection) => {
    expect(() => validateFlightSelection(selection)).toThrow(/flight selection must be integers with 0 <= from <= to <= 20000/);
  });
});

describe('flightsJob', () => {
  test('builds source -> keyBy(origin) -> stats -> sink with 16 splits of consecutive records', () => {
    const graph = flightsJob({ selection: { from: 100, to: 260 }, parallelism: 4, sink: twoPhaseCommitSink('out') });
    expect(graph.nodes.map((n) => [n.uid, n.spec.kind, n.parallelism])).toEqual([
      [FLIGHTS_UIDS.source, 'source', 4], [FLIGHTS_UIDS.stats, 'keyedProcess', 4], [FLIGHTS_UIDS.sink, 'sink', 4],
    ]);
    expect(graph.edges.map((e) => e.partitioner)).toEqual(['hash', 'forward']);
    expect(graph.edges[0]?.keySelector).toBe(flightOrigin);
    const source = graph.nodes[0]?.spec;
    if (source?.kind !== 'source') throw new Error('no source');
    expect(source.source.splits).toHaveLength(16);
    expect(source.source.splits.map((s) => s.id)).toEqual([...Array(16).keys()]);
    expect(source.source.splits.flatMap((s) => s.records.map((r) => (r as { id: number }).id)))
      .toEqual([...Array(160).keys()].map((i) => i + 100));
    const stats = graph.nodes[1]?.spec;
    expect(stats?.kind === 'keyedProcess' && stats.fn).toBe(airportStatsFunction);
  });

  test('per-operator parallelism, max parallelism, split count and costs', () => {
    const graph = flightsJob({
      selection: { from: 0, to: 40 }, parallelism: { source: 2, stats: 3, sink: 1 }, maxParallelism: 64,
      splits: 4, sink: collectSink([]), costs: DEFAULT_FLIGHTS_COSTS,
    });
    expect(graph.nodes.map((n) => [n.parallelism, n.maxParallelism, n.costUs]))
      .toEqual([[2, 64, 400], [3, 64, 40], [1, 64, 20]]);
    expect(graph.edges.map((e) => e.partitioner)).toEqual(['hash', 'rebalance']);
    const source = graph.nodes[0]?.spec;
    expect(source?.kind === 'source' && source.source.splits.length).toBe(4);
  });

  test('default max parallelism follows Flink', () => {
    const graph = flightsJob({ selection: { from: 0, to: 1 }, parallelism: 4, sink: collectSink([]) });
    expect(graph.nodes.every((n) => n.maxParallelism === 128 && !n.maxParallelismConfigured)).toBe(true);
  });

  test('rejects a bad selection', () => {
    expect(() => flightsJob({ selection: { from: 3, to: 1 }, parallelism: 1, sink: collectSink([]) }))
      .toThrow(/flight selection/);
  });
});

describe('airportStatsFunction', () => {
  test('keeps count, total and max and emits the new count as seq', () => {
    let stored: AirportStats | undefined;
    const state: ValueState<AirportStats> = {
      value: () => stored, update: (v) => { stored = v; }, clear: () => { stored = undefined; },
    };
    const ctx = { getState: () => state } as unknown as KeyedContext<string>;
    const out: FlightOutput[] = [];
    const [a, b] = [{ ...loadFlights()[2]!, delay: -5 }, { ...loadFlights()[3]!, delay: 4 }];
    for (const f of [a, b]) airportStatsFunction.processElement(f, ctx, { collect: (o) => out.push(o) });
    expect(stored).toEqual({ count: 2, total: -1, max: 4 });
    expect(out).toEqual([
      { flightId: 2, origin: 'LAS', seq: 1, delay: -5 }, { flightId: 3, origin: 'LAS', seq: 2, delay: 4 },
    ]);
    expect(AIRPORT_STATS_STATE).toBe('stats');
  });
});
