/**
 * Each planted bug (RunSpec.mutations) is caught: a small targeted search with a fixed seed finds
 * a violation with the bug switched on, and the same search without it finds none. The targeted
 * arbitraries are runSpecArbitrary's runs with a hand-picked fault plan (and checkpoint settings)
 * that make the bug observable; the oracles are the default judge's, unchanged.
 *
 * The failure manager's bugs change when the job fails over, not any output or state; the
 * failure-handling oracle (properties/oracles/failureHandling.ts) judges exactly that. Planted
 * bugs no search catches are listed as `test.todo` with the reason.
 */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';
import type { Action, CheckpointSpec, Fault, RunMode, RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { runSpecArbitrary, withSourcePacing, type ExploreJob } from '../arbitraries/runSpecArbitrary.ts';
import { explainRun } from '../explain/explainRun.ts';
import { formatExplanation } from '../explain/formatExplanation.ts';
import { defaultJudge } from '../explore/defaultJudge.ts';
import { expectationOf } from '../explore/explore.ts';
import { describeViolation } from './checkRuns.ts';

/** The searches' fast-check seed: fixed, so what each search finds never changes. */
const MUTANT_SEED = 7;
/** Runs of each search, unless a case says otherwise. */
const RUNS = 150;

interface TargetOptions {
  readonly job: ExploreJob;
  readonly mode: RunMode;
  readonly minParallelism?: number;
  /** One of these fault plans per run. */
  readonly faultPlans: readonly (readonly Fault[])[];
  readonly checkpoint?: Partial<CheckpointSpec>;
  /** Actions (savepoints) of every run. */
  readonly actions?: readonly Action[];
}

/**
 * runSpecArbitrary's runs (at most 300 records) with one of `faultPlans`, no overrides, and the
 * source paced for the parallelism and interval set here.
 */
function targeted(o: TargetOptions): fc.Arbitrary<RunSpec> {
  return fc.tuple(
    // No drawn savepoints or rescales: these searches' fault plans were aimed without them (a case names its own).
    runSpecArbitrary({ job: o.job, mode: o.mode, maxRecords: 300, maxParallelism: 4, savepoints: false, rescales: false }),
    fc.constantFrom(...o.faultPlans),
  ).map(([spec, faults]): RunSpec => {
    const p = Math.max(o.minParallelism ?? 1, typeof spec.parallelism === 'number' ? spec.parallelism : 1);
    // Paced again: the source's pacing depends on the parallelism and interval set here.
    return withSourcePacing({
      ...spec, parallelism: p, taskManagers: Math.ceil(p / 2), faults: [...faults], overrides: [],
      checkpoint: { ...spec.checkpoint, ...o.checkpoint },
      ...(o.actions === undefined ? {} : { actions: [...o.actions] }),
    });
  });
}

/** The first violating run of `numRuns` runs of `arbitrary` with `mutations` on, if any. */
function search(arbitrary: fc.Arbitrary<RunSpec>, mutations: readonly string[],
  numRuns: number): { found: Violation | undefined; result: RunResult | undefined; runs: number } {
  let found: Violation | undefined;
  let last: RunResult | undefined;
  let runs = 0;
  fc.check(fc.property(arbitrary, (spec) => {
    runs++;
    const result = simulate({ ...spec, mutations: [...mutations] });
    last = result;
    found = defaultJudge(result, expectationOf(spec.checkpoint.mode)).violations[0];
    return found === undefined;
  }), { seed: MUTANT_SEED, numRuns, endOnFailure: true });
  return { found, result: found === undefined ? undefined : last, runs };
}

const SLOW_ACKS: readonly (readonly Fault[])[] = [
  [{ type: 'rpc-delay', kind: 'ack', latency: { minMs: 10, medianMs: 100, maxMs: 300 } }],
  [{ type: 'slow-store', factor: 100 }],
];

interface MutantCase {
  readonly bug: string;
  readonly why: string;
  readonly arbitrary: fc.Arbitrary<RunSpec>;
  /** The oracles expected to catch it. */
  readonly caughtBy: readonly string[];
  /** Runs of each search; default RUNS. */
  readonly runs?: number;
}

/** Runs of the failure-manager searches: their bugs show within a few runs. */
const FM_RUNS = 100;

/** Runs of the planted stalls' searches: a stall shows in the first run that reaches its failure. */
const STALL_RUNS = 60;

/** With 0 tolerable failures, the first counted failure must fail the job over. */
const NO_TOLERANCE: Partial<CheckpointSpec> = { tolerableFailures: 0 };

const CASES: readonly MutantCase[] = [
  {
    bug: 'restore-handle-replaces',
    why: 'flights aligned at parallelism >= 2, rescaled to 1 after checkpoint 2: the one new subtask restores the key groups of every old subtask and keeps only the last one\'s',
    arbitrary: targeted({
      job: 'flights', mode: 'aligned', minParallelism: 2, faultPlans: [[]],
      actions: [{ type: 'rescale', when: { at: { kind: 'jobmaster', checkpoint: 2, phase: 'completed' } }, parallelism: 1 }],
    }),
    caughtBy: ['consistent-cut', 'end-to-end-exactly-once'],
  },
  {
    bug: 'failover-keeps-pending',
    why: 'delayed acks hold up heartbeats behind them on the TaskExecutor-JobMaster link: a TaskManager is lost, and its failovers keep the pending checkpoints',
    arbitrary: targeted({
      job: 'generated', mode: 'aligned',
      faultPlans: [[{ type: 'rpc-delay', kind: 'ack', latency: { minMs: 1, medianMs: 5, maxMs: 50 } }]],
    }),
    caughtBy: ['liveness', 'consistent-cut', 'end-to-end-exactly-once'],
  },
  {
    bug: 'pending-completes-one-ack-short',
    why: 'flights aligned at parallelism >= 2, no faults: a checkpoint completes without one subtask\'s state',
    arbitrary: targeted({ job: 'flights', mode: 'aligned', minParallelism: 2, faultPlans: [[]] }),
    caughtBy: ['consistent-cut'],
  },
  {
    bug: 'aligned-resume-immediately',
    why: 'flights aligned at parallelism >= 2, no faults: records after a barrier enter the snapshot',
    arbitrary: targeted({ job: 'flights', mode: 'aligned', minParallelism: 2, faultPlans: [[]] }),
    caughtBy: ['consistent-cut', 'end-to-end-exactly-once'],
  },
  {
    bug: 'sink-commits-only-notified',
    why: 'lost notifyCheckpointComplete: the next notification commits only its own transaction',
    arbitrary: targeted({
      job: 'flights', mode: 'aligned',
      faultPlans: [[{ type: 'rpc-loss', kind: 'notifyComplete', probability: 0.5 }],
        [{ type: 'rpc-loss', kind: 'notifyComplete', probability: 0.2 }]],
    }),
    caughtBy: ['end-to-end-exactly-once', 'storage-invariants'],
  },
  {
    bug: 'late-ack-state-leak',
    why: 'slow acks or a slow store make checkpoints expire (timeout 150 ms); late acks arrive',
    arbitrary: targeted({ job: 'generated', mode: 'aligned', faultPlans: SLOW_ACKS, checkpoint: { timeoutMs: 150 } }),
    caughtBy: ['protocol-invariants', 'storage-invariants'],
  },
  {
    bug: 'dispose-clears-before-discard',
    why: 'slow acks or a slow store make checkpoints expire (timeout 150 ms) with state acked',
    arbitrary: targeted({ job: 'generated', mode: 'aligned', faultPlans: SLOW_ACKS, checkpoint: { timeoutMs: 150 } }),
    caughtBy: ['storage-invariants', 'protocol-invariants'],
  },
  {
    bug: 'fm-ignore-expired',
    why: 'slow acks or a slow store make checkpoints expire (timeout 150 ms), tolerable failures 0',
    arbitrary: targeted({
      job: 'generated', mode: 'aligned', faultPlans: SLOW_ACKS, checkpoint: { ...NO_TOLERANCE, timeoutMs: 150 },
    }),
    caughtBy: ['failure-handling'],
    runs: FM_RUNS,
  },
  {
    bug: 'fm-success-before-store',
    why: 'failing object-store writes fail the metadata write of a fully acknowledged checkpoint',
    arbitrary: targeted({
      job: 'flights', mode: 'aligned', checkpoint: NO_TOLERANCE,
      faultPlans: [[{ type: 'store-failure', probability: 0.2 }], [{ type: 'store-failure', probability: 0.5 }]],
    }),
    caughtBy: ['failure-handling'],
    runs: FM_RUNS,
  },
  {
    bug: 'decline-any-attempt',
    why: 'failing async snapshots are declined with no tolerable failures: the failure manager calls failJob, not failJobDueToTaskFailure (whose mail checks the attempt still runs)',
    arbitrary: targeted({
      job: 'flights', mode: 'aligned', minParallelism: 3, checkpoint: NO_TOLERANCE,
      faultPlans: [
        [{ type: 'crash', host: 'taskmanager-1', when: { atMs: 300 }, downMs: 100 },
          { type: 'async-snapshot-failure', probability: 1 },
          { type: 'rpc-delay', kind: 'decline', latency: { minMs: 10, medianMs: 50, maxMs: 300 } }],
        [{ type: 'crash', host: 'taskmanager-2', when: { at: { kind: 'task', checkpoint: 2, phase: 'sync-done', task: 'v1#1' } }, downMs: 100 },
          { type: 'async-snapshot-failure', probability: 1 }],
      ],
    }),
    caughtBy: ['failure-handling'],
    runs: FM_RUNS,
  },
  {
    bug: 'fm-count-past-checkpoints',
    why: 'a savepoint race: savepoint 3, asked for when checkpoint 2 completes, writes to a slow target and fails task-side '
      + 'after checkpoint 4 (max concurrent 2) completed; the planted switch counts that old failure and fails a healthy job over',
    arbitrary: targeted({
      job: 'flights', mode: 'aligned', minParallelism: 2, checkpoint: { ...NO_TOLERANCE, maxConcurrent: 2 },
      actions: [{ type: 'savepoint', when: { at: { kind: 'jobmaster', checkpoint: 2, phase: 'completed' } } }],
      faultPlans: [
        [{ type: 'slow-store', factor: 20, checkpoint: 3 }, { type: 'async-snapshot-failure', probability: 1, checkpoint: 3 }],
        [{ type: 'slow-store', factor: 50, checkpoint: 3 }, { type: 'async-snapshot-failure', probability: 0.5, checkpoint: 3 }],
      ],
    }),
    caughtBy: ['failure-handling'],
    runs: FM_RUNS,
  },
  // The planted stalls: each leaves a checkpoint pending after its handler learned of a failure;
  // only prompt-abort sees that (docs/planted-bugs.md, "The planted stalls").
  {
    bug: 'decline-leaves-pending',
    why: 'failing async snapshots make tasks decline; the declined checkpoint waits for its timeout',
    arbitrary: targeted({
      job: 'generated', mode: 'aligned',
      faultPlans: [[{ type: 'async-snapshot-failure', probability: 0.5 }], [{ type: 'async-snapshot-failure', probability: 1 }]],
    }),
    caughtBy: ['prompt-abort'],
    runs: STALL_RUNS,
  },
  {
    bug: 'trigger-failure-leaves-pending',
    why: 'a lost triggerCheckpoint RPC times out; the checkpoint it triggered waits for its timeout',
    arbitrary: targeted({
      job: 'generated', mode: 'aligned',
      faultPlans: [[{ type: 'message', action: 'lose', method: 'triggerCheckpoint', checkpoint: 2 }],
        [{ type: 'rpc-loss', kind: 'trigger', probability: 0.5 }]],
    }),
    caughtBy: ['prompt-abort'],
    runs: STALL_RUNS,
  },
  {
    bug: 'finalize-failure-leaves-pending',
    why: 'failing object-store writes fail the metadata write of a fully acknowledged checkpoint, which then waits for its timeout',
    arbitrary: targeted({
      job: 'flights', mode: 'aligned',
      faultPlans: [[{ type: 'store-failure', probability: 0.2 }], [{ type: 'store-unknown-outcome', probability: 0.1 }]],
    }),
    caughtBy: ['prompt-abort'],
    runs: STALL_RUNS,
  },
  {
    bug: 'task-failure-leaves-pending',
    why: 'a crash or a global failure while a checkpoint is pending; the failover\'s stop leaves it pending until the restore',
    arbitrary: targeted({
      job: 'generated', mode: 'aligned',
      faultPlans: [[{ type: 'crash', host: 'taskmanager-1', when: { atMs: 300 }, downMs: 100 }],
        [{ type: 'global-failure', when: { at: { kind: 'jobmaster', checkpoint: 2, phase: 'triggered' } } }]],
    }),
    caughtBy: ['prompt-abort'],
    runs: STALL_RUNS,
  },
];

for (const c of CASES) {
  test(`mutant ${c.bug} is caught (${c.why})`, () => {
    const runs = c.runs ?? RUNS;
    const caught = search(c.arbitrary, [c.bug], runs);
    const withBug = caught.found;
    expect(withBug, `no violation found with ${c.bug} planted`).toBeDefined();
    expect(c.caughtBy).toContain(withBug?.property);
    // Its explanation's chains reach a fault that fired, or the run fired none (explainRun).
    const explanation = explainRun(caught.result as RunResult, withBug);
    expect(explanation.reachedFaults.length > 0 || explanation.faultsFired === 0,
      formatExplanation(explanation).join('\n')).toBe(true);
    const without = search(c.arbitrary, [], runs);
    expect(without.found === undefined ? undefined : describeViolation(without.found)).toBeUndefined();
    expect(without.runs).toBe(runs);
  });
}

// plan-terminal-as-finished is not reached since every failover moves the job to RESTARTING
// (DefaultScheduler.addVerticesToRestartPending): an attempt becomes FAILED or CANCELED only on the
// JobMaster main thread in the same step that makes its restart pending, and the job is RUNNING
// again only after the restarted vertices have new attempts, so no plan made while the job is
// RUNNING sees a terminal attempt that is not FINISHED; a periodic trigger in flight whose plan
// is made while RESTARTING is refused when its PendingCheckpoint is created (the scheduler is
// stopped), unless the restart lands between the plan and that step, which take no virtual time
// apart. Over 150 runs of the search it used (crashes and global failures, 10 ms interval) 11
// plans with terminal attempts reached a PendingCheckpoint before, none after. As in Flink
// (mutants.md 7: "the wrong classification is latent").
test.todo('mutant plan-terminal-as-finished: not reached (every failover stops periodic checkpoints at RESTARTING, so no plan sees a terminal attempt); the search that caught it relied on region failovers keeping the job RUNNING');
test.todo('mutant tracker-recreates-aborted: not reached (needs crossed cancellation markers from two upstream channels); abort-once-per-task (oracle 5) would catch it');
