/**
 * fitChannelEvent: aims a drawn channel-event fault at a channel the job has. Faults are drawn
 * before the job is known, so a channel-event fault's `to` and `from` are placeholders
 * `v<a>#<b>` (faultArbitrary's channelEventFaultArbitrary) that this maps onto the job graph:
 *
 * - `to`: a subtask with input channels, of the vertex the placeholder vertex `a` (mod 4) picks:
 *   0, for a barrier the first vertex with inputs in topological order whose cancellation
 *   markers, should a hold make its checkpoints expire, can meet on two channels of one task
 *   further down ({@link markersMeetBelow}; the first vertex with inputs when none can), for a marker the
 *   last vertex whose subtasks read two or more input channels (where the markers of every
 *   upstream abort meet on several channels); 1 and 2, any vertex whose subtasks read two or
 *   more input channels, where one channel can be late relative to another (what a barrier
 *   handler's interleavings need), by `b`; 3, any vertex with inputs, by `b`. A job without a
 *   vertex that reads two or more takes any vertex with inputs. A placeholder vertex `a` of
 *   {@link PAIR_TARGET} (a pair race's) is the first vertex with inputs whose subtasks' markers
 *   meet on two channels of one task right below (parallelism two or more, an all-to-all edge
 *   out), else as 0. Then subtask `b mod parallelism`.
 * - `from`: one of the channels into `to` (inputChannels.ts), the `(a * 4 + b)`-th modulo their
 *   number.
 *
 * - `delayMs`: a placeholder `-k` (a long hold) becomes k checkpoint timeouts and one interval
 *   of `checkpoint` (the run's settings), whole ms.
 *
 * A job without a task with inputs (one chain from source to sink) has no channel: the fault is
 * dropped.
 */
import type { createJobGraph } from '../../engine/index.ts';
import { inputChannelsOf } from '../../sim/run/inputChannels.ts';
import type { ChannelEventFault } from '../../sim/run/RunSpec.ts';

type JobGraph = ReturnType<typeof createJobGraph>;

/** How many placeholder vertices a drawn `to` ranges over (see the file comment). */
export const CHANNEL_EVENT_TARGETS = 4;

/** The placeholder vertex of a pair race's holds (see the file comment). */
export const PAIR_TARGET = CHANNEL_EVENT_TARGETS;

const PLACEHOLDER = /^v(\d+)#(\d+)$/;

/** The checkpoint timeout when a spec names none (Flink's default here, CheckpointConfig). */
const DEFAULT_TIMEOUT_MS = 1000;

/**
 * `f` aimed at `graph`'s channels, its long hold resolved against `checkpoint` (interval and
 * timeout, ms), or undefined when the job has no channel.
 */
export function fitChannelEvent(f: ChannelEventFault, graph: JobGraph,
  checkpoint: { readonly intervalMs: number; readonly timeoutMs?: number }): ChannelEventFault | undefined {
  const withInputs = graph.vertices.filter((v) => !v.isSource);
  if (withInputs.length === 0) return undefined;
  const channels = (v: { id: string }): number => inputChannelsOf(graph, `${v.id}#0`).length;
  const fanIn = withInputs.filter((v) => channels(v) >= 2);
  const to = PLACEHOLDER.exec(f.to);
  const a = Number(to?.[1] ?? 0);
  const b = Number(to?.[2] ?? 0);
  const kind = a === PAIR_TARGET ? 0 : a % CHANNEL_EVENT_TARGETS;
  const among = kind < CHANNEL_EVENT_TARGETS - 1 && fanIn.length > 0 ? fanIn : withInputs;
  const first = f.event === 'barrier' ? withInputs.find((v) => markersMeetBelow(graph, v.id)) ?? withInputs[0]
    : among[among.length - 1];
  const pair = a === PAIR_TARGET ? withInputs.find((v) => v.parallelism >= 2
    && graph.edges.some((e) => e.source === v.id && e.partitioner !== 'forward')) : undefined;
  const vertex = pair ?? (kind === 0 ? first : among[b % among.length]) ?? withInputs[0];
  if (vertex === undefined) return undefined;
  const task = `${vertex.id}#${b % vertex.parallelism}`;
  const { from: drawnFrom, ...drawn } = f;
  const rest = drawn.delayMs >= 0 ? drawn
    : { ...drawn, delayMs: -drawn.delayMs * (checkpoint.timeoutMs ?? DEFAULT_TIMEOUT_MS) + checkpoint.intervalMs };
  if (drawnFrom === undefined) return { ...rest, to: task };
  const into = inputChannelsOf(graph, task);
  const m = PLACEHOLDER.exec(drawnFrom);
  const from = into[(Number(m?.[1] ?? 0) * 4 + Number(m?.[2] ?? 0)) % into.length];
  return from === undefined ? { ...rest, to: task } : { ...rest, to: task, from };
}

/**
 * True if cancellation markers sent by one subtask of `vertex` can reach some task on two or
 * more input channels: every task that receives a marker aborts the checkpoint and forwards it
 * on all its outputs, so the markers reach every subtask of a vertex below an all-to-all edge
 * (only the same subtask below a forward edge), and meet where a task reads such a vertex of
 * parallelism two or more over an all-to-all edge.
 */
export function markersMeetBelow(graph: JobGraph, vertex: string): boolean {
  // Per vertex reached: do all its subtasks receive the markers, or only one?
  const reached = new Map<string, 'one' | 'all'>([[vertex, 'one']]);
  for (const v of graph.vertices) {
    const status = reached.get(v.id);
    if (status === undefined) continue;
    for (const e of graph.edges.filter((x) => x.source === v.id)) {
      const allToAll = e.partitioner !== 'forward';
      if (allToAll && status === 'all' && v.parallelism >= 2) return true;
      const next = allToAll ? 'all' : status;
      if (reached.get(e.target) !== 'all') reached.set(e.target, next);
    }
  }
  return false;
}
