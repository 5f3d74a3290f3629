/**
 * scoreMutant: the explorer run against one planted bug, as the scoreboard counts it
 * (`checkpoint-sim mutants run`). A search with the bug switched on, in the job and mode where
 * its code runs, until its first violation or the end of its wall-clock budget; then, for a
 * caught bug, the shrunk repro read back from its file and replayed, so a scoreboard never
 * reports a counterexample that does not reproduce.
 *
 * What a kill costs is counted up to the first violation, before shrinking (explore's
 * `firstViolation`): the runs fast-check generated and judged, and the wall time from the
 * search's start to the end of that run's judgement. Shrinking is the explorer's cost of
 * explaining, not of finding.
 */
import { readFileSync } from 'node:fs';
import type { RunMode, RunSpec } from '../../sim/run/RunSpec.ts';
import type { ExploreJob } from '../arbitraries/runSpecArbitrary.ts';
import { DEFAULT_EXPLORE_STRATEGY, type ExploreStrategy, type RunStrategy } from '../arbitraries/ExploreStrategy.ts';
import { explore, type Counterexample, type Judge, type Simulate } from '../explore/explore.ts';
import { parseRepro, type Repro } from '../explore/Repro.ts';
import { replayRepro } from '../explore/replay.ts';
import { inputRecordsOf } from './inputRecordsOf.ts';

/** Where and how one planted bug is searched for. */
export interface MutantSearch {
  readonly id: string;
  readonly job: ExploreJob;
  readonly mode: RunMode;
}

/** One planted bug's line of the scoreboard (the `--json` element of `mutants run`). */
export interface MutantScore {
  readonly id: string;
  /** Whether the search found a violation within its budget. */
  readonly killed: boolean;
  /** Runs generated and judged up to and including the first violating one; null when not killed. */
  readonly runsToKill: number | null;
  /** Wall ms from the search's start to the end of the first violating run; null when not killed. */
  readonly msToKill: number | null;
  /** The property the shrunk counterexample violates; null when not killed. */
  readonly property: string | null;
  /** Faults plus actions of the shrunk repro (the "faults and actions"); null when not killed. */
  readonly shrunkFaults: number | null;
  /** Of those, the actions (savepoints, stops, rescales). */
  readonly shrunkActions: number | null;
  /** Decision overrides of the shrunk repro. */
  readonly shrunkOverrides: number | null;
  /** Input records of the shrunk repro's job. */
  readonly shrunkRecords: number | null;
  /** The command that replays the shrunk repro; null when not killed. */
  readonly replay: string | null;
  /**
   * Whether the repro file, read back and simulated again, still violates the same property;
   * null when not killed.
   */
  readonly replays: boolean | null;
  /** The strategy of the search, and the one that drew the violating run (under `mixed`, one of the others). */
  readonly strategy: ExploreStrategy;
  readonly killedBy: RunStrategy | null;
  /** Where it was searched. */
  readonly job: string;
  readonly mode: RunMode;
  readonly seed: number;
  /** Runs judged in all (the budget's runs when not killed). */
  readonly runs: number;
  /** Wall ms of the whole search, shrinking and the replay check included. */
  readonly wallMs: number;
}

/** What {@link scoreMutant} needs besides the search. */
export interface ScoreOptions {
  readonly seed: number;
  /** Wall-clock budget of the search, ms (the runs to the first violation; shrinking is extra). */
  readonly timeBudgetMs: number;
  /** How runs are drawn; default explore's (`mixed`). */
  readonly strategy?: ExploreStrategy;
  /**
   * Whether the counterexample is shrunk and its repro replayed (default true). Off, only whether
   * and how fast the bug was caught is measured (the strategy table), and the repro fields are null.
   */
  readonly shrink?: boolean;
  readonly simulate: Simulate;
  readonly judge: Judge;
  /** Real milliseconds, from cli/. */
  readonly clock: () => number;
  /** Writes (or overwrites) the repro of `search`'s counterexample; returns its path. */
  readonly writeRepro: (search: MutantSearch, repro: Repro) => string;
  readonly version: string;
  /** Called after every judged run of the search. */
  readonly progress?: (runs: number) => void;
}

/**
 * Searches for `search.id` and scores the search (see the file comment).
 * @throws HarnessError when the explorer's determinism self-check fails; whatever simulate or the
 *   judge throw, as explore does.
 */
export function scoreMutant(search: MutantSearch, o: ScoreOptions): MutantScore {
  const started = o.clock();
  const strategy = o.strategy ?? DEFAULT_EXPLORE_STRATEGY;
  const report = explore({
    job: search.job,
    modes: [search.mode],
    mutants: [search.id],
    timeBudgetMs: o.timeBudgetMs,
    seed: o.seed,
    strategy,
    ...(o.shrink === false ? { shrink: false } : {}),
    simulate: o.simulate,
    judge: o.judge,
    clock: o.clock,
    version: o.version,
    writeRepro: (_mode, repro) => o.writeRepro(search, repro),
    ...(o.progress === undefined ? {} : { progress: (_mode: RunMode, done: number) => o.progress?.(done) }),
  });
  const summary = report.modes[search.mode];
  const first = summary?.firstViolation;
  const base = { id: search.id, strategy, job: report.job, mode: search.mode, seed: o.seed, runs: summary?.runs ?? 0 };
  const c = report.counterexamples[0];
  const none = {
    property: null, shrunkFaults: null, shrunkActions: null, shrunkOverrides: null, shrunkRecords: null, replay: null, replays: null,
  };
  if (c === undefined || first === undefined) {
    return { ...base, ...none, killed: false, killedBy: null, runsToKill: null, msToKill: null, wallMs: Math.round(o.clock() - started) };
  }
  const kill = { killed: true, killedBy: first.strategy, runsToKill: first.run, msToKill: first.ms };
  if (o.shrink === false) return { ...base, ...none, ...kill, property: c.property, wallMs: Math.round(o.clock() - started) };
  return {
    ...base,
    ...kill,
    property: c.property,
    shrunkFaults: c.faults + c.actions,
    shrunkActions: c.actions,
    shrunkOverrides: c.overrides,
    shrunkRecords: inputRecordsOf(c.spec),
    replay: c.replay,
    replays: replaysFromFile(c, o),
    wallMs: Math.round(o.clock() - started),
  };
}

/**
 * Whether the repro file `c` was written to still fails with `c`'s property when read back and
 * simulated again, as `replay <file>` does it.
 */
function replaysFromFile(c: Counterexample, o: ScoreOptions): boolean {
  const repro = parseRepro(JSON.parse(readFileSync(c.repro, 'utf8')) as unknown);
  const outcome = replayRepro(withSpec(repro, c.spec), { simulate: o.simulate, judge: o.judge });
  return outcome.violation?.property === c.property;
}

/**
 * The repro as read, with the spec explore holds in memory when the file's spec names a job
 * module by a path relative to the file (portableRepro): the simulator resolves modules by the
 * path it loaded them from. A built-in job's spec is the file's own.
 */
function withSpec(repro: Repro, spec: RunSpec): Repro {
  return repro.spec.job.kind === 'module' ? { ...repro, spec } : repro;
}
