import { describe, expect, test } from 'vitest';
import type { RunResult } from '../../sim/run/RunResult.ts';
import { liveness, livenessBound } from './liveness.ts';
import { clusterRunResult } from './testing/clusterRunResult.ts';
import { doctor, SAMPLE_GRAPH, sampleRun } from './testing/sampleRuns.ts';

const kinds = (r: RunResult): string[] => liveness(r).map((v) => (v.details as { kind: string }).kind);

describe('oracle 7: liveness', () => {
  test('the bound follows the configuration and its defaults', () => {
    const spec = sampleRun('aligned', false).spec;
    // 25 heartbeat + 20 rpc + 3 * 10 restart + 4 * 2 * 2 redeploy + 2 * (20 + 1000).
    expect(livenessBound(spec).boundMs).toBe(25 + 20 + 30 + 16 + 2 * 1020);
    const custom = {
      ...spec,
      heartbeat: { intervalMs: 5, timeoutMs: 50 },
      network: { rpcTimeoutMs: 30, rpcLatency: { minMs: 1, medianMs: 2, maxMs: 5 } },
      restartStrategy: { kind: 'exponential-delay' as const, initialDelayMs: 1, maxDelayMs: 40, multiplier: 2, attempts: 'unlimited' as const },
      checkpoint: { ...spec.checkpoint, timeoutMs: 100 },
    };
    expect(livenessBound(custom)).toMatchObject({ boundMs: 50 + 30 + 120 + 40 + 240, redeployMs: 40 });
    expect(livenessBound({ ...custom, restartStrategy: { kind: 'none' } }).largestRestartDelayMs).toBe(0);
    expect(livenessBound({ ...custom, restartStrategy: { kind: 'fixed-delay', attempts: 3, delayMs: 7 } }).largestRestartDelayMs).toBe(7);
  });

  test('holds on real runs that finish, in every mode', () => {
    for (const mode of ['aligned', 'at-least-once', 'none'] as const) {
      expect(liveness(sampleRun(mode, true))).toEqual([]);
    }
  });

  test('a run that hit its budget is stuck, and says the bound', () => {
    const { result } = clusterRunResult({ graph: SAMPLE_GRAPH, seed: 'b', checkpoint: { mode: 'aligned', intervalMs: 20 },
      maxTimeMs: 100, cluster: { config: { slotsPerTaskManager: 1 } } });
    const [v] = liveness(result);
    expect(v?.summary).toMatch(/^stuck: the job did not end \(run ended by max-time at \d+(\.\d+)? ms, status RUNNING\); bound after heal 2131 ms$/);
    expect(v?.timeMs).toBe(result.outcome.timeMs);
  });

  test('FAILED with no restarts left is expected; FAILED otherwise is not', () => {
    const { result } = clusterRunResult({
      graph: SAMPLE_GRAPH, seed: 'none', checkpoint: { mode: 'aligned', intervalMs: 20 },
      cluster: { config: { slotsPerTaskManager: 1, restartStrategy: { kind: 'none' } } },
      setUp: (c) => c.world.at(100_000, 'crash', () => c.world.crash('taskmanager-2')),
    });
    expect(result.jobStatus).toBe('FAILED');
    expect(liveness(result)).toEqual([]);
    const trace = result.trace.filter((e) => e.type !== 'scheduler.noMoreRestarts');
    expect(kinds(doctor(result, { trace }))).toEqual(['not-finished']);
  });

  test('no checkpoint for longer than the bound after the heal time is caught', () => {
    const r = sampleRun('aligned', false);
    const spec = { ...r.spec, restartStrategy: { kind: 'none' as const },
      checkpoint: { ...r.spec.checkpoint, intervalMs: 10, timeoutMs: 10 } };
    const bound = livenessBound(spec).boundMs;
    expect(bound).toBe(25 + 20 + 16 + 40);
    expect(liveness(doctor(r, { spec: { ...spec, healTimeMs: 0 } }))).toEqual([]);
    const none = doctor(r, { spec: { ...spec, healTimeMs: 0 }, checkpoints: { ...r.checkpoints, completed: [] } });
    const [v] = liveness(none);
    expect(v?.summary).toBe(`no checkpoint completed for ${r.jobEndMs} ms after the heal time (0 ms to ${r.jobEndMs} ms); bound ${bound} ms`);
    expect(v?.timeMs).toBe(bound);
    // Healed after the job ended: nothing to judge.
    expect(liveness(doctor(none, { spec: { ...spec, healTimeMs: 10_000 } }))).toEqual([]);
    expect(liveness(doctor(none, { spec: { ...spec, healTimeMs: 0, checkpoint: { ...spec.checkpoint, mode: 'none' } } }))).toEqual([]);
  });
});
