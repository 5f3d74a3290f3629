/**
 * Oracle 7 of ORACLES.md, liveness after healing. From the heal time on, with checkpointing on,
 * no stretch of the run longer than the bound goes without a completed checkpoint (measured from
 * the heal time, between completions, and from the last completion to the job's end or the
 * run's end); a bounded job finishes within its budget. The bound, in ms:
 *
 *   heartbeatTimeout + rpcTimeout + 3 * largest restart delay
 *     + redeployment (REDEPLOY_ROUND_TRIPS RPC round trips at the largest normal RPC latency)
 *     + 2 * (interval + checkpoint timeout)
 *
 * A run that hit its budget (`max-events`, `max-time`), or went idle without a terminal job
 * status, is stuck. A job that ended FAILED because its restart strategy allowed no more attempts
 * (`scheduler.noMoreRestarts`) is an expected outcome, not a violation, and so is CANCELED (in this
 * model only a user's cancel, a `cancel` or `rescale` action, cancels a job); FAILED otherwise is
 * one. Every violation states the bound it used.
 *
 * Across job runs (a rescale, or a restore into a new run): the bound adds the stop and the
 * redeployment of the new run, `checkpointTimeout + 2 * redeploy`, for a history with rescales
 * (the gap between the old run's last checkpoint and the new run's first spans the synchronous
 * savepoint, the slots' release and the new run's deployment).
 *
 * Stop-with-savepoint (stopWithSavepoint.ts): a stop ends periodic checkpointing, so the
 * checkpoint gaps are measured up to the moment it fired, unless its savepoint failed (the
 * scheduler starts again). A job the stop FAILED after its savepoint existed
 * (StopWithSavepointStoppingException) ended as Flink 1.20 ends it: no violation. A stop whose
 * tasks wait forever for a lost confirmation or abort is a known Flink 1.20 outcome
 * ({@link isKnownStuck}): neither stuck nor a pass; judgeRun counts it (`knownStuck`).
 */
import { DEFAULT_CLUSTER_CONFIGURATION } from '../../engine/index.ts';
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';
import type { RunSpec } from '../../sim/run/RunSpec.ts';
import { DEFAULT_RPC_LATENCY } from '../../sim/WorldOptions.ts';
import { restoreRefused } from './restoreRefused.ts';
import { stopOutcome } from './stopWithSavepoint.ts';

/** RPC round trips a redeployment takes: slot request and offer, deploy, task running. */
export const REDEPLOY_ROUND_TRIPS = 4;

/** CheckpointConfig's default timeout, ms. */
const DEFAULT_CHECKPOINT_TIMEOUT_MS = 1000;

/** The bound and its parts, ms. */
export interface LivenessBound {
  readonly boundMs: number;
  readonly heartbeatTimeoutMs: number;
  readonly rpcTimeoutMs: number;
  readonly largestRestartDelayMs: number;
  readonly redeployMs: number;
  readonly intervalMs: number;
  readonly checkpointTimeoutMs: number;
  /** What a rescale adds (0 without rescale actions): checkpoint timeout + 2 * redeploy. */
  readonly rescaleMs: number;
}

/** The liveness bound of a (fully expanded) spec; missing fields take the engine's defaults. */
export function livenessBound(spec: RunSpec): LivenessBound {
  const d = DEFAULT_CLUSTER_CONFIGURATION;
  const heartbeatTimeoutMs = spec.heartbeat?.timeoutMs ?? d.heartbeatTimeoutUs / 1000;
  const rpcTimeoutMs = spec.network?.rpcTimeoutMs ?? d.rpcTimeoutUs / 1000;
  const rpcMaxMs = spec.network?.rpcLatency?.maxMs ?? DEFAULT_RPC_LATENCY.maxUs / 1000;
  const redeployMs = REDEPLOY_ROUND_TRIPS * 2 * rpcMaxMs;
  const largestRestartDelayMs = restartDelayMs(spec);
  const intervalMs = spec.checkpoint.intervalMs;
  const checkpointTimeoutMs = spec.checkpoint.timeoutMs ?? DEFAULT_CHECKPOINT_TIMEOUT_MS;
  const rescaleMs = (spec.actions ?? []).some((a) => a.type === 'rescale') ? checkpointTimeoutMs + 2 * redeployMs : 0;
  const boundMs = heartbeatTimeoutMs + rpcTimeoutMs + 3 * largestRestartDelayMs + redeployMs
    + 2 * (intervalMs + checkpointTimeoutMs) + rescaleMs;
  return {
    boundMs, heartbeatTimeoutMs, rpcTimeoutMs, largestRestartDelayMs, redeployMs, intervalMs,
    checkpointTimeoutMs, rescaleMs,
  };
}

function restartDelayMs(spec: RunSpec): number {
  const s = spec.restartStrategy;
  if (s === undefined) {
    const d = DEFAULT_CLUSTER_CONFIGURATION.restartStrategy;
    if (d.kind === 'fixed-delay') return d.delayUs / 1000;
    return d.kind === 'exponential-delay' ? d.maxDelayUs / 1000 : 0;
  }
  if (s.kind === 'fixed-delay') return s.delayMs;
  return s.kind === 'exponential-delay' ? s.maxDelayMs : 0;
}

/**
 * True for a run whose stop-with-savepoint can never end (RunResult.stuckStop): a known Flink
 * 1.20 outcome that liveness neither passes nor reports.
 */
export function isKnownStuck(result: RunResult): boolean {
  return stopOutcome(result)?.kind === 'stuck';
}

/** Judges liveness of `result`; at most one violation for checkpoints and one for the job. */
export function liveness(result: RunResult): Violation[] {
  const bound = livenessBound(result.spec);
  const violations: Violation[] = [];
  const stop = stopOutcome(result);
  if (stop?.kind === 'stuck') return violations;
  // A latest job run refused at its submission (restoreRefused.ts) is a documented Flink outcome.
  const failedAsConfigured = result.jobStatus === 'FAILED'
    && (stop?.kind === 'job-failed' || restoreRefused(result) !== undefined || result.trace.some((e) => e.type === 'scheduler.noMoreRestarts'));
  const runEndMs = result.outcome.timeMs;
  const budgetHit = result.outcome.reason === 'max-events' || result.outcome.reason === 'max-time';
  if (!failedAsConfigured && (budgetHit || result.jobEndMs === undefined)) {
    violations.push({
      property: 'liveness',
      summary: `stuck: the job did not end (run ended by ${result.outcome.reason} at `
        + `${runEndMs} ms, status ${result.jobStatus}); bound after heal ${bound.boundMs} ms`,
      details: { kind: 'stuck', outcome: result.outcome, jobStatus: result.jobStatus, bound },
      timeMs: runEndMs,
    });
  } else if (!failedAsConfigured && result.jobStatus !== 'FINISHED' && result.jobStatus !== 'CANCELED') {
    violations.push({
      property: 'liveness',
      summary: `the job ended ${result.jobStatus}, not FINISHED, and not because its restart `
        + 'strategy allowed no more attempts',
      details: { kind: 'not-finished', jobStatus: result.jobStatus, bound },
      timeMs: result.jobEndMs ?? runEndMs,
    });
  }
  if (result.spec.checkpoint.mode === 'none' || failedAsConfigured) return violations;
  const gap = longestGapAfterHeal(result, stop !== undefined && stop.kind !== 'failed' && stop.kind !== 'refused' ? stop.firedMs : undefined);
  if (gap !== undefined && gap.toMs - gap.fromMs > bound.boundMs) {
    violations.push({
      property: 'liveness',
      summary: `no checkpoint completed for ${gap.toMs - gap.fromMs} ms after the heal time `
        + `(${gap.fromMs} ms to ${gap.toMs} ms); bound ${bound.boundMs} ms`,
      details: { kind: 'no-checkpoint', ...gap, healTimeMs: result.spec.healTimeMs, bound },
      timeMs: Math.min(gap.toMs, gap.fromMs + bound.boundMs),
    });
  }
  return violations;
}

/**
 * The longest stretch from the heal time to the job's end (or the run's end) without a
 * completed checkpoint; undefined when the job ended before the heal time.
 */
function longestGapAfterHeal(result: RunResult, stopMs: number | undefined): { fromMs: number; toMs: number } | undefined {
  const healMs = result.spec.healTimeMs;
  const endMs = Math.min(result.jobEndMs ?? result.outcome.timeMs, stopMs ?? Infinity);
  if (endMs <= healMs) return undefined;
  // The decoded checkpoints, not the trace: the stored trace may be capped.
  // Checkpoints only: a savepoint the user asked for is no sign that periodic checkpointing works.
  const completions = result.checkpoints.completed.filter((c) => c.kind === 'checkpoint').map((c) => c.completionTimestampUs / 1000)
    .filter((t) => t >= healMs).sort((a, b) => a - b);
  let from = healMs;
  let longest = { fromMs: healMs, toMs: healMs };
  for (const t of [...completions, endMs]) {
    const to = Math.min(t, endMs);
    if (to - from > longest.toMs - longest.fromMs) longest = { fromMs: from, toMs: to };
    from = Math.max(from, to);
  }
  return longest;
}
