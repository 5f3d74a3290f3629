/**
 * StreamTask.endData: a task's data ended. DRAIN (the input ended, or a stop with drain) ends the
 * operators' input and finishes them; NO_DRAIN (a stop without drain) leaves them unfinished.
 * Either way the caller counts the operators as finished for checkpoints (Flink's
 * finishedOperators), and downstream hears EndOfData with the mode. The task's keyed state at
 * that point is what the harness's oracles compare with the job's expected result.
 *
 * @see org.apache.flink.streaming.runtime.tasks.StreamTask#endData
 */
import type { Tracer } from '../../api/Tracer.ts';
import type { StopMode } from '../../checkpoint/CheckpointBarrier.ts';
import type { ResultPartition } from '../../io/ResultPartition.ts';
import type { JobVertex } from '../../jobgraph/JobGraph.ts';
import type { OperatorSnapshot } from '../operators/StreamOperator.ts';
import type { OperatorChain } from './OperatorChain.ts';

/** The checkpoint id used for the final-state snapshot a finished task reports to oracles. */
export const FINAL_STATE_SNAPSHOT = -1;

/**
 * Ends the data of `attemptId`'s chain (of `vertex`) in `mode` and tells its `partitions`.
 * @returns the final state of the chain's keyed operators, in chain order.
 */
export function endData(o: {
  readonly chain: OperatorChain; readonly mode: StopMode; readonly vertex: JobVertex;
  readonly partitions: readonly ResultPartition[]; readonly tracer: Tracer; readonly attemptId: string;
}): OperatorSnapshot[] {
  const { chain, mode } = o;
  if (mode === 'DRAIN') chain.endInputAndFinish();
  for (const p of o.partitions) p.broadcastEvent({ type: 'end-of-data', stopMode: mode }, {});
  // Only keyed operators: snapshotting a sink would pre-commit a transaction (a side effect).
  const finalState: OperatorSnapshot[] = [];
  chain.operators.forEach((op, i) => {
    if (o.vertex.operators[i]?.spec.kind !== 'keyedProcess') return;
    const snap = op.snapshotState(FINAL_STATE_SNAPSHOT);
    if (snap !== undefined) finalState.push(snap);
  });
  o.tracer.event('task.endOfInput', { task: o.attemptId, ...(mode === 'NO_DRAIN' ? { stopMode: mode } : {}) });
  return finalState;
}
