/**
 * The planted-bug switches of the JobManager side of checkpointing (mutants.md entries 3, 4, 5,
 * 7, 8, and the classic mistake of restoring a checkpoint that never completed). Each is off
 * unless a run's `mutations` name it; code checks `env.bugs.has(id)`.
 */
export const PLANTED_BUGS = {
  /** 3 (FLINK-17351): CHECKPOINT_EXPIRED is not counted by the failure manager. */
  fmIgnoreExpired: 'fm-ignore-expired',
  /** 3 (FLINK-32347): success reported before the metadata/store write; its failures ignored. */
  fmSuccessBeforeStore: 'fm-success-before-store',
  /** 4 (FLINK-18336): failures of checkpoints older than the last success are counted. */
  fmCountPastCheckpoints: 'fm-count-past-checkpoints',
  /** 5 (FLINK-13593): a task-level failure fails the job without checking the attempt. */
  declineAnyAttempt: 'decline-any-attempt',
  /**
   * 7a (FLINK-40482): once some task FINISHED, tasks-to-wait-for computed by "is terminal" instead
   * of "is FINISHED" (Flink 1.20's Execution.isFinished); reached by a savepoint asked for while
   * the job restarts.
   */
  planTerminalAsFinished: 'plan-terminal-as-finished',
  /**
   * 7b (FLINK-10712): failover keeps pending checkpoints (neither the RESTARTING stop's
   * CHECKPOINT_COORDINATOR_SUSPEND abort nor the restore's JOB_FAILOVER_REGION abort happens);
   * acks of new attempts are accepted.
   */
  failoverKeepsPending: 'failover-keeps-pending',
  /**
   * 7a, second form (FLINK-40482: a checkpoint that waits for too few acks): a pending checkpoint
   * is fully acknowledged with one task's ack still missing. The first form,
   * `plan-terminal-as-finished`, needs a savepoint during a failover; this one no fault at all.
   */
  pendingCompletesOneAckShort: 'pending-completes-one-ack-short',
  /** 8 (FLINK-5063): state of late or unknown acks is dropped without being discarded. */
  lateAckStateLeak: 'late-ack-state-leak',
  /** 8 (FLINK-5660): disposal clears the state list before handing it to the discarder. */
  disposeClearsBeforeDiscard: 'dispose-clears-before-discard',
  /**
   * A classic mistake: a restore uses the newest checkpoint even if it never completed. An aborted
   * checkpoint newer than the latest completed one, with some tasks' state acknowledged, is kept
   * (its files too) and restored from, with no state for the tasks that had not acknowledged.
   */
  restoreFromUncompleted: 'restore-from-uncompleted',
} as const;
