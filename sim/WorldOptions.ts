/**
 * WorldOptions: everything a World is configured with, and its validation. Times and durations
 * are virtual microseconds (integers); the milliseconds of RunSpec are converted by the caller.
 * Invalid input is rejected up front with a one-line SimInputError, never silently corrected.
 */
import { RPC_KINDS } from '../engine/api/index.ts';
import type { DelayDistribution } from '../engine/api/index.ts';
import { validateDistribution, validateOverrides } from './ChoiceSource.ts';
import type { Override } from './ChoiceSource.ts';
import type { ObjectStoreConfig } from './SimObjectStore.ts';
import { validatePctOptions } from './PctScheduler.ts';
import type { PctOptions } from './PctScheduler.ts';
import type { RpcConfig } from './RpcNetwork.ts';
import { SimInputError, requireNonNegativeInteger, requireProbability } from './SimInputError.ts';

export interface WorldOptions {
  /** The root seed of every random stream. */
  readonly seed: string;
  /** Sparse decision overrides (DESIGN.md "decisions as data"). */
  readonly overrides?: readonly Override[];
  /** From this virtual time on, injected faults stop and delays are never `slow`. */
  readonly healTimeUs?: number;
  /** A run stops after this many events or beyond this virtual time. */
  readonly budgets?: { readonly maxEvents?: number; readonly maxTimeUs?: number };
  readonly rpc?: RpcConfig;
  readonly network?: { readonly latency: DelayDistribution };
  readonly objectStore?: ObjectStoreConfig;
  /** Call every registered invariant check after each event. */
  readonly checkInvariants?: boolean;
  /** Planted-bug switches that are on. */
  readonly bugs?: readonly string[];
  /** How many trace events to store (the hash covers all); default unlimited. */
  readonly traceLimit?: number;
  /** Store executor task events in the trace too (they are always hashed); default false. */
  readonly traceTasks?: boolean;
  /** How many decisions to keep in the decision log; default 10,000. */
  readonly decisionLogLimit?: number;
  /** A PCT schedule of the order decisions (PctScheduler.ts); absent: seeded draws. */
  readonly pct?: PctOptions;
}

/** Defaults: sub-millisecond RPC and data latencies, a few ms for storage. */
export const DEFAULT_RPC_LATENCY: DelayDistribution = { minUs: 100, medianUs: 500, maxUs: 2_000 };
export const DEFAULT_NETWORK_LATENCY: DelayDistribution = { minUs: 50, medianUs: 200, maxUs: 1_000 };
export const DEFAULT_STORE_LATENCY: DelayDistribution = { minUs: 500, medianUs: 2_000, maxUs: 10_000 };

/**
 * Checks `o` completely.
 * @throws SimInputError with a one-line reason for the first problem found.
 */
export function validateWorldOptions(o: WorldOptions): void {
  if (o === null || typeof o !== 'object') throw new SimInputError('world options must be an object');
  if (typeof o.seed !== 'string') throw new SimInputError('seed must be a string');
  if (o.overrides !== undefined) validateOverrides(o.overrides);
  if (o.healTimeUs !== undefined) requireNonNegativeInteger(o.healTimeUs, 'healTimeUs');
  if (o.budgets?.maxEvents !== undefined) requireNonNegativeInteger(o.budgets.maxEvents, 'budgets.maxEvents');
  if (o.budgets?.maxTimeUs !== undefined) requireNonNegativeInteger(o.budgets.maxTimeUs, 'budgets.maxTimeUs');
  if (o.traceLimit !== undefined) requireNonNegativeInteger(o.traceLimit, 'traceLimit');
  if (o.decisionLogLimit !== undefined) requireNonNegativeInteger(o.decisionLogLimit, 'decisionLogLimit');
  if (o.bugs !== undefined && (!Array.isArray(o.bugs) || o.bugs.some((b) => typeof b !== 'string'))) {
    throw new SimInputError('bugs must be an array of strings');
  }
  if (o.rpc !== undefined) validateRpc(o.rpc);
  if (o.network !== undefined) validateDistribution(o.network.latency, 'network.latency');
  if (o.objectStore !== undefined) validateStore(o.objectStore);
  if (o.pct !== undefined) validatePctOptions(o.pct);
}

function validateRpc(rpc: RpcConfig): void {
  validateDistribution(rpc.defaultLatency, 'rpc.defaultLatency');
  for (const [kind, d] of Object.entries(rpc.latencyByKind ?? {})) {
    if (!RPC_KINDS.includes(kind as never)) throw new SimInputError(`rpc.latencyByKind: unknown kind ${kind}`);
    validateDistribution(d, `rpc.latencyByKind.${kind}`);
  }
  for (const [kind, d] of Object.entries(rpc.injectedLatencyByKind ?? {})) {
    if (!RPC_KINDS.includes(kind as never)) throw new SimInputError(`rpc.injectedLatencyByKind: unknown kind ${kind}`);
    validateDistribution(d, `rpc.injectedLatencyByKind.${kind}`);
  }
  for (const [kind, p] of Object.entries(rpc.lossByKind ?? {})) {
    if (!RPC_KINDS.includes(kind as never)) throw new SimInputError(`rpc.lossByKind: unknown kind ${kind}`);
    requireProbability(p, `rpc.lossByKind.${kind}`);
  }
  if (rpc.lateDeliveryProbability !== undefined) {
    requireProbability(rpc.lateDeliveryProbability, 'rpc.lateDeliveryProbability');
  }
}

function validateStore(s: ObjectStoreConfig): void {
  validateDistribution(s.latency, 'objectStore.latency');
  if (s.failProbability !== undefined) requireProbability(s.failProbability, 'objectStore.failProbability');
  if (s.unknownOutcomeProbability !== undefined) {
    requireProbability(s.unknownOutcomeProbability, 'objectStore.unknownOutcomeProbability');
  }
  if (s.putFailure !== undefined) {
    const f = s.putFailure;
    requireProbability(f.probability, 'objectStore.putFailure.probability');
    if (typeof f.applies !== 'function') throw new SimInputError('objectStore.putFailure.applies must be a function');
    if (typeof f.mark !== 'string' || f.mark === '') {
      throw new SimInputError('objectStore.putFailure.mark must be a non-empty string');
    }
  }
  if (s.slowFactor !== undefined && !(Number.isFinite(s.slowFactor) && s.slowFactor >= 1)) {
    throw new SimInputError(`objectStore.slowFactor must be a finite number >= 1, got ${String(s.slowFactor)}`);
  }
}
