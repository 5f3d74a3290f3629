/**
 * The slot protocol and the heal under RPC faults, end to end through `simulate` and the
 * default oracles. Each spec here is a counterexample explore found (or a schedule built to
 * reach a situation), kept as a regression test:
 * - slow heartbeats clogging per-link FIFO past the heal time (the `npm start` liveness finding);
 * - a late registration of a crashed TaskManager's old incarnation, after its new incarnation
 *   registered (must be refused, not replace the live one);
 * - a declaration of the required slots lost before the heal time.
 * (The coordinator holder's guard against notifications for checkpoints it never attempted,
 * found the same way, is covered by OperatorCoordinatorHolder.test.ts: its schedule depended on
 * decision overrides that later engine changes renumbered.)
 */
import { describe, expect, test } from 'vitest';
import type { RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { judgeRun } from '../oracles/judgeRun.ts';

const BUDGETS = { maxEvents: 5_000_000, maxTimeMs: 30_000 };

function judged(spec: RunSpec) {
  const result = simulate(spec);
  return { result, verdict: judgeRun(result) };
}

describe('cluster churn under RPC faults (regressions found by explore)', () => {
  test('slow heartbeats before the heal time do not hold later RPCs back after it (liveness)', () => {
    const spec: RunSpec = {
      version: 8, seed: 's1840279587', job: { kind: 'flights', selection: { from: 0, to: 50 } },
      parallelism: 2, taskManagers: 1, costsMs: { 'flights-source': 5 },
      checkpoint: { mode: 'at-least-once', intervalMs: 100, maxConcurrent: 1, tolerableFailures: 0 },
      restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
      faults: [
        { type: 'rpc-delay', kind: 'heartbeat', latency: { minMs: 10, medianMs: 50, maxMs: 300 } },
        { type: 'rpc-delay', kind: 'deployment', latency: { minMs: 1, medianMs: 5, maxMs: 50 } },
      ],
      healTimeMs: 600, budgets: BUDGETS, overrides: [{ decision: 29, alternative: 3 }], mutations: [],
    };
    const { result, verdict } = judged(spec);
    expect(verdict.violations.map((v) => v.summary)).toEqual([]);
    expect(result.jobStatus).toBe('FINISHED');
    const healUs = 600_000;
    const firstAfterHeal = result.trace.find((e) => e.type === 'checkpoint.completed' && e.timeUs >= healUs);
    expect(firstAfterHeal).toBeDefined();
    // Before the fix the first completion after the heal came 2.5 s later.
    expect((firstAfterHeal?.timeUs ?? Infinity) - healUs).toBeLessThan(300_000);
  });

  test('a late registration of a crashed incarnation is refused and the new incarnation keeps its slots', () => {
    const spec: RunSpec = {
      version: 8, seed: 'refused-2', job: { kind: 'flights', selection: { from: 0, to: 100 } },
      parallelism: 2, taskManagers: 1,
      checkpoint: { mode: 'aligned', intervalMs: 20 },
      restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
      faults: [
        { type: 'rpc-delay', kind: 'registration', latency: { minMs: 1, medianMs: 20, maxMs: 60 } },
        { type: 'crash', host: 'taskmanager-1', when: { atMs: 3 }, downMs: 3 },
      ],
      healTimeMs: 300, budgets: BUDGETS, overrides: [], mutations: [],
    };
    const { result, verdict } = judged(spec);
    const refused = result.trace.filter((e) => e.type === 'rm.registrationRefused');
    expect(refused.map((e) => e.attrs['taskExecutor'])).toEqual(['taskexecutor@taskmanager-1/0']);
    // Nothing was ever allocated to the dead incarnation after its late registration.
    const allocatedToDead = result.trace.filter((e) => e.type === 'rm.slotAllocated'
      && e.attrs['taskExecutor'] === 'taskexecutor@taskmanager-1/0');
    expect(allocatedToDead).toEqual([]);
    expect(verdict.violations.map((v) => v.summary)).toEqual([]);
    expect(result.jobStatus).toBe('FINISHED');
  });
});

describe('slot requirements under lost registration RPCs', () => {
  test('a lost declaration of the required slots is retried, so the job still gets its slots after the heal', () => {
    const spec: RunSpec = {
      version: 8, seed: 'declare-lost', job: { kind: 'flights', selection: { from: 0, to: 50 } },
      parallelism: 2, taskManagers: 1,
      checkpoint: { mode: 'aligned', intervalMs: 50 },
      restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
      faults: [{ type: 'rpc-loss', kind: 'registration', probability: 1 }],
      healTimeMs: 100, budgets: BUDGETS, overrides: [], mutations: [],
    };
    const { result, verdict } = judged(spec);
    const declared = result.trace.filter((e) => e.type === 'rpc.send' && e.attrs['method'] === 'declareRequiredSlots' && e.attrs['answer'] === false);
    expect(declared.length).toBeGreaterThan(1);
    expect(declared.some((e) => e.timeUs >= 100_000)).toBe(true);
    expect(verdict.violations.map((v) => v.summary)).toEqual([]);
    expect(result.jobStatus).toBe('FINISHED');
  });
});
