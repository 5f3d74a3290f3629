/**
 * FoldUnsupportedError: the reference fold F met something it has no model for (ORACLES.md: a
 * broadcast edge, a timer), at one operator. A job whose module did not turn that operator's
 * judging off is refused before the run (sim/jobs/judgeability.ts); F throws this when it finds
 * the problem only while folding (a keyed function without `onTimer` that registers a timer),
 * so the caller can refuse the job with the same one line (judgeability's unjudgeableRefusal)
 * instead of reporting a harness failure.
 */
export class FoldUnsupportedError extends Error {
  override readonly name = 'FoldUnsupportedError';

  constructor(
    /** The operator's uid and name. */
    readonly operatorUid: string,
    readonly operatorName: string,
    /** What it does, as a verb phrase: `uses timers (timerService().registerProcessingTimeTimer)`. */
    readonly why: string,
  ) {
    super(`reference fold: operator '${operatorName}' (uid ${operatorUid}) ${why}, which the reference fold `
      + 'cannot judge (ORACLES.md: F has no broadcast edges and no timers)');
  }
}
