/**
 * stopSummary: one line (and a JSON object) saying what a run's stop-with-savepoint came to and
 * which cut of the input its output was judged against, for `run` and `replay`.
 */
import { judgedAtSavepointOnly, cutAtSavepoint, stopOutcome } from '../../properties/oracles/stopWithSavepoint.ts';
import { sharedReferenceFold } from '../../properties/sharedReferenceFold.ts';
import type { RunResult } from '../../sim/run/RunResult.ts';

/**
 * What the run's stop-with-savepoint came to and what its output was judged against, for people
 * (`text`) and for `--json` (`json`: the outcome, the savepoint's id, F's output records at the
 * savepoint's cut against the whole input's, the tasks a stuck stop waits on); undefined without
 * a stop that fired.
 */
export function stopSummary(r: RunResult): { text: string; json: Record<string, unknown> } | undefined {
  const stop = stopOutcome(r);
  if (stop === undefined) return undefined;
  const id = stop.savepoint?.checkpointId;
  const cut = (stop.kind === 'finished' || judgedAtSavepointOnly(stop)) && stop.savepoint !== undefined
    ? { judgedRecords: sharedReferenceFold(cutAtSavepoint(r.graph, stop.savepoint)).outputs.length, inputRecords: sharedReferenceFold(r.graph).outputs.length }
    : undefined;
  const judged = cut === undefined ? '' : `; output judged against the input up to savepoint ${String(id)} (${cut.judgedRecords} of the whole input's ${cut.inputRecords} output records)`;
  const what = {
    finished: `finished with savepoint ${String(id)}, the job FINISHED`,
    'job-failed': `savepoint ${String(id)} exists but the job FAILED before every task finished (StopWithSavepointStoppingException)`,
    failed: 'its savepoint failed; the tasks failed on its abort, the job failed over and kept running',
    refused: `refused before its savepoint was triggered (${refusal(r, stop.action)}); the refusal failed nothing over and left periodic checkpointing as it was`,
    stuck: `stuck: tasks ${r.stuckStop?.tasks.join(', ') ?? ''} wait forever for synchronous savepoint ${String(r.stuckStop?.checkpointId)}`
      + ` (its ${r.stuckStop?.savepoint === 'completed' ? 'confirmation' : 'abort'} was lost; known in Flink 1.20: liveness not judged)`,
    pending: 'no outcome before the run ended',
  }[stop.kind];
  // A rescale's stop that never started the next run ends the history too: say whose stop it is.
  const of = r.spec.actions[stop.action]?.type === 'rescale' ? `(the stop of rescale actions[${stop.action}]) ` : '';
  return {
    text: `${of}${what}${judged}`,
    json: { outcome: stop.kind, ...(id === undefined ? {} : { savepoint: id }), ...(cut ?? {}), ...(r.stuckStop === undefined ? {} : { stuck: r.stuckStop }) },
  };
}

/** Why a refused stop failed: the reason its action log recorded. */
function refusal(r: RunResult, action: number): string {
  return r.actions.find((a) => a.action === action && a.event === 'failed')?.reason ?? 'no reason recorded';
}
