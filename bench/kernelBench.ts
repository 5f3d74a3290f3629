/**
 * The kernel benchmark (`checkpoint-sim bench`, field `kernel`): events per second through the
 * real sim kernel, against a bare binary-heap event loop measured in the same process.
 *
 * - eventsPerSec: a synthetic workload through World: 4 hosts with 4 executors each and 64
 *   concurrent task chains; every task takes a delay decision (its successor's cost), hops to
 *   another executor, and every 8th hop goes through a timer. Trace hashing is on; invariant
 *   checks are off (as in every benchmark).
 * - bareLoopEventsPerSec: a plain binary heap of `{ timeUs, seq, fn }` objects ordered by
 *   (time, seq), one closure call per event, each event scheduling its successor.
 * Each figure is the median of 5 repetitions after a warm-up. bench/ may read the real clock.
 */
import { World } from '../sim/index.ts';
import { median } from './median.ts';

/** The kernel figures of `bench --json`. */
export interface KernelBenchResult {
  readonly eventsPerSec: number;
  readonly bareLoopEventsPerSec: number;
  readonly ratio: number;
}

const HOSTS = 4;
const EXECUTORS_PER_HOST = 4;
const CHAINS = 64;
const COST = { minUs: 1, medianUs: 20, maxUs: 200 };

/** Runs `events` events of the synthetic workload; returns events per second. */
function kernelOnce(events: number): number {
  const world = new World({ seed: 'bench', budgets: { maxEvents: events }, decisionLogLimit: 0 });
  const executors: { execute(l: string, t: () => void, c?: number): void; schedule(l: string, d: number, t: () => void): unknown }[] = [];
  let choose: ((label: string) => number) | undefined;
  for (let h = 0; h < HOSTS; h++) {
    world.addHost(`taskmanager-${h + 1}`, (env) => {
      for (let e = 0; e < EXECUTORS_PER_HOST; e++) executors.push(env.executors.get(`exec-${e}`));
      choose ??= (label) => env.choices.delay(label, COST);
    });
  }
  const pick = choose as (label: string) => number;
  const n = executors.length;
  const chain = (id: number): void => {
    let hop = 0;
    const step = (): void => {
      hop++;
      const cost = pick('cost');
      const next = executors[(id + hop) % n];
      if (next === undefined) return;
      if ((hop & 7) === 0) next.schedule('tick', cost, step);
      else next.execute('step', step, cost);
    };
    executors[id % n]?.execute('start', step);
  };
  for (let c = 0; c < CHAINS; c++) chain(c);
  const t0 = performance.now();
  const r = world.run();
  const t1 = performance.now();
  return r.events / ((t1 - t0) / 1000);
}

interface BareEvent {
  readonly timeUs: number;
  readonly seq: number;
  readonly fn: () => void;
}

/** The bare loop: a binary heap of plain objects, one closure per event. */
function bareOnce(events: number): number {
  const heap: BareEvent[] = [];
  let seq = 0;
  let now = 0;
  let rnd = 12345;
  const less = (a: BareEvent, b: BareEvent): boolean => a.timeUs < b.timeUs || (a.timeUs === b.timeUs && a.seq < b.seq);
  const push = (e: BareEvent): void => {
    let i = heap.length;
    heap.push(e);
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pe = heap[p] as BareEvent;
      if (!less(e, pe)) break;
      heap[i] = pe;
      i = p;
    }
    heap[i] = e;
  };
  const pop = (): BareEvent | undefined => {
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    let i = 0;
    const len = heap.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= len) break;
      const r = l + 1;
      let c = l;
      if (r < len && less(heap[r] as BareEvent, heap[l] as BareEvent)) c = r;
      const ce = heap[c] as BareEvent;
      if (!less(ce, last)) break;
      heap[i] = ce;
      i = c;
    }
    heap[i] = last;
    return top;
  };
  const step = (): void => {
    rnd = (Math.imul(rnd, 1103515245) + 12345) | 0;
    push({ timeUs: now + ((rnd >>> 8) % 200) + 1, seq: seq++, fn: step });
  };
  for (let c = 0; c < CHAINS; c++) push({ timeUs: 0, seq: seq++, fn: step });
  let done = 0;
  const t0 = performance.now();
  while (done < events) {
    const e = pop();
    if (e === undefined) break;
    now = e.timeUs;
    e.fn();
    done++;
  }
  const t1 = performance.now();
  return done / ((t1 - t0) / 1000);
}

/**
 * Measures the kernel against the bare loop: each figure the median of 5 repetitions after a
 * warm-up. `events` per repetition, default 400,000.
 */
export function benchKernel(options: { events?: number } = {}): KernelBenchResult {
  const events = options.events ?? 400_000;
  kernelOnce(events);
  bareOnce(events);
  const kernel: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < 5; i++) {
    kernel.push(kernelOnce(events));
    bare.push(bareOnce(events));
  }
  const eventsPerSec = Math.round(median(kernel));
  const bareLoopEventsPerSec = Math.round(median(bare));
  return { eventsPerSec, bareLoopEventsPerSec, ratio: Math.round((eventsPerSec / bareLoopEventsPerSec) * 1000) / 1000 };
}
