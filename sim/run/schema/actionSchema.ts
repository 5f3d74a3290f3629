/**
 * actionSchema: the RunSpec's actions, what a user (or an operator's tooling) asks of the job
 * during the run, as opposed to faults, which the world does to it. Each fires at a virtual time
 * or once at a protocol point, like a fault, but actions are not faults: they fire whether or
 * not the heal time has passed (they are part of the history under test, not of the trouble).
 *
 * - `savepoint`: JobMaster.triggerSavepoint (SchedulerBase.triggerSavepoint, without cancelJob),
 *   with its format, canonical (the default) or native, a property only here (heap state is
 *   written the same way).
 * - `stop-with-savepoint`: JobMaster.stopWithSavepoint, `drain` true for the variant that ends
 *   the sources' data first; a stop ends the run's history, so a spec has at most one
 *   (validateRunSpec).
 *
 * - `cancel`: JobMaster.cancel; the job run ends CANCELED, and the checkpoint retention
 *   (`checkpoint.retention`) decides whether its checkpoints stay.
 * - `rescale`: ends the job run and starts the next one from its snapshot at another parallelism
 *   (or the same: a plain restore into a new job run): `via` stop-with-savepoint without drain
 *   (the default) or cancel (then the run's latest retained checkpoint, which needs retention
 *   RETAIN_ON_CANCELLATION), `claimMode` the new run's RecoveryClaimMode (NO_CLAIM by default,
 *   as Flink). Never savepoint-then-cancel: checkpoints completing between the two would commit
 *   output the restore emits again.
 *
 * Protocol points and times are checked like a fault's (validateRunSpec, simulate's task check);
 * an action's time may be at or after the heal time.
 */
import { z } from 'zod';
import { protocolPointSchema } from './faultSchema.ts';
import { describe } from '../SpecChecks.ts';
import { because, intField, MAX_RUN_PARALLELISM, msField, oneOfField } from './specFields.ts';

/** When an action fires: `{ atMs }` (any time) or `{ at: <protocol point> }` (once). */
export const actionTriggerSchema = z.union([
  z.strictObject({ atMs: msField().meta({ description: 'Virtual time in ms (may be after healTimeMs).' }) }),
  z.strictObject({ at: protocolPointSchema }),
], because((v) => `must be { atMs } or { at: <protocol point> }, got ${describe(v)}`))
  .meta({ id: 'actionTrigger', description: 'When the action fires: { "atMs": t } or { "at": <protocol point> } (once).' });

export const SAVEPOINT_FORMATS = ['canonical', 'native'] as const;

export const savepointActionSchema = z.strictObject({
  type: z.literal('savepoint'),
  when: actionTriggerSchema,
  format: oneOfField(SAVEPOINT_FORMATS).meta({ description: 'canonical (default) or native: a property only.' }).exactOptional(),
}).meta({ description: 'Trigger a savepoint (JobMaster.triggerSavepoint).' });

export const stopWithSavepointActionSchema = z.strictObject({
  type: z.literal('stop-with-savepoint'),
  when: actionTriggerSchema,
  drain: z.boolean().meta({
    description: 'true: drain (the sources end their data and the operators finish before the snapshot, '
      + 'SavepointType.terminate); false (default): stop without draining (SavepointType.suspend).',
  }).exactOptional(),
  format: oneOfField(SAVEPOINT_FORMATS).meta({ description: 'canonical (default) or native: a property only.' }).exactOptional(),
}).meta({ description: 'Stop the job with a synchronous savepoint (JobMaster.stopWithSavepoint); at most one per run.' });

export const cancelActionSchema = z.strictObject({
  type: z.literal('cancel'),
  when: actionTriggerSchema,
}).meta({ description: 'Cancel the job run (JobMaster.cancel): CANCELLING, then CANCELED; the retention policy keeps or deletes its checkpoints.' });

export const RESCALE_VIA = ['stop-with-savepoint', 'cancel'] as const;
export const CLAIM_MODES = ['NO_CLAIM', 'CLAIM', 'LEGACY'] as const;

export const rescaleActionSchema = z.strictObject({
  type: z.literal('rescale'),
  when: actionTriggerSchema,
  parallelism: z.union([
    intField(1, MAX_RUN_PARALLELISM),
    z.record(z.string(), intField(1, MAX_RUN_PARALLELISM)),
  ], because((v) => `must be a positive integer or a map from operator uid to one, got ${describe(v)}`)).meta({
    description: 'The new run\'s parallelism: one number for every operator, or per operator uid (uids not named keep their parallelism).',
  }),
  via: oneOfField(RESCALE_VIA).meta({
    description: 'stop-with-savepoint (default: without drain) or cancel (restore from the run\'s latest retained checkpoint; needs checkpoint.retention RETAIN_ON_CANCELLATION).',
  }).exactOptional(),
  claimMode: oneOfField(CLAIM_MODES).meta({ description: 'The new run\'s RecoveryClaimMode: NO_CLAIM (default), CLAIM or LEGACY.' }).exactOptional(),
}).meta({ description: 'End the job run and start the next one from its snapshot at a new parallelism (a restore into a new job run).' });

/** The action types, in the order messages list them. */
export const ACTION_TYPES = ['savepoint', 'stop-with-savepoint', 'cancel', 'rescale'] as const;

/** One entry of `actions`. */
export const actionSchema = z.discriminatedUnion('type', [
  savepointActionSchema, stopWithSavepointActionSchema, cancelActionSchema, rescaleActionSchema,
], because((v) => {
  const type = typeof v === 'object' && v !== null ? (v as { type?: unknown }).type : undefined;
  return `unknown action type ${describe(type)} (action types: ${ACTION_TYPES.join(', ')})`;
})).meta({ id: 'action', description: 'An action on the job: { "type": "savepoint" | "stop-with-savepoint" | "cancel" | "rescale", "when": ... }.' });
