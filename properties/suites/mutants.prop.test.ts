/**
 * Each planted bug (RunSpec.mutations) is caught: a small targeted search with a fixed seed finds
 * a violation with the bug switched on, and the same search without it finds none. The targeted
 * arbitraries are runSpecArbitrary's runs with a hand-picked fault plan (and checkpoint settings)
 * that make the bug observable; the oracles are the default judge's, unchanged.
 *
 * Planted bugs the oracles do not catch within such a budget are listed as `test.todo` with the
 * reason: they change the engine's behaviour (when the job fails over) but not any result an
 * oracle judges.
 */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import type { Violation } from '../../sim/run/RunResult.ts';
import type { CheckpointSpec, Fault, RunMode, RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { runSpecArbitrary, type ExploreJob } from '../arbitraries/runSpecArbitrary.ts';
import { defaultJudge } from '../explore/defaultJudge.ts';
import { expectationOf } from '../explore/explore.ts';
import { describeViolation } from './checkRuns.ts';

/** The searches' fast-check seed: fixed, so what each search finds never changes. */
const MUTANT_SEED = 7;
/** Runs of each search. */
const RUNS = 150;

interface TargetOptions {
  readonly job: ExploreJob;
  readonly mode: RunMode;
  readonly minParallelism?: number;
  /** One of these fault plans per run. */
  readonly faultPlans: readonly (readonly Fault[])[];
  readonly checkpoint?: Partial<CheckpointSpec>;
}

/** runSpecArbitrary's runs (at most 300 records) with one of `faultPlans` and no overrides. */
function targeted(o: TargetOptions): fc.Arbitrary<RunSpec> {
  return fc.tuple(
    runSpecArbitrary({ job: o.job, mode: o.mode, maxRecords: 300, maxParallelism: 4 }),
    fc.constantFrom(...o.faultPlans),
  ).map(([spec, faults]): RunSpec => {
    const p = Math.max(o.minParallelism ?? 1, typeof spec.parallelism === 'number' ? spec.parallelism : 1);
    return {
      ...spec, parallelism: p, taskManagers: Math.ceil(p / 2), faults: [...faults], overrides: [],
      checkpoint: { ...spec.checkpoint, ...o.checkpoint },
    };
  });
}

/** The first violating run of `RUNS` runs of `arbitrary` with `mutations` on, if any. */
function search(arbitrary: fc.Arbitrary<RunSpec>, mutations: readonly string[]): { found: Violation | undefined; runs: number } {
  let found: Violation | undefined;
  let runs = 0;
  fc.check(fc.property(arbitrary, (spec) => {
    runs++;
    const result = simulate({ ...spec, mutations: [...mutations] });
    found = defaultJudge(result, expectationOf(spec.checkpoint.mode)).violations[0];
    return found === undefined;
  }), { seed: MUTANT_SEED, numRuns: RUNS, endOnFailure: true });
  return { found, runs };
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
}

const CASES: readonly MutantCase[] = [
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
    bug: 'plan-terminal-as-finished',
    why: 'crashes and global failures with a 10 ms interval: checkpoints triggered during failover',
    arbitrary: targeted({
      job: 'flights', mode: 'aligned', minParallelism: 2, checkpoint: { intervalMs: 10 },
      faultPlans: [
        [{ type: 'crash', host: 'taskmanager-1', when: { atMs: 120 }, downMs: 50 }],
        [{ type: 'crash', host: 'taskmanager-1', when: { at: { kind: 'task', checkpoint: 2, phase: 'acked', task: 'v1#0' } }, downMs: 30 }],
        [{ type: 'global-failure', when: { at: { kind: 'task', checkpoint: 2, phase: 'sync-done', task: 'v1#0' } } }],
      ],
    }),
    caughtBy: ['consistent-cut', 'end-to-end-exactly-once'],
  },
];

for (const c of CASES) {
  test(`mutant ${c.bug} is caught (${c.why})`, () => {
    const withBug = search(c.arbitrary, [c.bug]).found;
    expect(withBug, `no violation found with ${c.bug} planted`).toBeDefined();
    expect(c.caughtBy).toContain(withBug?.property);
    const without = search(c.arbitrary, []);
    expect(without.found === undefined ? undefined : describeViolation(without.found)).toBeUndefined();
    expect(without.runs).toBe(RUNS);
  });
}

// Not caught (searched with crashes, delayed declines, failed async snapshots, failing stores,
// slow acks, expiring checkpoints, tolerable failures 0, max concurrent 2): these bugs decide
// whether and when the job fails over, and no oracle judges that; faults stop at the heal time,
// so the STUCK these bugs cause in Flink cannot last. See the report of the suites.
test.todo('mutant fm-ignore-expired: expired checkpoints not counted (no failover; no oracle judges it)');
test.todo('mutant fm-success-before-store: success reported before the store write (no oracle judges it)');
test.todo('mutant fm-count-past-checkpoints: late failures counted (spurious failover; no oracle judges it)');
test.todo('mutant decline-any-attempt: stale declines fail the job (spurious failover; no oracle judges it)');
test.todo('mutant failover-keeps-pending: not reached by the targeted search (acks of new attempts)');
test.todo('mutant tracker-recreates-aborted: not reached (needs a trailing cancel marker for a dropped entry)');
