/**
 * The restore fan-out forks of explore (ORACLES.md 2): a run that held, forked at one of its
 * completed checkpoints into a run that fails over there ({@link forkSpec}) and one that is
 * cancelled there and restored at another parallelism ({@link rescaleForkSpec}); both are judged
 * like the run. `replay --seed --path --fork N [--fork-rescale]` rebuilds them ({@link applyFork}).
 */
import type { Action, Fault, RunSpec } from '../../sim/run/RunSpec.ts';

/**
 * The restore fan-out fork of `spec` at checkpoint `checkpointId` (ORACLES.md 2): the same spec
 * with one more fault, "fail the job globally when checkpoint `checkpointId` completes", last.
 */
export function forkSpec(spec: RunSpec, checkpointId: number): RunSpec {
  const fault: Fault = { type: 'global-failure', when: { at: { kind: 'jobmaster', checkpoint: checkpointId, phase: 'completed' } } };
  return { ...spec, faults: [...spec.faults, fault] };
}

/** A restore fan-out fork: at which checkpoint, and whether across a rescale. */
export interface ForkRef {
  readonly checkpointId: number;
  /** The rescale fork ({@link rescaleForkSpec}); absent or false: the global-failure one. */
  readonly rescale?: boolean;
}

/**
 * The restore fan-out fork across a rescale (ORACLES.md 2, "forks at another parallelism"): the
 * same spec with its checkpoints retained on cancellation and one more action, "when checkpoint
 * `checkpointId` completes, cancel and restore it into a new job run at another parallelism"
 * (one lower, or 2 from 1), last. Judged like the run.
 */
export function rescaleForkSpec(spec: RunSpec, checkpointId: number): RunSpec {
  const p = typeof spec.parallelism === 'number' ? spec.parallelism
    : spec.job.kind === 'generated' ? Math.max(spec.job.spec.sourceParallelism, spec.job.spec.sinkParallelism) : 2;
  const next = p > 1 ? p - 1 : 2;
  const action: Action = {
    type: 'rescale', via: 'cancel', parallelism: next,
    when: { at: { kind: 'jobmaster', checkpoint: checkpointId, phase: 'completed' } },
  };
  // From 1 to 2 the new run may need more slots than the spec's TaskManagers have.
  const needed = Math.ceil(next / (spec.slotsPerTaskManager ?? 2));
  return {
    ...spec, checkpoint: { ...spec.checkpoint, retention: 'RETAIN_ON_CANCELLATION' },
    ...(spec.taskManagers !== undefined && spec.taskManagers < needed ? { taskManagers: needed } : {}),
    actions: [...(spec.actions ?? []), action],
  };
}

/** `spec` forked as `fork` says. */
export function applyFork(spec: RunSpec, fork: ForkRef): RunSpec {
  return fork.rescale === true ? rescaleForkSpec(spec, fork.checkpointId) : forkSpec(spec, fork.checkpointId);
}
