/**
 * timelineOf: one run as a checkpoint timeline (CompareReport's Timeline): every triggered
 * checkpoint from trigger to completion or failure (Flink's checkpoint statistics), every fault
 * action (the trace's `fault` events, which the run also returns as `RunResult.faults`; not the
 * `skipped` ones, which never acted) named by describeFault, and every restore from a checkpoint. Virtual ms. Pure.
 */
import type { RunResult } from '../../sim/run/RunResult.ts';
import type { Fault, RunSpec } from '../../sim/run/RunSpec.ts';
import { describeFault } from '../describeFault.ts';
import type { Timeline } from './CompareReport.ts';

/** The timeline of `result`, the run of `spec`. */
export function timelineOf(spec: RunSpec, result: RunResult): Timeline {
  return {
    runSeed: spec.seed,
    endMs: result.outcome.timeMs,
    checkpoints: result.checkpointStats.checkpoints.map((c) => ({
      id: c.id,
      triggerMs: c.triggerTimeMs,
      // In progress at the end of the run: no end.
      endMs: c.completionTimeMs ?? c.failureTimeMs ?? null,
      status: c.status,
    })),
    // A fault whose point came at or after the heal time is logged `skipped`: it never acted, so
    // it is no mark on the timeline (compare lists it among the faults that never fired).
    faults: result.faults.filter((f) => f.action !== 'skipped').map((f) => {
      const fault = spec.faults[f.fault] as Fault | undefined;
      return { timeMs: f.timeMs, index: f.fault, text: `${f.action}: ${fault === undefined ? f.type : describeFault(fault)}` };
    }),
    restores: result.checkpointStats.restores.map((r) => ({ timeMs: r.restoreTimeMs, checkpointId: r.checkpointId })),
  };
}
