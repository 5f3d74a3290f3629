import { describe, expect, test } from 'vitest';
import type { Fault, RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { defaultJudge } from './defaultJudge.ts';
import { replaySpec } from './replay.ts';

const deps = { simulate: (spec: RunSpec) => simulate(spec), judge: defaultJudge };

/** A small flights run with these faults. */
const spec = (faults: Fault[], maxTimeMs = 10_000): RunSpec => ({
  version: 8, seed: 's1', job: { kind: 'flights', selection: { from: 0, to: 40 } }, parallelism: 2,
  checkpoint: { mode: 'aligned', intervalMs: 20 }, faults, healTimeMs: 100,
  budgets: { maxEvents: 1_000_000, maxTimeMs }, overrides: [], mutations: [],
});

const faults: Fault[] = [
  { type: 'pause', host: 'taskmanager-1', durationMs: 5, when: { atMs: 10 } },
  { type: 'crash', host: 'taskmanager-1', when: { at: { kind: 'task', checkpoint: 900, phase: 'acked', task: 'v1#0' } } },
  { type: 'rpc-loss', kind: 'ack', probability: 0.2 },
  { type: 'global-failure', when: { at: { kind: 'jobmaster', checkpoint: 800, phase: 'completed' } } },
];

describe('replaySpec', () => {
  test('lists the faults that never fired, described, whether the property holds', () => {
    const o = replaySpec(spec(faults), 'exactly-once', deps);
    expect(o.stillFails).toBe(false);
    expect(o.unfiredFaults).toEqual([
      { index: 1, fault: faults[1], description: 'crash taskmanager-1 at checkpoint 900 acked on v1#0' },
      { index: 3, fault: faults[3], description: 'global failure at checkpoint 800 completed on the jobmaster' },
    ]);
  });

  test('or fails', () => {
    // A 1 ms budget ends the run before the job can: liveness fails, and no fault fired.
    const o = replaySpec(spec(faults, 1), 'exactly-once', deps);
    expect(o.violation?.property).toBe('liveness');
    expect(o.unfiredFaults.map((u) => u.index)).toEqual([0, 1, 3]);
  });

  test('and none when every fault fired', () => {
    expect(replaySpec(spec([faults[0] as Fault]), 'exactly-once', deps).unfiredFaults).toEqual([]);
  });
});
