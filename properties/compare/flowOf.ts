/**
 * flowOf: the flow figures compare reads from a run (record latency, throughput, time
 * back-pressured), taken from `RunResult.flow`.
 *
 * `RunResult.flow` (FlowMetrics, sim/run/flowMetrics.ts) is being added beside this code (issue
 * 15, helper "metrics"); until it is on this branch the result is read defensively and a run
 * without it gives nulls and 0. When it lands, replace the local {@link FlowMetrics} by the
 * import of the real type and read `result.flow` directly (one line).
 */
import type { RunResult } from '../../sim/run/RunResult.ts';

/** The shape of RunResult.flow fixed by the issue 15 contract (virtual ms, records). */
interface FlowMetrics {
  readonly committedRecords: number;
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly max: number; readonly mean: number } | null;
  readonly throughputPerSec: number | null;
  readonly backPressuredMs: { readonly total: number; readonly byTask: Readonly<Record<string, number>> };
}

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

/** The flow figures of `result`; nulls and 0 when it carries no `flow`. */
export function flowOf(result: RunResult): FlowFigures {
  const flow = (result as RunResult & { readonly flow?: FlowMetrics }).flow;
  return {
    latencyP50Ms: flow?.latencyMs?.p50 ?? null,
    latencyP99Ms: flow?.latencyMs?.p99 ?? null,
    throughputPerSec: flow?.throughputPerSec ?? null,
    backPressuredMs: flow?.backPressuredMs.total ?? 0,
  };
}
