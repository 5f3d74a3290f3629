/**
 * `replay ... --trace <file>`: writes the replayed run as a Chrome Trace Event Format file for
 * Perfetto (reports/chromeTrace.ts; docs/trace.md). Kept apart from replayCommand.ts so that the
 * replay command only asks for a {@link ReplayTrace} and hands it the run.
 *
 * The run is simulated once, keeping the executor tasks (`traceTasks`, which changes no trace
 * hash); the judge and the printed excerpt see the trace without them, exactly what a replay
 * without --trace sees, so the verdict and output are the same.
 */
import { chromeTrace, type ChromeTraceMeta } from '../../reports/chromeTrace.ts';
import type { Simulate } from '../../properties/explore/explore.ts';
import type { TraceEvent } from '../../sim/Trace.ts';
import { simulate } from '../../sim/run/simulate.ts';
import type { RunResult } from '../../sim/run/RunResult.ts';
import { OutputFile } from '../outputFile.ts';
import type { Io } from '../program.ts';

/** The option's help line. */
export const TRACE_HELP = 'write the run as a Chrome trace (JSON) to open in https://ui.perfetto.dev';

export class ReplayTrace {
  private events: readonly TraceEvent[] | undefined;

  private constructor(private readonly file: OutputFile) {}

  /**
   * A trace to write to `path` (from --trace), or undefined without one. Makes the file's
   * missing parent directories and checks that it can be written, before the run.
   * @throws UsageError (one line) when it cannot be.
   */
  static of(path: string | undefined): ReplayTrace | undefined {
    const file = OutputFile.of('--trace', path);
    return file === undefined ? undefined : new ReplayTrace(file);
  }

  /** simulate, keeping the tasks for the file; the result's trace is the usual one (no tasks). */
  readonly simulate: Simulate = (spec) => {
    const r: RunResult = simulate(spec, { traceTasks: true });
    this.events = r.trace;
    return { ...r, trace: r.trace.filter((e) => e.type !== 'task') };
  };

  /**
   * Writes the file of the run {@link simulate} ran and prints `wrote <file> (N events): open it
   * in https://ui.perfetto.dev` (on stderr with --json, so stdout stays one JSON object).
   * @throws UsageError when the file cannot be written; Error if no run was simulated.
   */
  write(io: Io, meta: ChromeTraceMeta, json: boolean): void {
    if (this.events === undefined) throw new Error('ReplayTrace.write before a run was simulated');
    const file = chromeTrace(this.events, meta);
    this.file.write(`${JSON.stringify(file)}\n`);
    const line = `wrote ${this.file.given} (${file.traceEvents.length} events): open it in https://ui.perfetto.dev\n`;
    if (json) io.err(line);
    else io.out(line);
  }
}

/** What identifies a replayed run in the trace's otherData. */
export function traceMeta(result: RunResult, extra: { seed?: number; path?: string; fork?: number } = {}): ChromeTraceMeta {
  return {
    seed: extra.seed ?? result.spec.seed,
    ...(extra.path === undefined ? {} : { path: extra.path }),
    ...(extra.fork === undefined ? {} : { fork: extra.fork }),
    mode: result.spec.checkpoint.mode,
    job: result.spec.job.kind,
    traceHash: result.traceHash,
  };
}
