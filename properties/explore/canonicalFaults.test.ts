import { describe, expect, test } from 'vitest';
import type { Fault, RunSpec } from '../../sim/run/RunSpec.ts';
import { faultWorldOptions } from '../../sim/run/faultWorldOptions.ts';
import { canonicalFaults } from './canonicalFaults.ts';

const spec = (faults: Fault[]): RunSpec => ({
  version: 8, seed: 's1', job: { kind: 'flights', selection: { from: 0, to: 50 } }, parallelism: 2,
  checkpoint: { mode: 'aligned', intervalMs: 50 }, faults, healTimeMs: 300,
  budgets: { maxEvents: 1_000_000, maxTimeMs: 10_000 }, overrides: [], mutations: [],
});

describe('canonicalFaults', () => {
  const crash: Fault = { type: 'crash', host: 'taskmanager-1', when: { atMs: 100 }, downMs: 20 };
  const faults: Fault[] = [
    { type: 'async-snapshot-failure', probability: 0.5 },
    crash,
    { type: 'rpc-loss', kind: 'ack', probability: 0.2 },
    { type: 'async-snapshot-failure', probability: 0.5 },
    { type: 'rpc-loss', kind: 'trigger', probability: 0.2 },
    { type: 'rpc-loss', kind: 'ack', probability: 0.5 },
    { type: 'rpc-delay', kind: 'ack', latency: { minMs: 10, medianMs: 50, maxMs: 300 } },
    { type: 'rpc-delay', kind: 'ack', latency: { minMs: 1, medianMs: 5, maxMs: 50 } },
    { type: 'slow-store', factor: 10 },
    { type: 'slow-store', factor: 100 },
    { type: 'store-failure', probability: 1 },
  ];

  test('keeps message faults as they are: two alike act on two messages', () => {
    const lose: Fault = { type: 'message', action: 'lose', method: 'confirmCheckpoint' };
    const s = spec([lose, { type: 'slow-store', factor: 10 }, lose]);
    expect(canonicalFaults(s)).toBe(s);
  });

  test('merges world-setting faults per kind where the first of the kind stood; others keep their order', () => {
    const merged = canonicalFaults(spec(faults)).faults;
    expect(merged).toEqual([
      { type: 'async-snapshot-failure', probability: 0.75 },
      crash,
      { type: 'rpc-loss', kind: 'ack', probability: 1 - 0.8 * 0.5 },
      { type: 'rpc-loss', kind: 'trigger', probability: 0.2 },
      { type: 'rpc-delay', kind: 'ack', latency: { minMs: 10, medianMs: 50, maxMs: 300 } },
      { type: 'slow-store', factor: 1000 },
      { type: 'store-failure', probability: 1 },
    ]);
  });

  test('the merged faults amount to the same world settings', () => {
    const a = faultWorldOptions(faults);
    const b = faultWorldOptions(canonicalFaults(spec(faults)).faults);
    expect(b.injectedLatencyByKind).toEqual(a.injectedLatencyByKind);
    expect(b.objectStore.slowFactor).toBe(a.objectStore.slowFactor);
    expect(b.objectStore.failProbability).toBe(a.objectStore.failProbability);
    expect(b.objectStore.putFailure?.probability).toBeCloseTo(a.objectStore.putFailure?.probability ?? -1, 15);
    expect(b.lossByKind.ack).toBeCloseTo(a.lossByKind.ack ?? -1, 15);
    expect(b.lossByKind.trigger).toBeCloseTo(a.lossByKind.trigger ?? -1, 15);
  });

  test('a spec with nothing to merge comes back as it is', () => {
    const s = spec([crash, { type: 'rpc-loss', kind: 'ack', probability: 0.2 }, { type: 'rpc-loss', kind: 'trigger', probability: 0.2 }]);
    expect(canonicalFaults(s)).toBe(s);
  });
});
