/**
 * explore's per-mode count of the aborts and failovers the attribution judgement could not trace
 * to a fault, an action, a limit, subsumption, finishing tasks or a slow path
 * (properties/oracles/attribution.ts), with a few examples that say which run and which event, and
 * how to regenerate that run (`replay --seed S --path P`). Not a violation yet: a count to drive
 * to zero before the lead makes it one.
 */
import type { AttributionCategory, AttributionJudgement } from '../oracles/attribution.ts';

/** At most this many examples per mode. */
export const MAX_UNATTRIBUTED_EXAMPLES = 5;

/** One unattributed abort or failover, where to find it. */
export interface UnattributedExample {
  /** The run's number in its mode (from 1); fast-check's path of it is `run - 1`. */
  readonly run: number;
  readonly path: string;
  /** The RunSpec's world seed. */
  readonly seed: string;
  readonly seq: number;
  readonly timeMs: number;
  readonly type: string;
  readonly checkpointId?: number;
  readonly reason: string;
  /** The event types of its cause chain, from it back to where the links end. */
  readonly chain: readonly string[];
}

/** The per-mode figure (`modes.<mode>.unattributed` of explore's JSON). */
export interface UnattributedSummary {
  aborts: number;
  failovers: number;
  /** Runs with at least one. */
  runs: number;
  examples: UnattributedExample[];
  /** Aborts and failovers attributed, per category, summed over the mode's runs. */
  attributed: Partial<Record<AttributionCategory, number>>;
}

/** An empty figure. */
export function emptyUnattributed(): UnattributedSummary {
  return { aborts: 0, failovers: 0, runs: 0, examples: [], attributed: {} };
}

/**
 * Adds run number `run` (from 1; world seed `seed`) with judgement `j` to `summary`.
 */
export function recordUnattributed(summary: UnattributedSummary, j: AttributionJudgement, run: number, seed: string): void {
  for (const [k, n] of Object.entries(j.attributed) as [AttributionCategory, number][]) {
    summary.attributed[k] = (summary.attributed[k] ?? 0) + n;
  }
  if (j.unattributedAborts + j.unattributedFailovers === 0) return;
  summary.aborts += j.unattributedAborts;
  summary.failovers += j.unattributedFailovers;
  summary.runs++;
  for (const u of j.unattributed) {
    if (summary.examples.length >= MAX_UNATTRIBUTED_EXAMPLES) break;
    summary.examples.push({
      run, path: String(run - 1), seed, seq: u.seq, timeMs: u.timeMs, type: u.type,
      ...(u.checkpointId === undefined ? {} : { checkpointId: u.checkpointId }), reason: u.reason, chain: u.chain,
    });
  }
}

/** One line per example, for people: which run, which event, why unattributed. */
export function describeUnattributed(e: UnattributedExample): string {
  const what = e.type === 'checkpoint.aborted' ? `abort of checkpoint ${String(e.checkpointId)} (${e.reason})`
    : e.type === 'scheduler.globalFailure' ? `global failover (${e.reason})` : `task failure (${e.reason})`;
  return `run ${e.run} (path ${e.path}, seed ${e.seed}): ${what} at ${e.timeMs} ms, event #${e.seq}; `
    + `its cause chain ends at ${e.chain.at(-1) ?? '?'}`;
}
