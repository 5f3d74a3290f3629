/**
 * validateRunSpec: checks a RunSpec completely before anything runs (a repro file, a scenario,
 * a generated run). The first problem found is thrown as a one-line SimInputError naming the
 * field by its path (the CLI exits 2 with it). Unknown fields are refused (a misspelt field
 * would otherwise be silently ignored), and so are unknown planted-bug ids in `mutations`.
 */
import { PLANTED_BUG_IDS } from '../../engine/index.ts';
import { validateOverrides } from '../ChoiceSource.ts';
import { JOB_MANAGER_HOST, taskManagerHost } from '../MiniCluster.ts';
import { SimInputError } from '../SimInputError.ts';
import { FLIGHTS_FILE_SIZE } from '../workloads/flights.ts';
import {
  GENERATED_JOB_LIMITS, validateGeneratedJobSpec, type GeneratedJobSpec,
} from '../workloads/generatedJob.ts';
import { WORDCOUNT_TEXT } from '../workloads/wordcount.ts';
import {
  generatedShape, jobUids, parallelismByUid, type ParallelismByUid,
} from './RunJob.ts';
import {
  AVAILABLE_MODES, RUN_MODES, RUN_SPEC_VERSION, type JobSpec, type RunSpec,
} from './RunSpec.ts';
import {
  at, describe, fail, optional, requireAbove, requireArray, requireDelayMs, requireInt, requireMs,
  requireObject, requireOneOf, requireString,
} from './SpecChecks.ts';
import { requireUid, validateFaults } from './validateFaults.ts';

const SPEC_FIELDS = [
  'version', 'seed', 'job', 'parallelism', 'maxParallelism', 'taskManagers', 'slotsPerTaskManager',
  'costsMs', 'network', 'storeLatency', 'heartbeat', 'jobManager', 'checkpoint', 'restartStrategy', 'faults',
  'healTimeMs', 'budgets', 'overrides', 'mutations',
];

/** The most threads a run's JobMaster ioExecutor may have. */
export const MAX_IO_POOL_SIZE = 64;

/** The largest parallelism a run may ask for (keeps a typo from booting a thousand hosts). */
export const MAX_RUN_PARALLELISM = 64;

/**
 * Checks that `spec` is a valid RunSpec and returns it, typed.
 * @throws SimInputError with a one-line reason for the first problem.
 */
export function validateRunSpec(spec: unknown): RunSpec {
  const o = requireObject(spec, '', SPEC_FIELDS);
  if (o['version'] !== RUN_SPEC_VERSION) {
    fail(`version must be ${RUN_SPEC_VERSION} (this checkpoint-sim's run spec format), `
      + `got ${describe(o['version'])}`);
  }
  requireString(o['seed'], 'seed');
  const job = validateJob(o['job']);
  const uids = jobUids(job);
  const parallelism = validateParallelism(job, o['parallelism'], uids);
  const maxP = Math.max(...Object.values(parallelism));
  const maxParallelism = optional(o['maxParallelism'],
    (v) => requireInt(v, 'maxParallelism', 1, GENERATED_JOB_LIMITS.maxMaxParallelism));
  if (maxParallelism !== undefined && maxParallelism < maxP) {
    fail(`maxParallelism (${maxParallelism}) must be at least the largest parallelism (${maxP})`);
  }
  if (job.kind === 'generated') checkGenerated(generatedShape(job.spec, parallelism, maxParallelism), 'parallelism');
  const slots = optional(o['slotsPerTaskManager'], (v) => requireInt(v, 'slotsPerTaskManager', 1)) ?? 2;
  const needed = Math.ceil(maxP / slots);
  const tms = optional(o['taskManagers'], (v) => requireInt(v, 'taskManagers', 1, MAX_RUN_PARALLELISM)) ?? needed;
  if (tms < needed) {
    fail(`taskManagers: ${tms} with ${slots} slots each cannot run parallelism ${maxP} (needs at least ${needed})`);
  }
  if (o['costsMs'] !== undefined) {
    for (const [uid, cost] of Object.entries(requireObject(o['costsMs'], 'costsMs', uids))) {
      requireMs(cost, `costsMs.${uid}`);
    }
  }
  validateNetwork(o['network']);
  if (o['storeLatency'] !== undefined) requireDelayMs(o['storeLatency'], 'storeLatency');
  if (o['heartbeat'] !== undefined) {
    const hb = requireObject(o['heartbeat'], 'heartbeat', ['intervalMs', 'timeoutMs']);
    const interval = requireAbove(hb['intervalMs'], 'heartbeat.intervalMs', 0);
    const timeout = requireAbove(hb['timeoutMs'], 'heartbeat.timeoutMs', 0);
    if (timeout <= interval) fail(`heartbeat.timeoutMs (${timeout}) must be above heartbeat.intervalMs (${interval})`);
  }
  if (o['jobManager'] !== undefined) {
    const jm = requireObject(o['jobManager'], 'jobManager', ['ioPoolSize']);
    optional(jm['ioPoolSize'], (v) => requireInt(v, 'jobManager.ioPoolSize', 1, MAX_IO_POOL_SIZE));
  }
  validateCheckpoint(o['checkpoint']);
  validateRestartStrategy(o['restartStrategy']);
  const healTimeMs = requireMs(o['healTimeMs'], 'healTimeMs');
  const budgets = requireObject(o['budgets'], 'budgets', ['maxEvents', 'maxTimeMs']);
  requireInt(budgets['maxEvents'], 'budgets.maxEvents', 1);
  requireAbove(budgets['maxTimeMs'], 'budgets.maxTimeMs', 0);
  const hosts = [JOB_MANAGER_HOST, ...Array.from({ length: tms }, (_x, i) => taskManagerHost(i + 1))];
  validateFaults(o['faults'], { hosts, uids, healTimeMs });
  validateOverrides(o['overrides']);
  requireArray(o['mutations'], 'mutations').forEach((m, i) => {
    requireString(m, `mutations[${i}]`);
    if (!PLANTED_BUG_IDS.includes(m as string)) {
      fail(`mutations[${i}]: unknown planted bug ${describe(m)} (planted bugs: ${PLANTED_BUG_IDS.join(', ')})`);
    }
  });
  return spec as RunSpec;
}

function validateJob(v: unknown): JobSpec {
  const kinds = ['flights', 'wordcount', 'generated'] as const;
  const kind = requireOneOf((v as { kind?: unknown } | null)?.kind, 'job.kind', kinds);
  switch (kind) {
    case 'flights': {
      const o = requireObject(v, 'job', ['kind', 'selection', 'splits']);
      const sel = requireObject(o['selection'], 'job.selection', ['from', 'to']);
      const from = requireInt(sel['from'], 'job.selection.from', 0, FLIGHTS_FILE_SIZE);
      requireInt(sel['to'], 'job.selection.to', from, FLIGHTS_FILE_SIZE);
      optional(o['splits'], (s) => requireInt(s, 'job.splits', 1, 10_000));
      break;
    }
    case 'wordcount': {
      const o = requireObject(v, 'job', ['kind', 'lines', 'splits']);
      optional(o['lines'], (s) => requireInt(s, 'job.lines', 1, WORDCOUNT_TEXT.length));
      optional(o['splits'], (s) => requireInt(s, 'job.splits', 1, 10_000));
      break;
    }
    case 'generated': {
      const o = requireObject(v, 'job', ['kind', 'spec']);
      requireObject(o['spec'], 'job.spec', [
        'records', 'stages', 'sourceParallelism', 'sinkParallelism', 'maxParallelism',
      ]);
      checkGenerated(o['spec'] as GeneratedJobSpec, 'job.spec');
      break;
    }
  }
  return v as JobSpec;
}

/** Runs the generated-job validation; any error it throws is bad input. */
function checkGenerated(spec: GeneratedJobSpec, path: string): void {
  try {
    validateGeneratedJobSpec(spec);
  } catch (e) {
    throw new SimInputError(`${path}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

function validateParallelism(job: JobSpec, v: unknown, uids: readonly string[]): ParallelismByUid {
  if (typeof v === 'number' || v === undefined) {
    requireInt(v, 'parallelism', 1, MAX_RUN_PARALLELISM);
  } else {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      fail('parallelism must be a positive integer or an object of operator uid -> parallelism, '
        + `got ${describe(v)}`);
    }
    for (const [uid, p] of Object.entries(v)) {
      requireUid(uid, 'parallelism', uids);
      requireInt(p, `parallelism.${uid}`, 1, MAX_RUN_PARALLELISM);
    }
  }
  const byUid = parallelismByUid(job, v as number | Record<string, number> | undefined);
  if (job.kind === 'wordcount' && new Set(Object.values(byUid)).size > 1) {
    fail('parallelism: wordcount runs every operator at one parallelism');
  }
  return byUid;
}

function validateNetwork(v: unknown): void {
  if (v === undefined) return;
  const o = requireObject(v, 'network', [
    'recordsPerBuffer', 'bufferTimeoutMs', 'dataLatency', 'rpcLatency', 'rpcTimeoutMs',
  ]);
  optional(o['recordsPerBuffer'], (x) => requireInt(x, 'network.recordsPerBuffer', 1));
  optional(o['bufferTimeoutMs'], (x) => requireMs(x, 'network.bufferTimeoutMs'));
  optional(o['dataLatency'], (x) => requireDelayMs(x, 'network.dataLatency'));
  optional(o['rpcLatency'], (x) => requireDelayMs(x, 'network.rpcLatency'));
  optional(o['rpcTimeoutMs'], (x) => requireAbove(x, 'network.rpcTimeoutMs', 0));
}

function validateCheckpoint(v: unknown): void {
  const o = requireObject(v, 'checkpoint', [
    'mode', 'intervalMs', 'timeoutMs', 'minPauseMs', 'maxConcurrent', 'tolerableFailures', 'retained',
    'alignedTimeoutMs',
  ]);
  const mode = requireOneOf(o['mode'], 'checkpoint.mode', RUN_MODES);
  if (!AVAILABLE_MODES.includes(mode)) {
    fail(`checkpoint.mode: mode ${mode} is not available yet (available: ${AVAILABLE_MODES.join(', ')})`);
  }
  wholeUs(requireMs(o['intervalMs'], 'checkpoint.intervalMs', 10), 'checkpoint.intervalMs');
  optional(o['timeoutMs'], (x) => wholeUs(requireMs(x, 'checkpoint.timeoutMs', 10), 'checkpoint.timeoutMs'));
  optional(o['minPauseMs'], (x) => wholeUs(requireMs(x, 'checkpoint.minPauseMs'), 'checkpoint.minPauseMs'));
  optional(o['maxConcurrent'], (x) => requireInt(x, 'checkpoint.maxConcurrent', 1));
  optional(o['tolerableFailures'], (x) => requireInt(x, 'checkpoint.tolerableFailures', 0));
  optional(o['retained'], (x) => requireInt(x, 'checkpoint.retained', 1));
  if (o['alignedTimeoutMs'] !== undefined) fail('checkpoint.alignedTimeoutMs applies to mode aligned-timeout only');
}

/** Checkpoint times go to the engine as ms and must be whole µs there. */
function wholeUs(ms: number, path: string): void {
  if (Math.round(ms * 1000) !== ms * 1000) fail(`${path} must be a whole number of µs, got ${ms} ms`);
}

function validateRestartStrategy(v: unknown): void {
  if (v === undefined) return;
  const path = 'restartStrategy';
  const kinds = ['none', 'fixed-delay', 'exponential-delay'] as const;
  const kind = requireOneOf((v as { kind?: unknown } | null)?.kind, at(path, 'kind'), kinds);
  const attempts = (x: unknown): void => {
    if (x !== 'unlimited') requireInt(x, at(path, 'attempts'), 0);
  };
  if (kind === 'none') {
    requireObject(v, path, ['kind']);
  } else if (kind === 'fixed-delay') {
    const o = requireObject(v, path, ['kind', 'attempts', 'delayMs']);
    attempts(o['attempts']);
    requireMs(o['delayMs'], at(path, 'delayMs'));
  } else {
    const o = requireObject(v, path, ['kind', 'initialDelayMs', 'maxDelayMs', 'multiplier', 'attempts']);
    const initial = requireAbove(o['initialDelayMs'], at(path, 'initialDelayMs'), 0);
    requireMs(o['maxDelayMs'], at(path, 'maxDelayMs'), initial);
    if (typeof o['multiplier'] !== 'number' || !Number.isFinite(o['multiplier']) || o['multiplier'] < 1) {
      fail(`${at(path, 'multiplier')} must be a finite number >= 1, got ${describe(o['multiplier'])}`);
    }
    attempts(o['attempts']);
  }
}
