import { checkpoint, crash, defineScenario, expect } from '../index.ts';

export default defineScenario({
  name: 'wordcount-crash-during-checkpoint',
  protects: 'A TaskManager lost while the wordcount job aligns checkpoint 3 in its keyed counting task: checkpoint 3 is aborted, the job restores from checkpoint 2, and every word count is committed exactly once with counts numbered 1..n per word.',
  job: { kind: 'wordcount' },
  // 12 ms a line at the source: the 32 lines last about ten checkpoint intervals.
  config: { costsMs: { 'wordcount-source': 12 } },
  steps: [
    // v0 is the source chained with the tokenizer, v1 the keyed count chained with the sink.
    { at: checkpoint(3).firstBarrierOn('v1#0'), do: crash('taskmanager-1') },
  ],
  expect: [
    expect.markReached('crash'),
    expect.at(checkpoint(3).triggered(), expect.checkpointsCompleted({ exactly: 2 })),
    expect.checkpointAborted(3, 'CHECKPOINT_COORDINATOR_SUSPEND'),
    expect.restoredFrom(2, { nth: 1 }),
    expect.checkpointCompleted(4),
    expect.jobStatus('FINISHED'),
  ],
});
