/**
 * `triggerSavepoint({ format? })`: a step that asks the JobMaster for a savepoint (Flink's
 * JobMaster.triggerSavepoint, without cancelling the job), as a user's client would: the RunSpec
 * action `{ type: 'savepoint' }` (docs/runspec.md, Actions), which the scenario compiles into
 * `actions` rather than `faults`. Unlike a fault it fires whatever the heal time. `format` is
 * `canonical` (default) or `native`, a property only. The n-th such step is `savepoint(n)` in
 * points and expectations.
 */
import { checkBuilderOptions } from './builderOptions.ts';
import type { JobAction } from './Scenario.ts';

export function triggerSavepoint(options: { readonly format?: 'canonical' | 'native' } = {}): JobAction {
  checkBuilderOptions('triggerSavepoint()', options, ['format']);
  return options.format === undefined ? { type: 'savepoint' } : { type: 'savepoint', format: options.format };
}
