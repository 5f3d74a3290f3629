/**
 * The JobMaster's ioExecutor is a pool (RunSpec `jobManager.ioPoolSize`), and ExecutionGraphHandler
 * hands every ack to it on its own: acks from one TaskManager arrive in the order they were sent
 * (one RPC link is FIFO), yet two of them can be handled in either order. With one thread they
 * never are. Runs where acks queue up (a slow store, so completions hold the coordinator lock
 * while acks wait) show it.
 */
import { expect, test } from 'vitest';
import { RUN_SPEC_VERSION, type RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';

/** Pairs of acks from one TaskManager handled by the coordinator in the opposite order to the one sent in. */
function sameTaskManagerInversions(ioPoolSize: number, seed: string): number {
  const spec: RunSpec = {
    version: RUN_SPEC_VERSION, seed, job: { kind: 'flights', selection: { from: 0, to: 400 } }, parallelism: 4,
    jobManager: { ioPoolSize },
    checkpoint: { mode: 'aligned', intervalMs: 20, maxConcurrent: 3 },
    faults: [{ type: 'slow-store', factor: 20 }], healTimeMs: 2000,
    budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 }, overrides: [], mutations: [],
  };
  const r = simulate(spec);
  const taskManagerOf = new Map(r.trace.filter((e) => e.type === 'scheduler.deploy')
    .map((e) => [String(e.attrs['task']), String(e.attrs['taskExecutor'])]));
  const key = (e: { attrs: Record<string, unknown> }): string => `${String(e.attrs['checkpointId'])}/${String(e.attrs['task'])}`;
  const sentAt = new Map(r.trace.filter((e) => e.type === 'checkpoint.acked').map((e, i) => [key(e), i]));
  const handled = r.trace.filter((e) => e.type === 'checkpoint.acknowledged');
  let inversions = 0;
  for (let i = 0; i < handled.length; i++) {
    for (let j = i + 1; j < handled.length; j++) {
      const a = handled[i] as (typeof handled)[number];
      const b = handled[j] as (typeof handled)[number];
      if (taskManagerOf.get(String(a.attrs['task'])) !== taskManagerOf.get(String(b.attrs['task']))) continue;
      if ((sentAt.get(key(b)) ?? 0) < (sentAt.get(key(a)) ?? 0)) inversions++;
    }
  }
  return inversions;
}

const SEEDS = ['a', 'b', 'c', 'd', 'e'];

test('ExecutionGraphHandler submits each ack to the io pool on its own: acks of one TaskManager can be handled out of order', () => {
  const pooled = SEEDS.map((s) => sameTaskManagerInversions(4, s));
  expect(pooled.some((n) => n > 0)).toBe(true);
  // One thread handles them in arrival order, which for one TaskManager is the order sent.
  expect(SEEDS.map((s) => sameTaskManagerInversions(1, s))).toEqual([0, 0, 0, 0, 0]);
});
