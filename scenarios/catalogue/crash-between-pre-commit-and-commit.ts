import { checkpoint, crash, defineScenario, expect } from '../index.ts';

export default defineScenario({
  name: 'crash-between-pre-commit-and-commit',
  protects: 'A TaskManager lost the moment checkpoint 3 completes, before any sink task heard of it: both sink transactions of checkpoint 3 are pre-committed but not committed, and the restore from checkpoint 3 commits them from the restored state (recoverAndCommit), exactly once.',
  source: 'mirrors Flink TwoPhaseCommitSinkFunctionTest#testFailBeforeNotify and TwoPhaseCommitSinkFunction#initializeState (recoverAndCommit of the restored pending transactions)',
  steps: [
    // The completion's confirmCheckpoint RPCs are on their way: the one to the crashed
    // TaskManager's sink is lost with it, and the other sink task fails (its input connection
    // broke) before its own arrives, so no transaction of checkpoint 3 is committed by a
    // notification (trace: sink.recover-and-commit of both subtasks' epoch-2 transactions).
    { at: checkpoint(3).completed(), do: crash('taskmanager-1') },
  ],
  expect: [
    expect.restoredFrom(3, { nth: 1 }),
    expect.at(checkpoint(3).completed(), expect.failovers({ exactly: 0 })),
    expect.jobStatus('FINISHED'),
  ],
  promise: 'exactly-once',
});
