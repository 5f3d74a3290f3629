/**
 * `cancel()`: a step that cancels the job run (Flink's JobMaster.cancel, `flink cancel`), as a
 * user's client would: the RunSpec action `{ type: 'cancel' }` (docs/runspec.md, Job runs). The
 * run ends CANCELED; `config.checkpoint.retention` decides whether its checkpoints stay.
 */
import type { JobAction } from './Scenario.ts';

/** See the file comment. */
export function cancel(): JobAction {
  return { type: 'cancel' };
}
