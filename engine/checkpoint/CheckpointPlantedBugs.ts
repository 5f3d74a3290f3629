/**
 * The planted-bug switches of the JobManager side of checkpointing (mutants.md entries 3, 4, 5,
 * 7, 8, the classic mistake of restoring a checkpoint that never completed, and the planted
 * stalls of the prompt-abort rules). Each is off unless a run's `mutations` name it; code checks
 * `env.bugs.has(id)`.
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
  /*
   * The planted stalls: a handler that has learned of a failure of a pending checkpoint leaves it
   * pending instead of aborting it at once, so it waits for its timeout (or for whatever aborts it
   * next) and blocks the checkpoints behind it. One per rule of the prompt-abort oracle
   * (properties/oracles/promptAbort.ts); nothing else judges a stall, as liveness tolerates one.
   */
  /** Relative of FLINK-4985 (declines not acted on): receiveDeclineMessage does not abort. */
  declineLeavesPending: 'decline-leaves-pending',
  /**
   * FLINK-21246 (a failed trigger was left to fail later): a trigger RPC that failed, or a failed
   * coordinator, master-hook or trigger step (onTriggerFailure), does not abort the checkpoint.
   */
  triggerFailureLeavesPending: 'trigger-failure-leaves-pending',
  /** Relative of FLINK-27570: a failed finalization, metadata write or store add does not abort. */
  finalizeFailureLeavesPending: 'finalize-failure-leaves-pending',
  /**
   * FLINK-7844 (pending checkpoints kept on a fine-grained failover until their timeout): the
   * scheduler's stop when a failure moves the job out of RUNNING aborts queued requests but leaves
   * the pending checkpoints, which then wait for the restore's abort or their timeout.
   */
  taskFailureLeavesPending: 'task-failure-leaves-pending',
} as const;
