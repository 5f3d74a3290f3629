/**
 * Loads the real US flight records of vega-datasets' `flights-20k.json` (DESIGN.md "The main
 * job"). This is the one file of sim/workloads that touches the file system: the npm package
 * exports no data paths, so the package folder is found from its main module and the JSON file
 * is read from `data/` beside it. The parsed, validated and frozen array is cached, so every
 * run sees the very same objects and pays for parsing once per process.
 *
 * Invariants: `loadFlights()[i].id === i`; every record is frozen; the array has
 * {@link FLIGHTS_FILE_SIZE} records.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** One flight of the file; `id` is its index in the file (DESIGN.md: the flight id). */
export interface Flight {
  readonly id: number;
  /** Scheduled departure as written in the file, e.g. `2001/01/01 00:47`. */
  readonly date: string;
  /** Departure delay in minutes (negative: early). */
  readonly delay: number;
  /** Distance in miles. */
  readonly distance: number;
  /** Origin airport (IATA code); the job's key. */
  readonly origin: string;
  readonly destination: string;
}

/** Number of records in `flights-20k.json`. */
export const FLIGHTS_FILE_SIZE = 20_000;

let cached: readonly Flight[] | undefined;

/**
 * The flights of `flights-20k.json`, in file order, with `id` = index.
 * @throws Error if the package or file cannot be found, or a record has an unexpected shape.
 */
export function loadFlights(): readonly Flight[] {
  if (cached === undefined) cached = parseFlights(readFileSync(flightsFilePath(), 'utf8'));
  return cached;
}

/** Absolute path of `flights-20k.json` inside the installed `vega-datasets` package. */
export function flightsFilePath(): string {
  // The package's `exports` hide package.json, so resolve its main module (build/index.js).
  const main = createRequire(import.meta.url).resolve('vega-datasets');
  return join(dirname(main), '..', 'data', 'flights-20k.json');
}

/**
 * Parses and validates the file's text into frozen {@link Flight}s.
 * @throws Error naming the first malformed record, or a wrong record count.
 */
export function parseFlights(text: string): readonly Flight[] {
  const raw: unknown = JSON.parse(text);
  if (!Array.isArray(raw)) throw new Error('flights-20k.json: expected a JSON array');
  const flights = raw.map((row: unknown, id) => Object.freeze(toFlight(row, id)));
  if (flights.length !== FLIGHTS_FILE_SIZE) {
    throw new Error(
      `flights-20k.json: expected ${FLIGHTS_FILE_SIZE} records, got ${flights.length}`,
    );
  }
  return Object.freeze(flights);
}

function toFlight(row: unknown, id: number): Flight {
  if (typeof row !== 'object' || row === null) {
    throw new Error(`flights-20k.json record ${id}: not an object`);
  }
  const r = row as Record<string, unknown>;
  const { date, delay, distance, origin, destination } = r;
  if (typeof date !== 'string' || typeof origin !== 'string' || typeof destination !== 'string'
    || !Number.isInteger(delay) || !Number.isInteger(distance)) {
    throw new Error(`flights-20k.json record ${id}: unexpected shape ${JSON.stringify(row)}`);
  }
  return { id, date, delay: delay as number, distance: distance as number, origin, destination };
}
