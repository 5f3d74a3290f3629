/**
 * flowOf: the flow figures compare reads from a run (record latency, throughput, time
 * back-pressured), taken from `RunResult.flow` (FlowMetrics, sim/run/flowMetrics.ts;
 * docs/statistics.md "Flow metrics").
 */
import type { RunResult } from '../../sim/run/RunResult.ts';

/** What compare takes of a run's flow; null (0 for back pressure) when the run has no value. */
export interface FlowFigures {
  /** Median latency from a source read to the commit that made the output visible, virtual ms. */
  readonly latencyP50Ms: number | null;
  /** Its 99th percentile, virtual ms. */
  readonly latencyP99Ms: number | null;
  /** Records committed per virtual second. */
  readonly throughputPerSec: number | null;
  /** Virtual ms tasks waited for credit, summed over tasks. */
  readonly backPressuredMs: number;
}

/** The flow figures of `result`: nulls when it committed nothing. */
export function flowOf(result: RunResult): FlowFigures {
  const flow = result.flow;
  return {
    latencyP50Ms: flow.latencyMs?.p50 ?? null,
    latencyP99Ms: flow.latencyMs?.p99 ?? null,
    throughputPerSec: flow.throughputPerSec,
    backPressuredMs: flow.backPressuredMs.total,
  };
}
