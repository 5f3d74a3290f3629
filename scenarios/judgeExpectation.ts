/**
 * judgeExpectation: judges one scenario expectation (Scenario.ts, expect.ts) from a run's trace
 * and RunResult, never from the engine's code path: at the end of the run, or, for
 * `expect.at(point, e)`, on the trace up to and including the event at which the point was
 * first reached (pointReach.ts).
 *
 * Returns whether it holds, what the run did instead (`actual`, one line for people), the
 * virtual time (ms) the verdict is about (the run's end, or when the point was reached) and the
 * trace events it rests on (a few, for the failure message).
 */
import { describeParallelism } from '../properties/describeFault.ts';
import { attributeDuplicates } from '../properties/oracles/atLeastOnce.ts';
import type { RunResult } from '../sim/run/RunResult.ts';
import type { TraceEvent } from '../sim/Trace.ts';
import { judgeSavepointExpectation } from './judgeSavepointExpectation.ts';
import { notation } from './notation.ts';
import { pointReach } from './pointReach.ts';
import type { CountBound, ScenarioExpectation } from './Scenario.ts';

export interface ExpectationVerdict {
  readonly ok: boolean;
  /** What the run did, e.g. `checkpoint 4 completed at 120.5 ms`. */
  readonly actual: string;
  /** The virtual time the verdict is about, ms. */
  readonly timeMs: number;
  /** The events it rests on (oldest first; may be empty). */
  readonly events: readonly TraceEvent[];
}

const ms = (e: TraceEvent): string => `${+(e.timeUs / 1000).toFixed(3)} ms`;

function holds(n: number, b: CountBound): boolean {
  return (b.exactly === undefined || n === b.exactly) && (b.atLeast === undefined || n >= b.atLeast)
    && (b.atMost === undefined || n <= b.atMost);
}

/** What became of checkpoint `id` of job run `run` (ids go on after a restore) in `trace`. */
function fate(trace: readonly TraceEvent[], id: number, run = 1): { actual: string; events: TraceEvent[] } {
  const of = trace.filter((e) => e.attrs['checkpointId'] === id && (Number(e.attrs['jobRun'] ?? 1)) === run
    && (e.type === 'checkpoint.triggered' || e.type === 'checkpoint.completed' || e.type === 'checkpoint.aborted'));
  const done = of.find((e) => e.type !== 'checkpoint.triggered');
  // Savepoints take checkpoint ids too: say so, or "checkpoint 3 completed" would mislead.
  const name = of[0]?.attrs['savepoint'] === true ? `checkpoint ${id} (a savepoint)` : `checkpoint ${id}`;
  if (done?.type === 'checkpoint.completed') return { actual: `${name} completed at ${ms(done)}`, events: of };
  if (done !== undefined) return { actual: `${name} was aborted with ${String(done.attrs['reason'])} at ${ms(done)}`, events: of };
  if (of.length > 0) return { actual: `${name} was triggered at ${ms(of[0] as TraceEvent)} and neither completed nor aborted`, events: of };
  const last = [...trace].reverse().find((e) => e.type === 'checkpoint.triggered');
  return { actual: `checkpoint ${id} was never triggered (last triggered: ${last === undefined ? 'none' : String(last.attrs['checkpointId'])})`, events: [] };
}

const restoresFromCheckpoint = (trace: readonly TraceEvent[]): TraceEvent[] =>
  trace.filter((e) => e.type === 'checkpoint.restored' && Number(e.attrs['checkpointId']) > 0);

/**
 * Judges `e` on `result`; `upTo` (exclusive index into the trace) cuts the trace for `at`.
 * `duplicates` needs the whole run (defineScenario refuses it inside `at`).
 */
export function judgeExpectation(e: ScenarioExpectation, result: RunResult, upTo?: number): ExpectationVerdict {
  const trace = upTo === undefined ? result.trace : result.trace.slice(0, upTo);
  const endMs = upTo === undefined ? result.outcome.timeMs : ((trace[trace.length - 1]?.timeUs ?? 0) / 1000);
  const verdict = (ok: boolean, actual: string, events: readonly TraceEvent[] = [], timeMs = endMs): ExpectationVerdict =>
    ({ ok, actual, timeMs, events: events.slice(-6) });
  switch (e.kind) {
    case 'checkpointsCompleted': {
      // Checkpoints only: a savepoint is no checkpoint (its own expectations: savepointCompleted).
      const done = trace.filter((x) => x.type === 'checkpoint.completed' && x.attrs['savepoint'] !== true);
      const ids = done.map((x) => String(x.attrs['checkpointId']));
      return verdict(holds(done.length, e), `${done.length} checkpoint(s) completed${ids.length > 0 ? ` (${ids.slice(0, 30).join(', ')}${ids.length > 30 ? ', ...' : ''})` : ''}`, done);
    }
    case 'checkpointCompleted': {
      const f = fate(trace, e.checkpoint, e.jobRun);
      const ok = f.events.some((x) => x.type === 'checkpoint.completed');
      return verdict(ok, f.actual, f.events);
    }
    case 'checkpointAborted': {
      const f = fate(trace, e.checkpoint, e.jobRun);
      const aborted = f.events.find((x) => x.type === 'checkpoint.aborted');
      const ok = aborted !== undefined && (e.reason === undefined || aborted.attrs['reason'] === e.reason);
      return verdict(ok, f.actual, f.events);
    }
    case 'restores': {
      const rs = restoresFromCheckpoint(trace);
      return verdict(holds(rs.length, e), `${rs.length} restore(s) from a checkpoint${rs.length > 0 ? ` (from ${rs.map((r) => String(r.attrs['checkpointId'])).join(', ')})` : ''}`, rs);
    }
    case 'restoredFrom': {
      const rs = restoresFromCheckpoint(trace);
      const used = rs.map((r) => Number(r.attrs['checkpointId']));
      const ok = e.nth === undefined ? used.includes(e.checkpoint) : used[e.nth - 1] === e.checkpoint;
      const actual = rs.length === 0 ? 'no restore from a checkpoint'
        : `the restores used checkpoint(s) ${rs.map((r) => `${String(r.attrs['checkpointId'])} (at ${ms(r)})`).join(', ')}`;
      return verdict(ok, actual, rs);
    }
    case 'jobStatus': {
      const statuses = trace.filter((x) => x.type === 'job.status');
      const status = upTo === undefined ? result.jobStatus : String(statuses[statuses.length - 1]?.attrs['status'] ?? 'CREATED');
      return verdict(status === e.status, `the job was ${status}${upTo === undefined ? ' at the end of the run' : ''}`, statuses);
    }
    case 'markReached':
    case 'markNotReached': {
      const marks = trace.filter((x) => x.type === 'mark' && x.attrs['name'] === e.name);
      const actual = marks.length === 0 ? `mark ${e.name} was never reached` : `mark ${e.name} was reached ${marks.length} time(s), first at ${ms(marks[0] as TraceEvent)}`;
      return verdict((marks.length > 0) === (e.kind === 'markReached'), actual, marks.slice(0, 3));
    }
    case 'duplicates': {
      const a = attributeDuplicates(result);
      const copies = a.duplicates.reduce((n, d) => n + d.copies, 0);
      const unexplained = a.unexplained.reduce((n, d) => n + d.copies - d.explainedBy.length, 0);
      const from = [...new Set(a.restores.map((r) => r.checkpointId))];
      const actual = `${copies} duplicated record copies committed (${a.duplicates.length} input records), `
        + `${unexplained === 0 ? 'each attributed to a restore' : `${unexplained} attributed to no restore`}`
        + ` (restores from checkpoint(s) ${from.length === 0 ? 'none' : from.join(', ')})`;
      const restores = trace.filter((x) => x.type === 'checkpoint.restored');
      return verdict(holds(copies, e) && unexplained === 0, actual, restores);
    }
    case 'failovers': {
      const fs = trace.filter((x) => x.type === 'scheduler.restarting');
      return verdict(holds(fs.length, e), `${fs.length} failover(s)`, fs);
    }
    case 'savepointCompleted':
    case 'savepointAborted':
    case 'savepointFailed':
    case 'savepointNotSubsumed':
    case 'savepointNotNotified':
    case 'savepointTransactionsCommitted': {
      const v = judgeSavepointExpectation(e, trace, result.spec.actions);
      return verdict(v.ok, v.actual, v.events);
    }
    case 'jobRun': {
      const run = result.jobRuns[e.jobRun - 1];
      const all = result.jobRuns.map((r) => `run ${r.index} at ${describeParallelism(r.parallelism)}`
        + `${r.restoredFrom === undefined ? '' : ` from ${r.restoredFrom.savepoint ? 'savepoint' : 'checkpoint'} ${r.restoredFrom.checkpointId} (${r.restoredFrom.claimMode})`}, ${r.status}`).join('; ');
      if (run === undefined) return verdict(false, `the history had ${result.jobRuns.length} job run(s): ${all}`);
      const wanted = e.parallelism === undefined ? undefined
        : typeof e.parallelism === 'number' ? Object.fromEntries(Object.keys(run.parallelism).map((u) => [u, e.parallelism as number])) : e.parallelism;
      const ok = (wanted === undefined || Object.entries(wanted).every(([u, p]) => run.parallelism[u] === p))
        && (e.restoredFrom === undefined || (run.restoredFrom !== undefined && run.restoredFrom.savepoint === (e.restoredFrom === 'savepoint')))
        && (e.claimMode === undefined || run.restoredFrom?.claimMode === e.claimMode)
        && (e.status === undefined || run.status === e.status);
      return verdict(ok, `the history had ${result.jobRuns.length} job run(s): ${all}`,
        trace.filter((x) => x.type === 'job.submitted' || x.type === 'checkpoint.restoreSavepoint'));
    }
    case 'fullCheckpoint': {
      const run = e.jobRun ?? 1;
      const full = trace.filter((x) => x.type === 'checkpoint.fullSnapshot' && (Number(x.attrs['jobRun'] ?? 1)) === run);
      const ids = full.map((x) => Number(x.attrs['checkpointId']));
      return verdict(ids.includes(e.checkpoint), ids.length === 0 ? `no FULL checkpoint in job run ${run}`
        : `FULL checkpoint(s) ${ids.join(', ')} in job run ${run}`, full);
    }
    case 'at': {
      const i = pointReach.first(trace, e.point, result.spec.actions);
      if (i < 0) {
        return verdict(false, `${notation.point(e.point)} was never reached (last protocol point reached: ${pointReach.last(trace, e.point, result.spec.actions)})`);
      }
      const inner = judgeExpectation(e.expect, result, i + 1);
      const reached = trace[i] as TraceEvent;
      return { ...inner, actual: `at ${notation.point(e.point)} (reached at ${ms(reached)}): ${inner.actual}`, timeMs: reached.timeUs / 1000 };
    }
  }
}

