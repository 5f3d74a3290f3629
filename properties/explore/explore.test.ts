/**
 * explore's per-mode figures and what it does with a counterexample, with the real simulator of
 * small generated jobs and judges written for the test (explore takes its judge as a parameter).
 */
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { runSpecArbitrary } from '../arbitraries/runSpecArbitrary.ts';
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';
import type { RunMode, RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { plantEngineAssertion } from '../../sim/testing/plantEngineAssertion.ts';
import { STATE_JUDGED, stateUnjudged } from '../oracles/stateJudgement.ts';
import { canonicalFaults } from './canonicalFaults.ts';
import { defaultJudge } from './defaultJudge.ts';
import { applyFork, explore, forkSpec, rescaleForkSpec, type ExploreOptions, type ExploreReport, type Judge } from './explore.ts';
import type { Repro } from './Repro.ts';

/** Options of a small search: generated jobs of at most 10 records, no sampled extra runs. */
function small(judge: Judge, over: Partial<ExploreOptions> = {}): ExploreOptions {
  return {
    job: 'generated', modes: ['aligned'], runs: 4, seed: 7, maxRecords: 10,
    determinismEvery: 0, fanOutEvery: 0,
    simulate: (spec) => simulate(spec), judge, clock: () => 0, version: 'test',
    writeRepro: () => {
      throw new Error('no repro expected');
    },
    ...over,
  };
}

describe('explore per-mode figures', () => {
  test('missingRecords sums what the judge counted missing in each run', () => {
    const judge: Judge = (result: RunResult, expect) => ({ ...defaultJudge(result, expect), missing: 2 });
    const report = explore(small(judge));
    expect(report.modes['aligned']?.runs).toBe(4);
    expect(report.modes['aligned']?.missingRecords).toBe(8);
    expect(report.counterexamples).toEqual([]);
  });
});

describe('explore per-mode figures: unattributed aborts and failovers', () => {
  test('unattributed sums them per mode, with the categories of the others and at most 5 examples, each with its run, '
    + 'fast-check path and world seed', () => {
    let calls = 0;
    const judge: Judge = (result, expect) => {
      const verdict = defaultJudge(result, expect);
      const n = calls++;
      // Runs 2, 4 and 6 have an unattributed failover and two aborts each (made up by the test).
      if (n % 2 === 0 || verdict.attribution === undefined) return verdict;
      const u = (seq: number, type: string) => ({ seq, timeMs: seq / 10, type, reason: 'made up', chain: [type] });
      return { ...verdict, attribution: { ...verdict.attribution, unattributedAborts: 2, unattributedFailovers: 1,
        unattributed: [u(10, 'scheduler.taskFailed'), u(11, 'checkpoint.aborted'), u(12, 'checkpoint.aborted')] } };
    };
    const report = explore(small(judge, { runs: 6, seed: 11, maxRecords: 20 }));
    const u = report.modes['aligned']?.unattributed;
    expect(u).toMatchObject({ aborts: 6, failovers: 3, runs: 3 });
    expect(u?.examples.map((e) => [e.run, e.path, e.seq])).toEqual([[2, '1', 10], [2, '1', 11], [2, '1', 12], [4, '3', 10], [4, '3', 11]]);
    expect(u?.examples[0]?.seed).toMatch(/^s-?\d+$/);
    // The real judgement's categories of the runs' own aborts and failovers are summed too.
    expect(Object.keys(u?.attributed ?? {}).length).toBeGreaterThan(0);
  });
});

describe('explore per-mode figures: unjudged state', () => {
  test('stateUnjudged counts the runs whose keyed state was not judged, per mode and per reason', () => {
    let calls = 0;
    // Every other judged run says its state was not judged, for one of two reasons.
    const judge: Judge = (result, expect) => {
      const verdict = defaultJudge(result, expect);
      const n = calls++;
      if (n % 2 === 0) return { ...verdict, keyedState: STATE_JUDGED };
      const reason = n % 4 === 1 ? 'hidden-search-inconclusive' : 'duplicates-after-keyed-state';
      return { ...verdict, keyedState: stateUnjudged(reason, 'made up by the test') };
    };
    const report = explore(small(judge, { modes: ['at-least-once'], runs: 8, seed: 3, maxRecords: 20 }));
    const summary = report.modes['at-least-once'];
    expect(summary?.runs).toBe(8);
    expect(summary?.stateUnjudged).toBe(4);
    expect(summary?.stateUnjudgedReasons).toEqual({ 'hidden-search-inconclusive': 2, 'duplicates-after-keyed-state': 2 });
  });
});

describe('explore per-mode figures: operator state', () => {
  test('operatorStateJudged counts the runs whose restores of list or union state were judged; unjudged ones by reason', () => {
    let calls = 0;
    const judge: Judge = (result, expect) => {
      const verdict = defaultJudge(result, expect);
      const n = calls++;
      if (n % 3 === 0) return { ...verdict, operatorState: { judged: true, restores: 2 } };
      if (n % 3 === 1) return { ...verdict, operatorState: { judged: false, reason: 'no-restore', detail: 'made up by the test' } };
      // A job without such operators is neither judged nor counted as unjudged.
      return { ...verdict, operatorState: { judged: false, reason: 'no-operator-state', detail: 'made up by the test' } };
    };
    const report = explore(small(judge, { modes: ['at-least-once'], runs: 6, seed: 3, maxRecords: 20 }));
    const summary = report.modes['at-least-once'];
    expect(summary?.operatorStateJudged).toBe(2);
    expect(summary?.operatorStateUnjudgedReasons).toEqual({ 'no-restore': 2 });
  });
});

describe('explore per-mode figures: unfired faults', () => {
  test('unfiredFaults sums the faults that never fired over the mode\'s runs', () => {
    const seen: number[] = [];
    const report = explore(small(defaultJudge, {
      runs: 30,
      simulate: (spec) => {
        const r = simulate(spec);
        seen.push(r.unfiredFaults.length);
        return r;
      },
    }));
    const total = seen.reduce((a, b) => a + b, 0);
    // Not vacuous: some of these runs have faults whose point they never reach.
    expect(total).toBeGreaterThan(0);
    expect(report.modes['aligned']?.unfiredFaults).toBe(total);
  });
});

const key = (spec: RunSpec): string => JSON.stringify(spec);
/** `spec` without the faults (and actions) at these indices, as explore drops those that never fired. */
const without = (spec: RunSpec, indices: readonly number[], actionIndices: readonly number[] = []): RunSpec => {
  const faults = spec.faults.filter((_f, i) => !indices.includes(i));
  if (actionIndices.length === 0) return { ...spec, faults };
  const { actions: _all, ...rest } = spec;
  const actions = (spec.actions ?? []).filter((_a, i) => !actionIndices.includes(i));
  return actions.length === 0 ? { ...rest, faults } : { ...spec, faults, actions };
};
const withoutUnfired = (spec: RunSpec, r: RunResult): RunSpec => without(spec, r.unfiredFaults, r.unfiredActions);

/** A counterexample fast-check cannot shrink, and the specs that fail with it. */
interface Planted {
  /** The first generated spec `capture` accepted: fast-check's counterexample. */
  readonly captured: RunSpec;
  /** Its run. */
  readonly result: RunResult;
  /** Spec (by key) to the property its run violates; any other spec holds. */
  readonly failing: Map<string, string>;
}

/**
 * Explores with a judge that fails exactly the specs of `plant`'s map: the first spec whose run
 * `capture` accepts, plus those `plant` adds. Every shrink of the captured spec holds (unless
 * planted), so fast-check's counterexample is the captured spec itself. Runs of specs that hold
 * after the capture are not simulated (the judge decides by spec), which keeps shrinking cheap.
 */
function plantedSearch(
  capture: (spec: RunSpec, result: RunResult) => boolean,
  plant: (p: Omit<Planted, 'failing'>) => [RunSpec, string][],
  seed = 2,
): { report: ExploreReport; planted: Planted; writes: Repro[] } {
  const specOf = new WeakMap<RunResult, RunSpec>();
  let planted: Planted | undefined;
  const writes: Repro[] = [];
  const report = explore(small((result) => {
    const spec = specOf.get(result) as RunSpec;
    if (planted === undefined && capture(spec, result)) {
      planted = { captured: spec, result, failing: new Map([[key(spec), 'liveness']]) };
      for (const [s, property] of plant(planted)) planted.failing.set(key(s), property);
    }
    const property = planted?.failing.get(key(spec));
    const violation: Violation = { property: property ?? '', summary: 'planted', details: {}, timeMs: 0 };
    return { violations: property === undefined ? [] : [violation], duplicates: 0, missing: 0, keyedState: STATE_JUDGED };
  }, {
    runs: 300,
    seed,
    simulate: (spec) => {
      const r = planted === undefined || planted.failing.has(key(spec)) ? simulate(spec) : { ...planted.result };
      specOf.set(r, spec);
      return r;
    },
    writeRepro: (_mode: RunMode, repro: Repro) => {
      writes.push(repro);
      return 'repro.json';
    },
  }));
  if (planted === undefined) throw new Error('no generated run was captured: change the seed');
  return { report, planted, writes };
}

/** The run has faults that never fired, of two types or more (no one shrink step drops them all). */
const twoUnfiredTypes = (spec: RunSpec, r: RunResult): boolean =>
  new Set(r.unfiredFaults.map((i) => spec.faults[i]?.type)).size >= 2;

describe('explore drops faults that never fired from a counterexample', () => {
  test('when the same property still fails without them, after the shrunk repro was written', () => {
    const { report, planted, writes } = plantedSearch(twoUnfiredTypes,
      ({ captured, result }) => [[withoutUnfired(captured, result), 'liveness']]);
    const smaller = withoutUnfired(planted.captured, planted.result);
    expect(smaller.faults.length).toBeLessThan(planted.captured.faults.length);
    expect(writes.map((w) => [w.stage, w.spec])).toEqual([
      ['unshrunk', planted.captured], ['shrunk', planted.captured], ['shrunk', smaller],
    ]);
    expect(report.counterexamples[0]?.spec).toEqual(smaller);
    expect(report.counterexamples[0]?.faults).toBe(smaller.faults.length);
  });

  test('but keeps them when the run without them holds or fails another property', () => {
    for (const other of [undefined, 'storage-invariants']) {
      const { report, planted, writes } = plantedSearch(twoUnfiredTypes, ({ captured, result }) =>
        (other === undefined ? [] : [[withoutUnfired(captured, result), other]]));
      expect(writes.map((w) => [w.stage, w.spec])).toEqual([['unshrunk', planted.captured], ['shrunk', planted.captured]]);
      expect(report.counterexamples[0]?.spec).toEqual(planted.captured);
      expect(report.counterexamples[0]?.property).toBe('liveness');
    }
  });

  test('also after merging world-setting faults', () => {
    // Two faults of one kind that merge to a probability fast-check never draws (0.2, 0.5, 1), so
    // the merged spec is not one shrink step away from the captured one.
    const mergesAnew = (spec: RunSpec, r: RunResult): boolean => {
      const merged = canonicalFaults(spec);
      return twoUnfiredTypes(spec, r) && merged !== spec
        && merged.faults.some((f) => 'probability' in f && ![0.2, 0.5, 1].includes(f.probability));
    };
    const { report, planted, writes } = plantedSearch(mergesAnew, ({ captured }) => {
      const merged = canonicalFaults(captured);
      // Only the merged spec fails without its unfired faults, not the captured one.
      return [[merged, 'liveness'], [withoutUnfired(merged, simulate(merged)), 'liveness']];
    });
    const merged = canonicalFaults(planted.captured);
    const smaller = withoutUnfired(merged, simulate(merged));
    expect(smaller.faults.length).toBeLessThan(merged.faults.length);
    expect(writes.map((w) => w.spec)).toEqual([planted.captured, planted.captured, smaller]);
    expect(report.counterexamples[0]?.spec).toEqual(smaller);
  });
});

describe('explore and engine assertions', () => {
  /** Options of a search that records the repros it writes. */
  function recording(over: Partial<ExploreOptions>): { options: ExploreOptions; writes: Repro[] } {
    const writes: Repro[] = [];
    const options: ExploreOptions = {
      ...small(defaultJudge),
      writeRepro: (_mode, repro) => {
        writes.push(repro);
        return `repro-${writes.length}.json`;
      },
      ...over,
    };
    return { options, writes };
  }

  test('a run the real engine\'s assertion ended is a counterexample: written at once, then shrunk', () => {
    // The wordcount job's count operator fails the engine's assert on the word `wheel`.
    // Seed 12: the first run (drawn by targeted) has faults (a global failure and a channel-event
    // hold) for shrinking to take away.
    const { options, writes } = recording({ job: 'wordcount', runs: 3, seed: 12 });
    const { maxRecords: _fixedInput, ...wordcount } = options;
    const remove = plantEngineAssertion((r) => r.value === 'wheel', 'planted: count got wheel');
    let report: ExploreReport;
    try {
      report = explore(wordcount);
    } finally {
      remove();
    }
    const c = report.counterexamples[0];
    expect(c?.property).toBe('engine-assertion');
    expect(c?.summary).toBe('planted: count got wheel');
    expect((c?.violation.details as { location?: string }).location).toMatch(/^engine\/.+\.ts:\d+$/);
    expect(report.modes['aligned']?.violations).toBe(1);
    // The first failing run is written before any shrinking, the shrunk one after it.
    expect(writes[0]?.stage).toBe('unshrunk');
    expect(writes.at(-1)?.stage).toBe('shrunk');
    expect(writes.at(-1)?.spec).toEqual(c?.spec);
    expect(writes.every((w) => w.property === 'engine-assertion' && w.summary === 'planted: count got wheel')).toBe(true);
    // Every wordcount run reaches `wheel`, so shrinking takes every fault and override away.
    expect(writes[0]?.spec.faults.length).toBeGreaterThan(0);
    expect(c?.spec.faults).toEqual([]);
    expect(c?.spec.overrides).toEqual([]);
  });

  test('a shrink step counts only if it ends in an engine assertion at the same location', () => {
    // Runs with two faults or more "assert" at engine/a.ts:1, runs with one at engine/b.ts:2:
    // another bug, which shrinking must not trade the first one for.
    const asserting = (r: RunResult, location: string): RunResult => ({
      ...r,
      outcome: { ...r.outcome, reason: 'engine-assertion' },
      engineAssertion: { message: `planted at ${location}`, location, stack: [], timeMs: r.outcome.timeMs },
    });
    // Seed 8 under the swarm strategy: the first run with a fault has more than two (generated
    // jobs' draws); under mixed, a targeted run with one fault would come first.
    const { options, writes } = recording({
      runs: 100,
      seed: 8,
      strategy: 'swarm',
      simulate: (spec) => {
        const r = simulate(spec);
        if (spec.faults.length >= 2) return asserting(r, 'engine/a.ts:1');
        return spec.faults.length === 1 ? asserting(r, 'engine/b.ts:2') : r;
      },
    });
    const c = explore(options).counterexamples[0];
    expect(c?.property).toBe('engine-assertion');
    expect((c?.violation.details as { location?: string }).location).toBe('engine/a.ts:1');
    expect(writes.map((w) => w.summary)).toEqual(writes.map(() => 'planted at engine/a.ts:1'));
    // Shrunk as far as the same failure goes, which is not vacuous: the first had more faults.
    expect(c?.spec.faults).toHaveLength(2);
    expect(writes[0]?.spec.faults.length).toBeGreaterThan(2);
  });
});

describe('restore fan-out (oracle 2) never counts a fork that tested no restore as one that did', () => {
  test('forks fork at checkpoints completed before the heal time, and count forks whose failover never fired', () => {
    const forks: RunSpec[] = [];
    const mains = new Set<string>();
    let unfired = 0;
    const report = explore(small(defaultJudge, {
      runs: 40, fanOutEvery: 1,
      simulate: (spec) => {
        const r = simulate(spec);
        // A fork is a spec already run, with one more fault at the end.
        if (!mains.has(key(without(spec, [spec.faults.length - 1])))) {
          mains.add(key(spec));
          return r;
        }
        forks.push(spec);
        // Pretend every other fork's schedule moved its checkpoint past the heal time; the others
        // count as unfired only when their failover really never fired.
        const last = spec.faults.length - 1;
        const out = forks.length % 2 === 0 ? { ...r, unfiredFaults: [...r.unfiredFaults, last] } : r;
        if (out.unfiredFaults.includes(last)) unfired++;
        return out;
      },
    }));
    expect(report.fanOut.runs).toBe(forks.length);
    expect(report.fanOut.runs).toBeGreaterThan(1);
    expect(unfired).toBeGreaterThanOrEqual(Math.floor(forks.length / 2));
    expect(report.fanOut.unfired).toBe(unfired);
    // Every fork targets a checkpoint that completed before the heal time in the main run.
    for (const fork of forks) {
      const main = simulate({ ...fork, faults: fork.faults.slice(0, -1) });
      const f = fork.faults[fork.faults.length - 1];
      const id = f !== undefined && 'when' in f && 'at' in f.when && f.when.at.kind === 'jobmaster' ? f.when.at.checkpoint : -1;
      const c = main.checkpoints.completed.find((x) => x.checkpointId === id);
      expect(c?.completionTimestampUs).toBeLessThan(main.spec.healTimeMs * 1000);
    }
  });
});

describe('a counterexample found in a restore fan-out fork records the fork', () => {
  test('the counterexample, its repro and its regenerate command name the checkpoint forked at', () => {
    // evaluate simulates a fork right after its main run: the main's spec plus one fault.
    let previous: string | undefined;
    const isFork = (spec: RunSpec): boolean => spec.faults.length > 0 && key(without(spec, [spec.faults.length - 1])) === previous;
    const forkRuns = new WeakSet<RunResult>();
    const writes: Repro[] = [];
    // Every fork fails (a made-up liveness violation); main runs are judged as usual.
    const judge: Judge = (result, expect) => (forkRuns.has(result)
      ? { ...defaultJudge(result, expect), violations: [{ property: 'liveness', summary: 'made up for forks', details: {}, timeMs: 1 }] }
      : defaultJudge(result, expect));
    const report = explore(small(judge, {
      runs: 20, fanOutEvery: 1,
      simulate: (spec) => {
        const fork = isFork(spec);
        previous = fork ? undefined : key(spec);
        const r = simulate(spec);
        if (fork) forkRuns.add(r);
        return r;
      },
      writeRepro: (_mode, r) => {
        writes.push(r);
        return 'repro.json';
      },
    }));
    const c = report.counterexamples[0];
    expect(c?.fork?.checkpointId).toBeGreaterThanOrEqual(1);
    expect(c?.fork?.rescale).toBeUndefined();
    const last = writes.at(-1);
    expect(last?.fork).toEqual({ checkpointId: c?.fork?.checkpointId });
    expect(forkOf(last?.spec.faults ?? [])).toBe(c?.fork?.checkpointId);
    if (c?.regenerate !== undefined) expect(c.regenerate).toContain(` --fork ${String(c.fork?.checkpointId)}`);
    // The explanation is of the fork's run: its global failure is on the cause chain.
    expect(c?.explanation.violated).toBe(true);
  });
});

/** The checkpoint of a trailing "global failure when checkpoint N completes" fault (a fork's). */
function forkOf(faults: readonly RunSpec['faults'][number][]): number | undefined {
  const f = faults.at(-1);
  return f !== undefined && f.type === 'global-failure' && 'at' in f.when && f.when.at.kind === 'jobmaster'
    && f.when.at.phase === 'completed' ? f.when.at.checkpoint : undefined;
}

describe('the restore fan-out also forks across a rescale (ORACLES.md 2)', () => {
  test('each sampled run is forked a second time: cancelled when its middle checkpoint completes, restored from it at another parallelism', () => {
    const rescaleForks: RunSpec[] = [];
    const simulated: RunSpec[] = [];
    const report = explore(small(defaultJudge, {
      runs: 20, fanOutEvery: 1,
      simulate: (spec) => {
        const last = spec.actions?.[spec.actions.length - 1];
        // A fork is a run simulated before with one more action, last (a drawn run may end with
        // such a rescale itself).
        const forked = simulated.some((s) => s.seed === spec.seed && (s.actions ?? []).length === (spec.actions ?? []).length - 1);
        if (forked && last?.type === 'rescale' && last.via === 'cancel' && spec.checkpoint.retention === 'RETAIN_ON_CANCELLATION'
          && 'at' in last.when) rescaleForks.push(spec);
        simulated.push(spec);
        return simulate(spec);
      },
    }));
    expect(report.fanOut.rescaleRuns).toBeGreaterThan(0);
    expect(report.fanOut.rescaleRuns).toBe(rescaleForks.filter((s) => {
      const a = s.actions?.[s.actions.length - 1];
      return a !== undefined && 'at' in a.when && a.when.at.kind === 'jobmaster' && a.when.at.phase === 'completed';
    }).length);
    expect(report.fanOut.rescaleViolations).toBe(0);
    // The fork restores at another parallelism than the run's.
    for (const s of rescaleForks) {
      const a = s.actions?.[s.actions.length - 1];
      const p = typeof s.parallelism === 'number' ? s.parallelism : undefined;
      if (a?.type === 'rescale' && p !== undefined) expect(a.parallelism).not.toBe(p);
    }
  });

  test('rescaleForkSpec and applyFork: the rescale fork is the spec with retained checkpoints and one more rescale action, last', () => {
    const spec = fc.sample(runSpecArbitrary({ job: 'flights', mode: 'aligned', maxRecords: 50, rescales: false, savepoints: false }), { seed: 3, numRuns: 1 })[0] as RunSpec;
    const fork = applyFork(spec, { checkpointId: 3, rescale: true });
    expect(fork).toEqual(rescaleForkSpec(spec, 3));
    expect(fork.checkpoint.retention).toBe('RETAIN_ON_CANCELLATION');
    expect(fork.actions?.at(-1)).toMatchObject({ type: 'rescale', via: 'cancel', when: { at: { kind: 'jobmaster', checkpoint: 3, phase: 'completed' } } });
    expect(applyFork(spec, { checkpointId: 3 })).toEqual(forkSpec(spec, 3));
  });
});

describe('explore counts the rescales that fired and what they came to', () => {
  test('fired, restored and failed match the runs\' action logs', () => {
    const results: RunResult[] = [];
    const report = explore(small(defaultJudge, {
      job: 'flights', runs: 40, maxRecords: 60,
      simulate: (spec) => {
        const r = simulate(spec);
        results.push(r);
        return r;
      },
    }));
    const logs = results.flatMap((r) => r.spec.actions.flatMap((a, i) => (a.type === 'rescale' ? [r.actions.filter((x) => x.action === i)] : [])));
    const fired = logs.filter((l) => l.some((x) => x.event === 'fired'));
    expect(fired.length).toBeGreaterThan(0);
    expect(report.modes['aligned']?.rescales).toEqual({
      fired: fired.length,
      restored: fired.filter((l) => l.some((x) => x.event === 'completed')).length,
      failed: fired.filter((l) => l.some((x) => x.event === 'failed')).length,
      refused: results.reduce((n, r) => n + r.trace.filter((e) => e.type === 'jm.restoreFailed').length, 0),
    });
  });
});
