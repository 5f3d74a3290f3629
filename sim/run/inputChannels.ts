/**
 * The data channels of a job graph, as channel-event faults name them: which upstream subtasks
 * (`<vertex>#<subtask>`) feed a task through one input channel each. As the scheduler deploys
 * them (DefaultScheduler's input gates): a forward edge connects subtask i to subtask i only,
 * every other edge (hash, rebalance, broadcast) connects every producer subtask to every
 * consumer subtask. Shared by the run's input check (a channel-event fault must name a task with
 * inputs, and a `from` that really feeds it) and the generator (which aims drawn faults at them).
 */
import type { createJobGraph } from '../../engine/index.ts';
import { SimInputError } from '../SimInputError.ts';
import type { Fault } from './RunSpec.ts';

type JobGraph = ReturnType<typeof createJobGraph>;

/**
 * The upstream subtasks of `task` (`<vertex>#<subtask>`), one per input channel, in edge and then
 * subtask order; empty for a source task or a subtask the graph lacks.
 */
export function inputChannelsOf(graph: JobGraph, task: string): string[] {
  const m = /^(v\d+)#(\d+)$/.exec(task);
  if (m === null) return [];
  const [, vertex, subtask] = m;
  const consumer = graph.vertices.find((v) => v.id === vertex);
  if (consumer === undefined || Number(subtask) >= consumer.parallelism) return [];
  return graph.edges.filter((e) => e.target === vertex).flatMap((e) => {
    const producer = graph.vertices.find((v) => v.id === e.source);
    if (producer === undefined) return [];
    if (e.partitioner === 'forward') return [`${producer.id}#${subtask}`];
    return Array.from({ length: producer.parallelism }, (_x, i) => `${producer.id}#${i}`);
  });
}

/**
 * Checks every channel-event fault of `faults` against `graph`: `to` names a subtask with input
 * channels, and `from`, when given, a subtask with a channel into it.
 * @throws SimInputError (one line) naming the fault's field and what exists.
 */
export function checkChannelEventTasks(faults: readonly Fault[], graph: JobGraph): void {
  faults.forEach((f, i) => {
    if (f.type !== 'channel-event') return;
    const channels = inputChannelsOf(graph, f.to);
    if (channels.length === 0) {
      const withInputs = graph.vertices.filter((v) => !v.isSource)
        .flatMap((v) => Array.from({ length: v.parallelism }, (_x, j) => `${v.id}#${j}`));
      const exists = graph.vertices.some((v) => f.to.startsWith(`${v.id}#`) && Number(f.to.split('#')[1]) < v.parallelism);
      throw new SimInputError(`faults[${i}].to: ${exists ? `${f.to} is a source task, it has no input channels`
        : `no task ${f.to} in this job`} (tasks with input channels: ${withInputs.join(', ') || 'none'})`);
    }
    if (f.from !== undefined && !channels.includes(f.from)) {
      throw new SimInputError(`faults[${i}].from: no channel from ${f.from} into ${f.to} `
        + `(${f.to} reads from ${[...new Set(channels)].join(', ')})`);
    }
  });
}
