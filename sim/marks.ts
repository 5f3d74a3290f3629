/**
 * MARKS: every mark a run can record (`RunResult.marks`, the trace's `mark` events), with what it
 * means. The engine marks rare protocol situations through its Tracer, the sim what only it can
 * see, and the fault plan each fault it fires. Scenario expectations (`markReached`,
 * `markNotReached`) and property suites name marks from here, so a misspelt name is refused
 * rather than judged vacuously. sim/marks.test.ts scans engine/ and sim/ for the marks they record
 * and fails when one is missing here, or when one here is recorded nowhere; docs/scenarios.md
 * lists them all (the same test checks that too).
 */

/** Mark name -> when it is recorded. */
export const MARKS = {
  // The engine (engine/): rare protocol situations.
  'alignment-aborted': 'a task stopped aligning a checkpoint: a newer barrier, a cancellation marker or an abort',
  'barrier-during-alignment': 'a barrier of a newer checkpoint reached a task still aligning an older one',
  'checkpoint-declined': 'the coordinator handled a decline of a pending checkpoint',
  'checkpoint-expired': 'a pending checkpoint reached its timeout (CHECKPOINT_EXPIRED)',
  'checkpoint-lock-contended': 'a coordinator step waited for the CheckpointCoordinator lock another thread held',
  'checkpoint-subsumed': 'a completed checkpoint subsumed an older pending one',
  'coordinator-notify-skipped': 'an operator coordinator was told of a checkpoint its valve never saw',
  'coordinator-checkpoint-after-abort': 'a coordinator finished its snapshot of a checkpoint that was aborted after its gateways were marked: the holder could not close them',
  'event-valve-held': 'an operator coordinator\'s event valve held an event while a checkpoint was being taken',
  'io.partition.backpressured': 'a result partition ran out of buffers (back pressure)',
  'io.priority-event-overtook-data': 'a priority event (a barrier sent ahead) overtook buffered data in a partition',
  'late-ack-discarded': 'an acknowledgement arrived after its checkpoint expired and its state was discarded',
  'lingering-transaction-aborted': 'a two-phase-commit sink\'s restore aborted a lingering transaction of a removed subtask index, or one at a changed parallelism (open, or pre-committed for a checkpoint after the restored one)',
  'notify-complete-skipped': 'a task\'s completion notification skipped a checkpoint it had performed (a lost or late notification)',
  'obsolete-barrier-ignored': 'a task ignored a barrier of a checkpoint it had already passed',
  'restore-from-checkpoint': 'a task attempt started from a checkpoint\'s state (once per restored task)',
  'restored-from-savepoint': 'a new job run was restored from a savepoint (CheckpointCoordinator.restoreSavepoint)',
  'list-state-redistributed': 'a restore at another parallelism spread operator list state (SPLIT_DISTRIBUTE) round robin over the new subtasks',
  'union-state-redistributed': 'a restore at another parallelism gave union list state whole to every new subtask',
  'restored-no-claim': 'a new job run was restored in NO_CLAIM mode (its checkpoints are FULL until one joins the store)',
  'savepoint-completed': 'a savepoint completed (its metadata written into savepoint-<id>; never in the store, no notification unless synchronous)',
  'savepoint-failed': 'a pending savepoint was aborted (declined, expired, a failover or a task failure)',
  'stop-with-savepoint-finished': 'a stop-with-savepoint completed: its savepoint exists and every task FINISHED',
  'stop-with-savepoint-failed': 'a stop-with-savepoint failed with its savepoint (the job fails over and keeps running)',
  'stop-with-savepoint-job-failed': 'a stop-with-savepoint\'s savepoint exists but a task ended other than FINISHED: the job FAILED (StopWithSavepointStoppingException)',
  'taskmanager-lost': 'the JobMaster declared a TaskManager lost (its heartbeat timed out) and released its slots',
  'splits-returned': 'a source coordinator took back the splits of a failed reader (addSplitsBack)',
  'tracker-incomplete-dropped': 'at-least-once: the barrier tracker dropped an older incomplete checkpoint',
  'tracker-late-completion': 'at-least-once: the barrier tracker completed a checkpoint older than its newest pending one',
  // The sim (sim/): what only the world can see.
  crash: 'a host crashed',
  partition: 'a network partition started',
  'rpc-lost': 'an RPC was lost to an rpc-loss fault',
  'store-failed': 'an object store operation failed (store-failure fault)',
  'store-unknown-outcome': 'an object store write or delete reported an unknown outcome',
  'async-snapshot-failed': 'a task\'s snapshot file write failed (async-snapshot-failure fault)',
  // The fault plan (sim/run/FaultPlan.ts): the faults it fired.
  pause: 'a pause fault fired',
  'global-failure': 'a global-failure fault fired',
  'slow-task': 'a slow-task fault fired',
  'coordinator-stall': 'a coordinator-stall fault queued enumerator work on a coordinator thread',
  'rpc-delay': 'an rpc-delay fault was in force',
  'slow-store': 'a slow-store fault was in force',
  'message-lost': 'a message fault lost its RPC',
  'message-delayed': 'a message fault delayed its RPC',
  'message-held': 'a message fault held its RPC',
  'channel-event-delayed': 'a channel-event fault delayed a barrier or cancellation marker on one input channel',
  // The action plan (sim/run/ActionPlan.ts): what only the end of the run can tell.
  'stop-with-savepoint-stuck': 'a stop-with-savepoint can never end: its tasks wait for a lost confirmation or abort (known in Flink 1.20)',
  'rescale-up': 'a rescale started a job run in which some operator runs at a higher parallelism',
  'rescale-down': 'a rescale started a job run in which some operator runs at a lower parallelism',
} as const satisfies Record<string, string>;

export type MarkName = keyof typeof MARKS;

/** Every mark name, in the order above. */
export const MARK_NAMES = Object.keys(MARKS) as MarkName[];
