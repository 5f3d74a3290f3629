import { defineScenario, execution, expect, job, pause, triggerSavepoint } from '../index.ts';

export default defineScenario({
  name: 'savepoint-during-restart-after-task-finished',
  protects: 'A savepoint asked for while the job restarts, after one source subtask FINISHED and every other attempt FAILED with its lost TaskManager: no task the plan must wait for is running, so the coordinator refuses it (NOT_ALL_REQUIRED_TASKS_RUNNING) instead of planning it without the failed tasks, and the job restores and finishes exactly once.',
  source: 'mirrors Flink DefaultCheckpointPlanCalculator (checkTasksStarted, and counting only FINISHED attempts as finished) and FLINK-40482',
  job: {
    kind: 'generated',
    spec: {
      // One source subtask gets the one-record split and finishes long before the other (60 records).
      records: [Array.from({ length: 60 }, (_x, i) => i % 7), [1]],
      stages: [{ kind: 'keyed', key: 0, fn: 0, parallelism: 2 }],
      sourceParallelism: 2, sinkParallelism: 2, maxParallelism: 128,
    },
  },
  config: { taskManagers: 1, slotsPerTaskManager: 2, costsMs: { 'gen-source': 5 } },
  steps: [
    // Right after v0#1 FINISHED on its TaskExecutor: the one TaskManager goes silent past the
    // heartbeat timeout, the JobMaster fails every attempt on it at once and restarts the job.
    { at: execution.reaches('FINISHED', { task: 'v0#1' }), do: pause('taskmanager-1', 40) },
    { at: job.reaches('RESTARTING'), do: triggerSavepoint() },
  ],
  expect: [
    expect.failovers({ exactly: 1 }),
    expect.savepointFailed(1, 'NOT_ALL_REQUIRED_TASKS_RUNNING'),
    expect.markNotReached('savepoint-completed'),
    expect.jobStatus('FINISHED'),
  ],
  promise: 'exactly-once',
});
