/**
 * The planted bugs for people (`checkpoint-sim mutants list`): each id with the Flink issue
 * behind it, the engine file holding its switch, what the switch does, what catches it and where
 * a search finds it, in brief; docs/planted-bugs.md tells each in full (a test keeps the two and
 * PLANTED_BUG_IDS in step). Also the bugs of the catalogue the engine cannot plant yet, and why.
 */

export interface PlantedBugInfo {
  readonly id: string;
  /** The Flink JIRA issue behind it, when the code names one. */
  readonly flinkIssue: string | null;
  /** The engine file that holds the switch. */
  readonly source: string;
  readonly what: string;
  readonly caughtBy: string;
  /**
   * Where `mutants run` searches for it (properties/mutants/mutantSearches.ts): the job and the
   * mode in which its code runs. Absent: the generated jobs, aligned.
   */
  readonly search?: { readonly job: 'generated' | 'flights'; readonly mode: 'aligned' | 'at-least-once' };
}

/** A real Flink bug of the catalogue that the engine cannot plant yet. */
export interface NotPlantedBugInfo {
  /** The Flink JIRA issues behind it. */
  readonly flinkIssues: readonly string[];
  readonly what: string;
  /** What the engine lacks for it. */
  readonly whyNot: string;
}

/** The catalogue's bugs that are not planted, each with what the engine would need. */
export const NOT_PLANTED_BUGS: readonly NotPlantedBugInfo[] = [
  {
    flinkIssues: ['FLINK-6996', 'FLINK-5701'],
    what: 'an at-least-once sink\'s snapshot neither flushes the writes still in flight to the external system nor rethrows a write failure it recorded, so a checkpoint completes without records whose write then fails (or whose process dies), and a restore from it does not replay them.',
    whyNot: 'it needs asynchronous sink writes (records handed to an external system that acknowledges them later, or fails them), and the engine\'s sinks have none: every write reaches the transactional store at once, in the sink\'s own step.',
  },
];

export const PLANTED_BUG_CATALOGUE: readonly PlantedBugInfo[] = [
  {
    id: 'aligned-resume-immediately', flinkIssue: null, source: 'engine/io/checkpointing/SingleCheckpointBarrierHandler.ts',
    // Flights: keyed state on every subtask over many airports; generated jobs found nothing in 40 runs.
    search: { job: 'flights', mode: 'aligned' },
    what: 'in aligned mode, a channel is resumed as soon as it delivers its barrier, instead of staying blocked until every channel has delivered it.',
    caughtBy: 'consistent-cut (or end-to-end-exactly-once)',
  },
  {
    id: 'sink-commits-only-notified', flinkIssue: 'FLINK-10377', source: 'engine/streaming/sinks/TwoPhaseCommitSinkOperator.ts',
    what: 'notifyCheckpointComplete(n) commits only the transaction pending for exactly n, not every pending transaction with id up to n.',
    caughtBy: 'end-to-end-exactly-once (records never committed) or storage-invariants (transactions left pre-committed)',
  },
  {
    id: 'async-snapshot-reads-live', flinkIssue: 'FLINK-9269', source: 'engine/streaming/operators/StreamOperator.ts',
    // Flights: every subtask's keyed state changes with nearly every record (22 of 40 runs, generated 5).
    search: { job: 'flights', mode: 'aligned' },
    what: 'the synchronous part of a snapshot keeps references to the live keyed and operator state instead of a frozen copy, and the async part writes that state as it is when its write ends, so records processed after the barrier reach the checkpoint.',
    caughtBy: 'consistent-cut (the checkpoint\'s state counts records its source positions have not read), end-to-end-exactly-once after a restore from it (they are counted twice), at-least-once in that mode',
  },
  {
    id: 'ack-before-durable', flinkIssue: null, source: 'engine/streaming/runtime/AsyncCheckpointRunnable.ts',
    // Flights: more state files per checkpoint to fail or land late (19 of 40 runs, generated 8).
    search: { job: 'flights', mode: 'aligned' },
    what: 'a classic mistake: the task acknowledges a checkpoint as its asynchronous part starts, with the handles of state files not written yet, and only traces a write that then fails.',
    caughtBy: 'storage-invariants: a completed checkpoint names files whose writes failed (not restorable; a restore from it fails forever, liveness), or a write acknowledged early lands after the aborted or subsumed checkpoint was cleaned up (a leaked file)',
  },
  {
    id: 'sink-commits-in-snapshot', flinkIssue: null, source: 'engine/streaming/sinks/TwoPhaseCommitSinkOperator.ts',
    // Flights: more records in each transaction the replay writes again (20 of 40 runs, generated 7).
    search: { job: 'flights', mode: 'aligned' },
    what: 'a classic mistake: the built-in two-phase-commit sink commits the transaction it pre-commits in snapshotState, before the checkpoint completed, instead of on its completion notification.',
    caughtBy: 'end-to-end-exactly-once (surplus records: a failover before the checkpoint completed replays output already committed; a restore finds the transaction open at the restored checkpoint committed since and leaves it so, as Kafka does)',
  },
  {
    id: 'restore-from-uncompleted', flinkIssue: null, source: 'engine/checkpoint/CheckpointPlantedBugs.ts',
    // Flights: more tasks, so a failover finds checkpoints partly acknowledged (8 of 40 runs, generated 3).
    search: { job: 'flights', mode: 'aligned' },
    what: 'a classic mistake: a restore uses the newest checkpoint even if it never completed: an aborted checkpoint newer than every completed one, with some tasks\' state acknowledged, is kept with its files and restored from, the other tasks starting with no state.',
    caughtBy: 'end-to-end-exactly-once (records lost with the state of the tasks that had not acknowledged) and consistent-cut (the next checkpoint counts from that mixed state)',
  },
  {
    id: 'sink-requires-notified-pending', flinkIssue: 'FLINK-10377', source: 'engine/streaming/sinks/TwoPhaseCommitSinkOperator.ts',
    // Generated jobs (the default): their tasks finish while faults still act (16 of 300 drawn
    // runs reached the throw, flights none: its input outlasts the heal time).
    what: 'notifyCheckpointComplete(n) throws (failing the task) when no transaction is pending for exactly n: when a finished sink\'s final transaction is never notified (its checkpoint failed, was a savepoint, or its notification was lost), the next checkpoint\'s notification finds none for its id.',
    caughtBy: 'attribution (an unattributed failover: the sink task\'s exception has no fault on its cause chain); output and state stay exactly once; rarely storage-invariants (the final transaction left pre-committed when the throwing notification should have committed it and no restore follows)',
  },
  {
    id: 'restore-handle-replaces', flinkIssue: 'FLINK-4731', source: 'engine/state/HeapKeyedStateBackend.ts',
    // Flights: keyed state in every key group a rescale merges (3 of 40 runs, generated none).
    search: { job: 'flights', mode: 'aligned' },
    what: 'a heap keyed backend restored from several snapshots (a scale-in hands a subtask the key groups of several old subtasks) keeps only the last one: each snapshot replaces what the previous ones restored.',
    caughtBy: 'a scale-in: the consistent cut of the new run\'s first checkpoint, and the end-to-end output, miss the key groups of all but one old subtask (properties/suites/mutants.prop.test.ts; explore draws rescales)',
  },
  {
    id: 'tracker-recreates-aborted', flinkIssue: 'FLINK-5285', source: 'engine/io/checkpointing/CheckpointBarrierTracker.ts',
    // The barrier tracker handles barriers only in at-least-once mode.
    search: { job: 'generated', mode: 'at-least-once' },
    what: 'in CheckpointBarrierTracker, a cancellation marker for an id the tracker has already handled creates a fresh aborted entry and sends the abort downstream again.',
    caughtBy: 'protocol-invariants (abort-once-per-task: a task aborts a checkpoint twice) in at-least-once mode, when cancellation markers of two checkpoints cross on two input channels: a barrier held on one channel past the checkpoint timeout (a channel-event fault) makes its task send markers in place of barriers',
  },
  {
    id: 'fm-ignore-expired', flinkIssue: 'FLINK-17351', source: 'engine/checkpoint/CheckpointPlantedBugs.ts',
    // Flights: slower checkpoints that expire; the acceptance search finds it there.
    search: { job: 'flights', mode: 'aligned' },
    what: 'CHECKPOINT_EXPIRED is not counted toward tolerableFailures.',
    caughtBy: 'failure-handling (the fail callback the rule demands never comes)',
  },
  {
    id: 'fm-success-before-store', flinkIssue: 'FLINK-32347', source: 'engine/checkpoint/CheckpointPlantedBugs.ts',
    // Flights: the only job where 40 runs reached it (a failed metadata write with 0 tolerable failures).
    search: { job: 'flights', mode: 'aligned' },
    what: 'success is reported before the _metadata write and the store update, and a failure there is not reported to the failure manager.',
    caughtBy: 'failure-handling (unreported-failure: the abort of the checkpoint whose metadata write failed is never reported)',
  },
  {
    id: 'fm-count-past-checkpoints', flinkIssue: 'FLINK-18336', source: 'engine/checkpoint/CheckpointPlantedBugs.ts',
    // Flights: the savepoint race it needs (a slow failing savepoint, max concurrent 2) was found there.
    search: { job: 'flights', mode: 'aligned' },
    what: 'failures of checkpoint ids at or below the last successful id are counted.',
    caughtBy: 'failure-handling (spurious-failover: a savepoint\'s task-side failure, older than a checkpoint that completed meanwhile, fails the job)',
  },
  {
    id: 'decline-any-attempt', flinkIssue: 'FLINK-13593', source: 'engine/checkpoint/CheckpointPlantedBugs.ts',
    // Flights: parallelism up to 4, so a region failover leaves declining old attempts (13 of 40, generated 4).
    search: { job: 'flights', mode: 'aligned' },
    what: 'a task-level checkpoint failure fails the job without checking that the declining attempt is still its subtask\'s current, running attempt.',
    caughtBy: 'failure-handling (wrong-callback: failJob is called for a task-level failure, where the rule asks for failJobDueToTaskFailure and its attempt check)',
  },
  {
    id: 'plan-terminal-as-finished', flinkIssue: 'FLINK-40482', source: 'engine/checkpoint/CheckpointPlantedBugs.ts',
    // Generated jobs (the default). Its faithful schedule needs another failover region still
    // running while a savepoint or stop is asked for at RESTARTING (an all-terminal plan is empty,
    // which PendingCheckpoint refuses, as in Flink): the targeted restart window that loses one
    // TaskManager of a job of forward regions draws it (docs/planted-bugs.md).
    what: 'once some task is FINISHED, the plan calculator decides "finished" with "is terminal" (so FAILED and CANCELED count, as Flink 1.20 does) instead of "is FINISHED", and leaves those tasks out of the tasks to wait for.',
    caughtBy: 'protocol-invariants (finished-tasks-finished): a savepoint asked for while one region restarts after a task FINISHED is planned with the FAILED attempts counted as finished; end-to-end-exactly-once when it was a stop-with-savepoint, which then fails the job for good and never reads the failed region\'s input; consistent-cut with keyed state; storage-invariants in other shapes',
  },
  {
    id: 'pending-completes-one-ack-short', flinkIssue: 'FLINK-40482', source: 'engine/checkpoint/CheckpointPlantedBugs.ts',
    // Flights: every subtask holds keyed state, so the missing ack always shows (40 of 40 runs).
    search: { job: 'flights', mode: 'aligned' },
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
    // Flights: more late acks carrying state files (5 of 40 runs, generated 3).
    search: { job: 'flights', mode: 'aligned' },
    what: 'the state of a late or unknown ack is dropped without being discarded.',
    caughtBy: 'storage-invariants (leaked files) or protocol-invariants (late-ack-discarded: a late ack whose state is never discarded)',
  },
  {
    id: 'dispose-clears-before-discard', flinkIssue: 'FLINK-5660', source: 'engine/checkpoint/CheckpointPlantedBugs.ts',
    // Flights: more acknowledged state for an aborted checkpoint to leave behind (8 of 40, generated 4).
    search: { job: 'flights', mode: 'aligned' },
    what: 'aborting a pending checkpoint clears its state list before handing the list to the discarder, so the acknowledged state files stay behind.',
    caughtBy: 'storage-invariants (leaked files) or protocol-invariants',
  },
  {
    id: 'splits-returned-at-failure', flinkIssue: 'FLINK-20290', source: 'engine/coordination/SourceCoordinator.ts',
    what: 'a failed reader\'s splits go back to the enumerator at its failure, as everything the split assignment tracker still holds (assigned after the latest checkpoint the coordinator was notified of as complete), not at its reset against the checkpoint it restores.',
    caughtBy: 'consistent-cut (a later checkpoint counts the returned split\'s records twice) or end-to-end-exactly-once: a TaskManager crash while a checkpoint\'s _metadata is written (explore\'s crash-at-completion faults), so that the reader restores from the checkpoint it failed before',
  },
  {
    id: 'coordinator-events-bypass-valve', flinkIssue: 'FLINK-16986', source: 'engine/coordination/OperatorCoordinatorHolder.ts',
    what: 'events the coordinator sends after its snapshot of a checkpoint are not held until the subtask has taken its own snapshot, so a split assigned after the coordinator\'s snapshot can be in the reader\'s.',
    caughtBy: 'consistent-cut: the checkpoint holds a split both in a reader\'s state and among the enumerator\'s unassigned splits',
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
