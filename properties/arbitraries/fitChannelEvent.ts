/**
 * fitChannelEvent: aims a drawn channel-event fault at a channel the job has. Faults are drawn
 * before the job is known, so a channel-event fault's `to` and `from` are placeholders
 * `v<a>#<b>` (faultArbitrary's channelEventFaultArbitrary) that this maps onto the job graph:
 *
 * - `to`: a subtask with input channels. Three placeholder vertices in four (`a` mod 4 below 3)
 *   aim at the vertices whose subtasks read two or more input channels, where one channel can be
 *   late relative to another (what a barrier handler's interleavings need); the fourth at any
 *   vertex with inputs. Then vertex `a mod n` of those, subtask `b mod parallelism`.
 * - `from`: one of the channels into `to` (inputChannels.ts), the `(a * 4 + b)`-th modulo their
 *   number.
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

const PLACEHOLDER = /^v(\d+)#(\d+)$/;

/** `f` aimed at `graph`'s channels, or undefined when the job has none. */
export function fitChannelEvent(f: ChannelEventFault, graph: JobGraph): ChannelEventFault | undefined {
  const withInputs = graph.vertices.filter((v) => !v.isSource);
  if (withInputs.length === 0) return undefined;
  const channels = (v: { id: string }): number => inputChannelsOf(graph, `${v.id}#0`).length;
  const fanIn = withInputs.filter((v) => channels(v) >= 2);
  const to = PLACEHOLDER.exec(f.to);
  const a = Number(to?.[1] ?? 0);
  const b = Number(to?.[2] ?? 0);
  const among = a % CHANNEL_EVENT_TARGETS < CHANNEL_EVENT_TARGETS - 1 && fanIn.length > 0 ? fanIn : withInputs;
  const vertex = among[a % among.length] ?? withInputs[0];
  if (vertex === undefined) return undefined;
  const task = `${vertex.id}#${b % vertex.parallelism}`;
  const { from: drawnFrom, ...rest } = f;
  if (drawnFrom === undefined) return { ...rest, to: task };
  const into = inputChannelsOf(graph, task);
  const m = PLACEHOLDER.exec(drawnFrom);
  const from = into[(Number(m?.[1] ?? 0) * 4 + Number(m?.[2] ?? 0)) % into.length];
  return from === undefined ? { ...rest, to: task } : { ...rest, to: task, from };
}
