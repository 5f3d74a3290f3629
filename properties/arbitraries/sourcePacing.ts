/**
 * How explore paces a run's source so that checkpoints interleave with its records
 * ({@link sourcePacing}, {@link withSourcePacing}), and what that pacing says about a run before
 * it runs: the span of its input and the last checkpoint it should complete.
 */
import { WORDCOUNT_TEXT, WORDCOUNT_UIDS } from '../../sim/workloads/wordcount.ts';
import type { JobSpec, RunSpec } from '../../sim/run/RunSpec.ts';
import { expandRunSpec } from '../../sim/run/expandRunSpec.ts';
import { runGraph } from '../../sim/run/simulate.ts';
import { resolveJob } from '../../sim/jobs/resolveJob.ts';

/** Virtual time the job should span, ms: long enough for about ten checkpoint intervals. */
export const TARGET_SPAN_MS = 1000;

/** Records per network buffer when nothing smaller is needed (ClusterConfiguration's default). */
const DEFAULT_RECORDS_PER_BUFFER = 32;

/** The uid of each job's source operator (whose per-record cost paces the run). */
const SOURCE_UID: Readonly<Record<Exclude<JobSpec['kind'], 'module'>, string>> = {
  flights: 'flights-source',
  wordcount: WORDCOUNT_UIDS.source,
  generated: 'gen-source',
};

/** How a run's source is paced: its per-record cost and the records per network buffer. */
export interface SourcePacing {
  /** Per-record cost of the source, ms (a multiple of 0.001, at least 0.001). */
  readonly sourceCostMs: number;
  /**
   * Per-record cost of every other operator, ms: a twentieth of the source's (a multiple of
   * 0.001, at least 0.001), so the source sets the pace and a slow-task fault (10 or 100 times)
   * can make any operator the bottleneck, which is what back pressure needs.
   */
  readonly operatorCostMs: number;
  /** Records per network buffer, 1..32. */
  readonly recordsPerBuffer: number;
}

/**
 * Paces a run's source so that checkpoints interleave with its records (why: a run whose input
 * is read before the first checkpoint completes tests no restore from a checkpoint, and in
 * at-least-once mode no duplicates).
 *
 * - The input (`records` over `parallelism` source subtasks) spans about {@link TARGET_SPAN_MS}
 *   of virtual time, but no record costs more than half a checkpoint interval.
 * - A source task processes up to one network buffer of records in one lazy batch (StreamTask,
 *   MailboxProcessor). A checkpoint trigger (a mail) waits only for the record in progress, but
 *   the output flusher and the network credit, which share the task's thread, wait for the
 *   batch; so the buffer holds at most half an interval of records (and records leave the
 *   source at least twice an interval), at least 1 and at most the default 32. Small
 *   buffers are a real configuration (large records in Flink's 32 KiB segments).
 */
export function sourcePacing(records: number, parallelism: number, intervalMs: number): SourcePacing {
  const spanCostMs = (TARGET_SPAN_MS * parallelism) / Math.max(1, records);
  const sourceCostMs = Math.max(0.001, Math.round(Math.min(spanCostMs, intervalMs / 2) * 1000) / 1000);
  const recordsPerBuffer = Math.max(1, Math.min(DEFAULT_RECORDS_PER_BUFFER, Math.floor(intervalMs / (2 * sourceCostMs))));
  const operatorCostMs = Math.max(0.001, Math.round(sourceCostMs / 20 * 1000) / 1000);
  return { sourceCostMs, operatorCostMs, recordsPerBuffer };
}

/**
 * `spec` with its source paced by {@link sourcePacing} for its job, its source's parallelism and
 * its checkpoint interval: `costsMs` of every operator (the source's and the others') and
 * `network.recordsPerBuffer` (left out at the default 32) are set, replacing any already there;
 * the rest is kept. Apply it again after changing the parallelism or the interval of a drawn spec.
 */
export function withSourcePacing(spec: RunSpec): RunSpec {
  const { network: _n, costsMs: _c, ...rest } = spec;
  const { nodes, sourceUid, sourceParallelism } = sourceOf(rest);
  const pacing = sourcePacing(recordsOf(spec.job), sourceParallelism, spec.checkpoint.intervalMs);
  const { recordsPerBuffer: _old, ...networkRest } = spec.network ?? {};
  const network = {
    ...networkRest,
    ...(pacing.recordsPerBuffer === DEFAULT_RECORDS_PER_BUFFER ? {} : { recordsPerBuffer: pacing.recordsPerBuffer }),
  };
  const costsMs: Record<string, number> = {};
  for (const n of nodes) {
    const isSource = spec.job.kind === 'module' ? n.spec.kind === 'source' : n.uid === sourceUid;
    costsMs[n.uid] = isSource ? pacing.sourceCostMs : pacing.operatorCostMs;
  }
  return { ...rest, ...(Object.keys(network).length === 0 ? {} : { network }), costsMs };
}

/** The run graph's nodes of `spec`'s job, its (first) source's uid and that source's parallelism. */
function sourceOf(spec: RunSpec): { nodes: ReturnType<typeof runGraph>['nodes']; sourceUid: string; sourceParallelism: number } {
  // Faults and actions may still hold placeholders (fromLastCheckpoint.ts) this estimate resolves.
  const nodes = runGraph(expandRunSpec({ ...spec, faults: [], actions: [] })).nodes;
  const sourceUid = spec.job.kind === 'module' ? moduleSourceUid(nodes) : SOURCE_UID[spec.job.kind];
  return { nodes, sourceUid, sourceParallelism: nodes.find((n) => n.uid === sourceUid)?.parallelism ?? 1 };
}

/**
 * The span of `spec`'s input at its pacing ({@link sourcePacing}), ms: its source subtasks read
 * their share of the input (`records / source parallelism`) at the source's per-record cost.
 */
function pacedSpanMs(spec: RunSpec): number {
  const { sourceParallelism } = sourceOf(spec);
  const records = recordsOf(spec.job);
  const { sourceCostMs } = sourcePacing(records, sourceParallelism, spec.checkpoint.intervalMs);
  return Math.ceil(records / sourceParallelism) * sourceCostMs;
}

/**
 * The id of the last checkpoint a run of `spec` is expected to complete when nothing goes wrong:
 * a checkpoint completes every interval while the source reads its input ({@link pacedSpanMs}),
 * plus the one its finishing tasks wait for. At least 1. An estimate (measured on explore's runs:
 * the true last is this one, or one to three more when slow operators or restores lengthen the
 * run); the targeted strategy aims at checkpoints around it.
 */
export function expectedLastCheckpoint(spec: RunSpec): number {
  return Math.floor(pacedSpanMs(spec) / spec.checkpoint.intervalMs) + 1;
}

/**
 * {@link expectedLastCheckpoint} plus two, where placeholders counted back from the run's last
 * checkpoint (fromLastCheckpoint.ts) start: over 200 fault-free generated runs the last completed
 * id was this or one or two below it in 93 % of them (flights: 97 % of 80), and faults make runs
 * longer (over 200 generated runs with faults: 54 % there, 45 % later), so the placeholders
 * -2..0 it resolves aim at a run's last few checkpoints.
 */
export function lastCheckpointEstimate(spec: RunSpec): number {
  return expectedLastCheckpoint(spec) + 2;
}

/**
 * The source a job module's pacing follows: its first source. (Every source gets the source's
 * cost; a job with several sources is paced for the first one's parallelism.)
 */
function moduleSourceUid(nodes: readonly { readonly uid: string; readonly spec: { readonly kind: string } }[]): string {
  return nodes.find((n) => n.spec.kind === 'source')?.uid ?? '';
}

function recordsOf(job: JobSpec): number {
  if (job.kind === 'module') return resolveJob(job).splits.reduce((n, s) => n + s.records.length, 0);
  if (job.kind === 'flights') return job.selection.to - job.selection.from;
  if (job.kind === 'generated') return job.spec.records.reduce((n, r) => n + r.length, 0);
  return WORDCOUNT_TEXT.length;
}

