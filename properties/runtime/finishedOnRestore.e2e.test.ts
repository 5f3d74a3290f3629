/**
 * FLIP-147 restore of partly finished vertices (ORACLES.md 1, reference 1.5 and 4.2): when the
 * checkpoint restored from lists some subtasks of a vertex as finished, those are deployed as
 * finished on restore. A task deployed as finished that has inputs must still take part in
 * checkpoints through its input gates (its predecessors run, so no trigger RPC reaches it); its
 * acknowledgement carries no operator state and marks only that subtask finished, so the running
 * subtasks' state stays in the checkpoint; and the final state of such a subtask is the one of the
 * attempt that finished its input.
 *
 * Found by explore (wordcount, aligned, seed 33): the restored job never completed another
 * checkpoint and failed over on every expiry, forever.
 */
import { describe, expect, test } from 'vitest';
import type { RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { judgeRun } from '../oracles/judgeRun.ts';

function spec(seed: string): RunSpec {
  return {
    version: 8, seed, job: { kind: 'wordcount' }, parallelism: 4, taskManagers: 2,
    checkpoint: { mode: 'aligned', intervalMs: 50 },
    restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
    // Lost notifications keep finished-input tasks RUNNING (they wait for their final checkpoint
    // to be notified) while others finish; the global failure then restores from a checkpoint
    // in which the count vertex is partly finished.
    faults: [
      { type: 'rpc-loss', kind: 'notifyComplete', probability: 0.5 },
      { type: 'global-failure', when: { at: { kind: 'jobmaster', checkpoint: 5, phase: 'completed' } } },
    ],
    healTimeMs: 600, budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 }, overrides: [], mutations: [],
  };
}

describe('restore from a checkpoint with a partly finished vertex', () => {
  test.each(['partly-5', 'partly-6'])('seed %s: the job checkpoints and finishes; every oracle holds', (seed) => {
    const result = simulate(spec(seed));
    const restored = result.trace.find((e) => e.type === 'checkpoint.restored' && Number(e.attrs['checkpointId']) > 0);
    const from = result.checkpoints.completed.find((c) => c.checkpointId === Number(restored?.attrs['checkpointId']));
    expect(from).toBeDefined();
    const partlyFinished = (from?.finishedTasks ?? []).filter((t) => !(from?.fullyFinishedVertices ?? []).includes(t.split('#')[0] ?? ''));
    expect(partlyFinished.length).toBeGreaterThan(0);
    // Those subtasks, deployed as finished, acknowledged a checkpoint after the restore.
    const restoredAtUs = restored?.timeUs ?? 0;
    const acked = result.trace.filter((e) => e.type === 'checkpoint.acknowledged' && e.timeUs > restoredAtUs
      && partlyFinished.some((t) => String(e.attrs['task']).startsWith(`${t}@`)));
    expect(acked.length).toBeGreaterThan(0);
    expect(result.jobStatus).toBe('FINISHED');
    expect(judgeRun(result).violations.map((v) => v.summary)).toEqual([]);
  });
});
