/**
 * `stopWithSavepoint({ drain?, format? })`: a step that stops the job with a synchronous
 * savepoint (Flink's JobMaster.stopWithSavepoint, `flink stop`; `drain: true` is `flink stop
 * --drain`), as a user's client would: the RunSpec action `{ type: 'stop-with-savepoint' }`
 * (docs/runspec.md, Actions; at most one per run), compiled into `actions`. Its synchronous
 * savepoint counts among the scenario's savepoints: if it is the n-th step that triggers one,
 * `savepoint(n)` names its points.
 */
import { checkBuilderOptions } from './builderOptions.ts';
import type { JobAction } from './Scenario.ts';

export function stopWithSavepoint(options: { readonly drain?: boolean; readonly format?: 'canonical' | 'native' } = {}): JobAction {
  checkBuilderOptions('stopWithSavepoint()', options, ['drain', 'format']);
  return {
    type: 'stop-with-savepoint',
    ...(options.drain === undefined ? {} : { drain: options.drain }),
    ...(options.format === undefined ? {} : { format: options.format }),
  };
}
