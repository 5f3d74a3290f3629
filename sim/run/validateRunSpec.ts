/**
 * validateRunSpec: checks a RunSpec completely before anything runs (a repro file, a scenario,
 * a generated run, a hand-written spec). The one validation path, in three steps:
 *
 * 1. the version (checkRunSpecVersion), first, so that a file of another format version gets
 *    "version 2 is not supported: this checkpoint-sim reads run spec version 8" rather than an
 *    error about a field that format did not have;
 * 2. the schema (runSpecSchema.ts): types, bounds, allowed values, unknown fields refused;
 * 3. what the schema cannot know (below): what needs the job (operator uids, the generated shape,
 *    one parallelism for wordcount), the cluster (hosts, enough slots), or two fields at once
 *    (maxParallelism against the parallelism, selection `to` against `from`, the heartbeat timeout
 *    against its interval, fault times against the heal time, decisions named twice, points that
 *    name a savepoint the actions do not trigger), the modes available, and checkpoint times in
 *    whole µs.
 *
 * The first problem found is thrown as a one-line SimInputError naming the field by its path
 * (the CLI exits 2 with it).
 */
import { computeDefaultMaxParallelism } from '../../engine/index.ts';
import { validateOverrides } from '../ChoiceSource.ts';
import { JOB_MANAGER_HOST, taskManagerHost } from '../MiniCluster.ts';
import { SimInputError } from '../SimInputError.ts';
import { FLIGHTS_FILE_SIZE } from '../workloads/flights.ts';
import { validateGeneratedJobSpec, type GeneratedJobSpec } from '../workloads/generatedJob.ts';
import { generatedShape, jobSourceUids, jobUids, parallelismByUid, type ParallelismByUid } from './RunJob.ts';
import { AVAILABLE_MODES, RUN_SPEC_VERSION, type Action, type RunSpec } from './RunSpec.ts';
import { MAX_IO_POOL_SIZE, MAX_RUN_PARALLELISM, runSpecSchema } from './runSpecSchema.ts';
import { parseWithSchema } from './schema/parseWithSchema.ts';
import { at, describe, fail } from './SpecChecks.ts';
import { checkSavepointPoints } from './savepointPoints.ts';
import { requireUid, validateFaults } from './validateFaults.ts';

export { MAX_IO_POOL_SIZE, MAX_RUN_PARALLELISM };

/**
 * Refuses a file whose `version` is not {@link RUN_SPEC_VERSION}, with one line saying which
 * version it has and which this build reads; a version that is no number (`"3"`) is told it
 * must be the number, since "version "3" is not supported" would read as a contradiction.
 * @param path where the version is, for the message (`version`, `spec.version`).
 * @throws SimInputError.
 */
export function checkRunSpecVersion(version: unknown, path = 'version'): void {
  if (version === RUN_SPEC_VERSION) return;
  const reads = `this checkpoint-sim reads run spec version ${RUN_SPEC_VERSION}`;
  if (version === undefined) fail(`${path} is missing: ${reads}`);
  if (typeof version !== 'number') {
    const got = typeof version === 'string' ? `the string ${describe(version)}` : describe(version);
    fail(`${path}: must be the number ${RUN_SPEC_VERSION}, got ${got}`);
  }
  fail(`${path} ${describe(version)} is not supported: ${reads}`);
}

/**
 * Checks that `spec` is a valid RunSpec and returns it (the same object), typed.
 * @throws SimInputError with a one-line reason for the first problem.
 */
export function validateRunSpec(spec: unknown): RunSpec {
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) {
    fail(`run spec must be an object, got ${describe(spec)}`);
  }
  checkRunSpecVersion((spec as { version?: unknown }).version);
  checkRunSpecSemantics(parseWithSchema(runSpecSchema, spec, 'run spec') as RunSpec);
  return spec as RunSpec;
}

/** Step 3 of validateRunSpec, on a spec the schema accepted. @throws SimInputError. */
function checkRunSpecSemantics(s: RunSpec): void {
  const { job } = s;
  if (job.kind === 'flights' && job.selection.to < job.selection.from) {
    fail(`job.selection.to: must be an integer in ${job.selection.from}..${FLIGHTS_FILE_SIZE}, got ${job.selection.to}`);
  }
  if (job.kind === 'generated') checkGenerated(job.spec, 'job.spec');
  const uids = jobUids(job);
  const parallelism = checkParallelism(s, uids);
  const firstMaxP = Math.max(...Object.values(parallelism));
  if (s.maxParallelism !== undefined && s.maxParallelism < firstMaxP) {
    fail(`maxParallelism: must be at least the largest parallelism (${firstMaxP}), got ${s.maxParallelism}`);
  }
  checkRescales(s, uids, parallelism);
  checkJobRuns(s);
  // TaskManagers are sized for the largest parallelism of any job run.
  const maxP = largestParallelism(s.actions ?? [], parallelism);
  if (job.kind === 'generated') checkGenerated(generatedShape(job.spec, parallelism, s.maxParallelism), 'parallelism');
  const slots = s.slotsPerTaskManager ?? 2;
  const needed = Math.ceil(maxP / slots);
  const tms = s.taskManagers ?? needed;
  if (tms < needed) {
    fail(`taskManagers: ${tms} with ${slots} slots each cannot run parallelism ${maxP} (needs at least ${needed})`);
  }
  for (const uid of Object.keys(s.costsMs ?? {})) {
    if (!uids.includes(uid)) fail(`costsMs: unknown field ${JSON.stringify(uid)} (fields: ${uids.join(', ')})`);
  }
  if (s.heartbeat !== undefined && s.heartbeat.timeoutMs <= s.heartbeat.intervalMs) {
    fail(`heartbeat.timeoutMs: must be above heartbeat.intervalMs (${s.heartbeat.intervalMs}), got ${s.heartbeat.timeoutMs}`);
  }
  checkCheckpoint(s.checkpoint);
  const rs = s.restartStrategy;
  if (rs?.kind === 'exponential-delay' && rs.maxDelayMs < rs.initialDelayMs) {
    fail(`restartStrategy.maxDelayMs: must be a number of ms >= ${rs.initialDelayMs}, got ${rs.maxDelayMs}`);
  }
  const hosts = [JOB_MANAGER_HOST, ...Array.from({ length: tms }, (_x, i) => taskManagerHost(i + 1))];
  validateFaults(s.faults, { hosts, uids, sourceUids: jobSourceUids(job), healTimeMs: s.healTimeMs });
  checkStops(s.actions ?? []);
  checkSavepointPoints(s.faults, s.actions ?? []);
  validateOverrides(s.overrides);
}

/**
 * The largest parallelism of any job run: the first run's (`firstByUid`) or one a rescale asks.
 */
export function largestParallelism(actions: readonly Action[], firstByUid: Readonly<Record<string, number>>): number {
  let maxP = Math.max(...Object.values(firstByUid));
  for (const a of actions) {
    if (a.type !== 'rescale') continue;
    const values = typeof a.parallelism === 'number' ? [a.parallelism] : Object.values(a.parallelism);
    maxP = Math.max(maxP, ...values);
  }
  return maxP;
}

/**
 * Rescale actions: checkpointing on (the snapshot comes from the checkpoint coordinator), a
 * cancel needs checkpoints retained on cancellation, uids the job has, and no operator above the
 * snapshot's max parallelism: the first run's, configured or its default, which every later
 * run adopts (StateAssignmentOperation would refuse the restore; reference 8 item 25).
 */
function checkRescales(s: RunSpec, uids: readonly string[], first: ParallelismByUid): void {
  (s.actions ?? []).forEach((a, i) => {
    if (a.type !== 'rescale') return;
    const path = `actions[${i}]`;
    if (s.checkpoint.mode === 'none') fail(`${path}: a rescale needs checkpointing (checkpoint.mode none has no snapshot to restore)`);
    if (a.via === 'cancel' && s.checkpoint.retention !== 'RETAIN_ON_CANCELLATION') {
      fail(`${path}.via: cancel leaves a checkpoint to restore only with checkpoint.retention RETAIN_ON_CANCELLATION, `
        + `got ${s.checkpoint.retention ?? 'NO_EXTERNALIZED_CHECKPOINTS (the default)'}`);
    }
    const asked = typeof a.parallelism === 'number'
      ? Object.fromEntries(uids.map((u) => [u, a.parallelism as number])) : a.parallelism;
    for (const uid of Object.keys(asked)) requireUid(uid, `${path}.parallelism`, uids);
    if (s.job.kind === 'wordcount' && typeof a.parallelism !== 'number') {
      fail(`${path}.parallelism: wordcount runs every operator at one parallelism (give one number)`);
    }
    for (const [uid, p] of Object.entries(asked)) {
      const limit = s.maxParallelism ?? (s.job.kind === 'generated' ? s.job.spec.maxParallelism
        : computeDefaultMaxParallelism(first[uid] ?? p));
      if (p > limit) {
        fail(`${path}.parallelism${typeof a.parallelism === 'number' ? '' : `.${uid}`}: ${p} is above the snapshot's max parallelism ${limit} `
          + '(the first run\'s, which every later run adopts)');
      }
    }
  });
}

/**
 * A point, message or channel-event fault naming a job run the spec can never have (each rescale action starts
 * at most one more run) would only ever show as never fired: it is bad input.
 */
function checkJobRuns(s: RunSpec): void {
  const actions = s.actions ?? [];
  const most = 1 + actions.filter((a) => a.type === 'rescale').length;
  const check = (run: number | undefined, path: string): void => {
    if (run !== undefined && run > most) {
      fail(`${path}: job run ${run} cannot happen: the spec has ${most - 1} rescale action(s), so at most ${most} job run(s)`);
    }
  };
  const pointRun = (when: unknown): number | undefined => {
    const at = (when as { at?: { jobRun?: number } } | undefined)?.at;
    return at?.jobRun;
  };
  s.faults.forEach((f, i) => {
    check(pointRun('when' in f ? f.when : undefined), `faults[${i}].when.at.jobRun`);
    if (f.type === 'message' || f.type === 'channel-event') check(f.jobRun, `faults[${i}].jobRun`);
  });
  actions.forEach((a, i) => check(pointRun(a.when), `actions[${i}].when.at.jobRun`));
}

/** A stop ends the run's history: at most one stop-with-savepoint action. */
function checkStops(actions: readonly Action[]): void {
  const stops = actions.flatMap((a, i) => (a.type === 'stop-with-savepoint' ? [i] : []));
  if (stops.length > 1) {
    fail(`actions[${stops[1]}]: a run has at most one stop-with-savepoint (actions[${stops[0]}] is one already)`);
  }
}

/** Runs the generated-job validation; any error it throws is bad input. */
function checkGenerated(spec: GeneratedJobSpec, path: string): void {
  try {
    validateGeneratedJobSpec(spec);
  } catch (e) {
    throw new SimInputError(`${path}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

/** Per-uid parallelism names the job's operators; wordcount runs every operator at one. */
function checkParallelism(s: RunSpec, uids: readonly string[]): ParallelismByUid {
  if (typeof s.parallelism !== 'number') {
    for (const uid of Object.keys(s.parallelism)) requireUid(uid, 'parallelism', uids);
  }
  const byUid = parallelismByUid(s.job, s.parallelism);
  if (s.job.kind === 'wordcount' && new Set(Object.values(byUid)).size > 1) {
    fail('parallelism: wordcount runs every operator at one parallelism');
  }
  return byUid;
}

function checkCheckpoint(cp: RunSpec['checkpoint']): void {
  const path = 'checkpoint';
  if (!AVAILABLE_MODES.includes(cp.mode)) {
    fail(`${at(path, 'mode')}: mode ${cp.mode} is not available yet (available: ${AVAILABLE_MODES.join(', ')})`);
  }
  wholeUs(cp.intervalMs, at(path, 'intervalMs'));
  if (cp.timeoutMs !== undefined) wholeUs(cp.timeoutMs, at(path, 'timeoutMs'));
  if (cp.minPauseMs !== undefined) wholeUs(cp.minPauseMs, at(path, 'minPauseMs'));
  if (cp.alignedTimeoutMs !== undefined) fail('checkpoint.alignedTimeoutMs: applies to mode aligned-timeout only');
}

/** Checkpoint times go to the engine as ms and must be whole µs there. */
function wholeUs(ms: number, path: string): void {
  if (Math.round(ms * 1000) !== ms * 1000) fail(`${path}: must be a whole number of µs, got ${ms} ms`);
}
