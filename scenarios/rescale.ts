/**
 * `rescale(parallelism, { via?, claimMode? })`: a step that ends the job run and starts the next
 * one from its snapshot at `parallelism` (one number for every operator, or per operator uid; the
 * same as before is a plain restore into a new job run), as an operator's tooling does: the
 * RunSpec action `{ type: 'rescale' }` (docs/runspec.md, Job runs). `via`: stop-with-savepoint
 * without drain (the default) or cancel (the run's latest checkpoint, retained with
 * `config.checkpoint.retention: 'RETAIN_ON_CANCELLATION'`); `claimMode`: NO_CLAIM (Flink's
 * default), CLAIM or LEGACY. Points after it name the new run's checkpoints with `jobRun`.
 */
import type { JobAction } from './Scenario.ts';
import { checkBuilderOptions } from './builderOptions.ts';

/** See the file comment. */
export function rescale(
  parallelism: number | Readonly<Record<string, number>>,
  options: { readonly via?: 'stop-with-savepoint' | 'cancel'; readonly claimMode?: 'NO_CLAIM' | 'CLAIM' | 'LEGACY' } = {},
): JobAction {
  checkBuilderOptions(`rescale(${JSON.stringify(parallelism)})`, options, ['via', 'claimMode']);
  return {
    type: 'rescale',
    parallelism: typeof parallelism === 'number' ? parallelism : { ...parallelism },
    ...(options.via === undefined ? {} : { via: options.via }),
    ...(options.claimMode === undefined ? {} : { claimMode: options.claimMode }),
  };
}
