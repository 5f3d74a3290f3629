/**
 * The planted bugs for people (`checkpoint-sim mutants list`): each id with the Flink issue
 * behind it, the engine file holding its switch, what the switch does and what catches it, in
 * brief; docs/planted-bugs.md tells each in full (a test keeps the two and PLANTED_BUG_IDS in step).
 */

export interface PlantedBugInfo {
  readonly id: string;
  /** The Flink JIRA issue behind it, when the code names one. */
  readonly flinkIssue: string | null;
  /** The engine file that holds the switch. */
  readonly source: string;
  readonly what: string;
  readonly caughtBy: string;
}

export const PLANTED_BUG_CATALOGUE: readonly PlantedBugInfo[] = [
  {
    id: 'aligned-resume-immediately', flinkIssue: null, source: 'engine/io/checkpointing/SingleCheckpointBarrierHandler.ts',
    what: 'in aligned mode, a channel is resumed as soon as it delivers its barrier, instead of staying blocked until every channel has delivered it.',
    caughtBy: 'consistent-cut (or end-to-end-exactly-once)',
  },
  {
    id: 'sink-commits-only-notified', flinkIssue: 'FLINK-10377', source: 'engine/streaming/sinks/TwoPhaseCommitSinkOperator.ts',
    what: 'notifyCheckpointComplete(n) commits only the transaction pending for exactly n, not every pending transaction with id up to n.',
    caughtBy: 'end-to-end-exactly-once (records never committed) or storage-invariants (transactions left pre-committed)',
  },
  {
    id: 'restore-handle-replaces', flinkIssue: 'FLINK-4731', source: 'engine/state/HeapKeyedStateBackend.ts',
    what: 'a heap keyed backend restored from several snapshots (a scale-in hands a subtask the key groups of several old subtasks) keeps only the last one: each snapshot replaces what the previous ones restored.',
    caughtBy: 'a scale-in: the consistent cut of the new run\'s first checkpoint, and the end-to-end output, miss the key groups of all but one old subtask (properties/suites/mutants.prop.test.ts; explore draws rescales)',
  },
  {
    id: 'tracker-recreates-aborted', flinkIssue: 'FLINK-5285', source: 'engine/io/checkpointing/CheckpointBarrierTracker.ts',
    what: 'in CheckpointBarrierTracker, a cancellation marker for an id the tracker has already handled creates a fresh aborted entry and sends the abort downstream again.',
    caughtBy: 'not caught by a search yet (docs/planted-bugs.md says why)',
  },
  {
    id: 'fm-ignore-expired', flinkIssue: 'FLINK-17351', source: 'engine/checkpoint/CheckpointPlantedBugs.ts',
    what: 'CHECKPOINT_EXPIRED is not counted toward tolerableFailures.',
    caughtBy: 'failure-handling (the fail callback the rule demands never comes)',
  },
  {
    id: 'fm-success-before-store', flinkIssue: 'FLINK-32347', source: 'engine/checkpoint/CheckpointPlantedBugs.ts',
    what: 'success is reported before the _metadata write and the store update, and a failure there is not reported to the failure manager.',
    caughtBy: 'failure-handling (unreported-failure: the abort of the checkpoint whose metadata write failed is never reported)',
  },
  {
    id: 'fm-count-past-checkpoints', flinkIssue: 'FLINK-18336', source: 'engine/checkpoint/CheckpointPlantedBugs.ts',
    what: 'failures of checkpoint ids at or below the last successful id are counted.',
    caughtBy: 'failure-handling (spurious-failover: a savepoint\'s task-side failure, older than a checkpoint that completed meanwhile, fails the job)',
  },
  {
    id: 'decline-any-attempt', flinkIssue: 'FLINK-13593', source: 'engine/checkpoint/CheckpointPlantedBugs.ts',
    what: 'a task-level checkpoint failure fails the job without checking that the declining attempt is still its subtask\'s current, running attempt.',
    caughtBy: 'failure-handling (wrong-callback: failJob is called for a task-level failure, where the rule asks for failJobDueToTaskFailure and its attempt check)',
  },
  {
    id: 'plan-terminal-as-finished', flinkIssue: 'FLINK-40482', source: 'engine/checkpoint/CheckpointPlantedBugs.ts',
    what: 'the plan calculator decides "finished" with "is terminal" (so FAILED and CANCELED count) instead of "is FINISHED", and leaves those tasks out of the tasks to wait for.',
    caughtBy: 'not caught by a search yet (docs/planted-bugs.md says why)',
  },
  {
    id: 'pending-completes-one-ack-short', flinkIssue: 'FLINK-40482', source: 'engine/checkpoint/CheckpointPlantedBugs.ts',
    what: 'a pending checkpoint that waits for more than one task counts as fully acknowledged with one task\'s ack still missing; that task\'s state is not in the checkpoint.',
    caughtBy: 'consistent-cut: the completed checkpoint\'s keyed state lacks the keys of the subtask that had not acked',
  },
  {
    id: 'failover-keeps-pending', flinkIssue: 'FLINK-10712', source: 'engine/checkpoint/CheckpointPlantedBugs.ts',
    what: 'a failover keeps the pending checkpoints: neither the abort with CHECKPOINT_COORDINATOR_SUSPEND when the job goes RESTARTING nor the one with JOB_FAILOVER_REGION at restore happens, and a pending checkpoint accepts acks from the new attempts.',
    caughtBy: 'consistent-cut: a kept checkpoint completes with acks of the new attempts, a cut of two epochs; in explore often by liveness too, when a restore from such a checkpoint commits a sink transaction the new attempt already aborted, which fails, and the job restarts forever',
  },
  {
    id: 'late-ack-state-leak', flinkIssue: 'FLINK-5063', source: 'engine/checkpoint/CheckpointPlantedBugs.ts',
    what: 'the state of a late or unknown ack is dropped without being discarded.',
    caughtBy: 'storage-invariants (leaked files) or protocol-invariants (late-ack-discarded: a late ack whose state is never discarded)',
  },
  {
    id: 'dispose-clears-before-discard', flinkIssue: 'FLINK-5660', source: 'engine/checkpoint/CheckpointPlantedBugs.ts',
    what: 'aborting a pending checkpoint clears its state list before handing the list to the discarder, so the acknowledged state files stay behind.',
    caughtBy: 'storage-invariants (leaked files) or protocol-invariants',
  },
  {
    id: 'decline-leaves-pending', flinkIssue: 'FLINK-4985', source: 'engine/checkpoint/CheckpointPlantedBugs.ts',
    what: 'a planted stall: receiveDeclineMessage takes a task\'s decline of a pending checkpoint and does not abort it, so it waits for its timeout.',
    caughtBy: 'prompt-abort (decline: the checkpoint expires, or ends otherwise, after its decline was handled)',
  },
  {
    id: 'trigger-failure-leaves-pending', flinkIssue: 'FLINK-21246', source: 'engine/checkpoint/CheckpointPlantedBugs.ts',
    what: 'a planted stall: a trigger RPC to a task that failed, or a failed coordinator snapshot, master hook or trigger step (onTriggerFailure), leaves the checkpoint pending.',
    caughtBy: 'prompt-abort (trigger-failure: the checkpoint is not aborted when the failure is handled)',
  },
  {
    id: 'finalize-failure-leaves-pending', flinkIssue: 'FLINK-27570', source: 'engine/checkpoint/CheckpointPlantedBugs.ts',
    what: 'a planted stall: a fully acknowledged checkpoint whose finalization, _metadata write or store add failed stays pending until its timeout.',
    caughtBy: 'prompt-abort (finalize-failure: the checkpoint expires after its completion failed)',
  },
  {
    id: 'task-failure-leaves-pending', flinkIssue: 'FLINK-7844', source: 'engine/checkpoint/CheckpointPlantedBugs.ts',
    what: 'a planted stall: stopCheckpointScheduler, which every failover makes when the job leaves RUNNING, aborts the queued requests but leaves the pending checkpoints, which wait for the restore\'s abort or their timeout.',
    caughtBy: 'prompt-abort (task-failure: a task in the checkpoint\'s plan failed, and the checkpoint was not aborted with CHECKPOINT_COORDINATOR_SUSPEND)',
  },
];
