/**
 * Engine benchmark (issue 3): the flights job at parallelism 4 without faults through the whole
 * runtime on the simulator, against a stripped pipeline measured in the same process: the same
 * records, the same split assignment (splits handed out in id order on request), the same
 * key-group routing and the same keyed function, moving in buffers of the same size as events on
 * a bare binary-heap loop, with no runtime, no RPC and no trace.
 *
 * Issue 4 adds the same job with aligned (exactly-once) checkpoints every 100 ms virtual; a run
 * that spans about 2 virtual seconds must complete at least {@link MIN_CHECKPOINTS} of them, so
 * the figure always measures checkpointing that actually happened.
 */
import { performance } from 'node:perf_hooks';
import {
  assignToKeyGroup, computeOperatorIndexForKeyGroup, consecutiveSplits,
  DEFAULT_CLUSTER_CONFIGURATION, twoPhaseCommitSink,
  type Collector, type KeyedContext, type ValueState,
} from '../engine/index.ts';
import { MiniCluster } from '../sim/MiniCluster.ts';
import {
  ALL_FLIGHTS, airportStatsFunction, flightOrigin, flightsJob, selectFlights, type Flight,
} from '../sim/workloads/flights.ts';
import { median } from './median.ts';

export interface EngineBenchResult {
  readonly recordsPerSec: number;
  readonly eventsPerSec: number;
  readonly baselineRecordsPerSec: number;
  readonly ratio: number;
  /** The flights job with aligned checkpoints every 100 ms virtual, committed records per s. */
  readonly checkpointedRecordsPerSec: number;
  /** checkpointedRecordsPerSec / recordsPerSec (issue 4's target: at least 0.6). */
  readonly checkpointedRatio: number;
}

const PARALLELISM = 4;

/** Checkpointing of the checkpointed run: aligned, every 100 ms of virtual time. */
const CHECKPOINTING = Object.freeze({ intervalMs: 100, mode: 'EXACTLY_ONCE' } as const);

/** The fewest completed checkpoints a checkpointed run may report (about 20 are expected). */
const MIN_CHECKPOINTS = 15;

/**
 * One run of the flights job on the MiniCluster (with checkpointing when `checkpointed`);
 * returns committed records, events and real seconds.
 * @throws Error when the job does not finish, loses records or, checkpointed, completes fewer
 *   than {@link MIN_CHECKPOINTS} checkpoints.
 */
function engineOnce(checkpointed = false): { records: number; events: number; seconds: number } {
  const job = flightsJob({ selection: ALL_FLIGHTS, parallelism: PARALLELISM, sink: twoPhaseCommitSink('bench') });
  const graph = checkpointed ? { ...job, checkpointing: CHECKPOINTING } : job;
  const cluster = new MiniCluster({ world: { seed: 'bench', traceLimit: 0 }, streamGraph: graph });
  const t0 = performance.now();
  const result = cluster.run();
  const seconds = (performance.now() - t0) / 1000;
  if (result.jobStatus !== 'FINISHED') throw new Error(`bench run ended ${result.jobStatus}`);
  if (result.committed.length !== ALL_FLIGHTS.to - ALL_FLIGHTS.from) {
    throw new Error(`bench run committed ${result.committed.length} records`);
  }
  if (checkpointed && result.completedCheckpoints.length < MIN_CHECKPOINTS) {
    throw new Error(`checkpointed bench run completed ${result.completedCheckpoints.length} checkpoints`);
  }
  return { records: result.committed.length, events: result.run.events, seconds };
}

/** The stripped pipeline; returns records per second. */
function baselineOnce(): number {
  const flights = selectFlights(ALL_FLIGHTS);
  const splits = consecutiveSplits(flights, 16);
  const maxP = 128;
  const perBuffer = DEFAULT_CLUSTER_CONFIGURATION.recordsPerBuffer;
  const heap: { t: number; seq: number; fn: () => void }[] = [];
  let seq = 0;
  const less = (a: { t: number; seq: number }, b: { t: number; seq: number }) => a.t < b.t || (a.t === b.t && a.seq < b.seq);
  const push = (e: { t: number; seq: number; fn: () => void }) => {
    let i = heap.length;
    heap.push(e);
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pe = heap[p] as typeof e;
      if (!less(e, pe)) break;
      heap[i] = pe;
      i = p;
    }
    heap[i] = e;
  };
  const pop = () => {
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= heap.length) break;
      const r = l + 1;
      let c = l;
      if (r < heap.length && less(heap[r] as typeof last, heap[l] as typeof last)) c = r;
      const ce = heap[c] as typeof last;
      if (!less(ce, last)) break;
      heap[i] = ce;
      i = c;
    }
    heap[i] = last;
    return top;
  };
  // Keyed state per consumer subtask: key -> state name -> value, driven through the same function.
  const stores = Array.from({ length: PARALLELISM }, () => new Map<string, Map<string, unknown>>());
  let outputs = 0;
  const out: Collector<unknown> = { collect: () => { outputs++; } };
  const consume = (subtask: number, buffer: readonly Flight[]) => {
    const store = stores[subtask] as Map<string, Map<string, unknown>>;
    for (const f of buffer) {
      const key = flightOrigin(f) as string;
      let s = store.get(key);
      if (s === undefined) store.set(key, (s = new Map()));
      const state = s;
      const ctx = {
        getCurrentKey: () => key,
        getState: <V>(d: { name: string }): ValueState<V> => ({
          value: () => state.get(d.name) as V | undefined,
          update: (v: V) => void state.set(d.name, v),
          clear: () => void state.delete(d.name),
        }),
      } as unknown as KeyedContext<string>;
      airportStatsFunction.processElement(f, ctx, out as Collector<never>);
    }
  };
  let nextSplit = 0;
  const t0 = performance.now();
  for (let src = 0; src < PARALLELISM; src++) {
    const pending: Flight[][] = Array.from({ length: PARALLELISM }, () => []);
    let split = splits[nextSplit++];
    let offset = 0;
    const step = (now: number) => {
      while (split !== undefined && offset >= split.records.length) {
        split = splits[nextSplit++];
        offset = 0;
      }
      if (split === undefined) {
        pending.forEach((b, i) => { if (b.length > 0) consume(i, b); });
        return;
      }
      const f = split.records[offset++] as Flight;
      const target = computeOperatorIndexForKeyGroup(maxP, PARALLELISM, assignToKeyGroup(flightOrigin(f), maxP));
      const buf = pending[target] as Flight[];
      buf.push(f);
      if (buf.length >= perBuffer) {
        pending[target] = [];
        push({ t: now + 200, seq: seq++, fn: () => consume(target, buf) });
      }
      push({ t: now + 400, seq: seq++, fn: () => step(now + 400) });
    };
    push({ t: 0, seq: seq++, fn: () => step(0) });
  }
  for (let e = pop(); e !== undefined; e = pop()) e.fn();
  const seconds = (performance.now() - t0) / 1000;
  if (outputs !== flights.length) throw new Error(`baseline emitted ${outputs} of ${flights.length}`);
  return flights.length / seconds;
}

/**
 * Warm-up runs before anything is measured. One run was not enough: V8 needs a few runs of each
 * pipeline to reach its optimized code (measured: the engine's first 4-6 runs of the flights job,
 * the checkpointed job's first 12 or so and the baseline's first 10 are up to 10x slower), so a
 * single warm-up left every figure, and the ratios, at the mercy of when compilation finished.
 */
const WARM_UP = Object.freeze({ engine: 8, checkpointed: 14, baseline: 20 });

/**
 * Baseline runs per measured sample. One baseline run takes about 5 ms, short enough for a
 * single young-generation collection to move it by a fifth; a sample of several runs (about as
 * long as one engine run) averages those out.
 */
const BASELINE_RUNS_PER_SAMPLE = 8;

/** One baseline sample: records per second over {@link BASELINE_RUNS_PER_SAMPLE} runs. */
function baselineSample(): number {
  let seconds = 0;
  let records = 0;
  for (let i = 0; i < BASELINE_RUNS_PER_SAMPLE; i++) {
    const rate = baselineOnce();
    const n = ALL_FLIGHTS.to - ALL_FLIGHTS.from;
    records += n;
    seconds += n / rate;
  }
  return records / seconds;
}

/** Measured repetitions of each figure (their median is reported). */
const REPETITIONS = 7;

/** Runs all three, each the median of {@link REPETITIONS} repetitions after {@link WARM_UP}. */
export function benchEngine(): EngineBenchResult {
  for (let i = 0; i < WARM_UP.engine; i++) engineOnce();
  for (let i = 0; i < WARM_UP.checkpointed; i++) engineOnce(true);
  for (let i = 0; i < WARM_UP.baseline; i++) baselineOnce();
  const runs = Array.from({ length: REPETITIONS }, () => engineOnce());
  const recordsPerSec = median(runs.map((r) => r.records / r.seconds));
  const eventsPerSec = median(runs.map((r) => r.events / r.seconds));
  const baselineRecordsPerSec = median(Array.from({ length: REPETITIONS }, () => baselineSample()));
  const checkpointed = Array.from({ length: REPETITIONS }, () => engineOnce(true));
  const checkpointedRecordsPerSec = median(checkpointed.map((r) => r.records / r.seconds));
  return {
    recordsPerSec, eventsPerSec, baselineRecordsPerSec, ratio: recordsPerSec / baselineRecordsPerSec,
    checkpointedRecordsPerSec, checkpointedRatio: checkpointedRecordsPerSec / recordsPerSec,
  };
}
