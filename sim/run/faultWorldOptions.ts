/**
 * faultWorldOptions: the faults of a plan that are world settings rather than actions (RPC loss
 * and delay per kind, object store failures, unknown outcomes and slowness, async snapshot
 * failures). They are active from the start to the heal time; the World stops them there
 * (RpcNetwork and SimObjectStore take no injected fault at or after `healTimeUs`).
 *
 * Several faults of one kind combine: probabilities as independent events (1 - Π(1 - p)),
 * slowness factors multiply, and of several delays for one RPC kind the slowest (largest
 * `maxMs`, then the later fault) wins.
 */
import type { DelayDistribution, RpcKind } from '../../engine/index.ts';
import type { ObjectStoreConfig } from '../SimObjectStore.ts';
import type { DelayMs, Fault } from './RunSpec.ts';

/** The mark each injected async snapshot failure records. */
export const ASYNC_SNAPSHOT_FAILED_MARK = 'async-snapshot-failed';

/**
 * A task's snapshot file: `chk-<n>/<attempt>/<operator uid>` (AsyncCheckpointRunnable), or a
 * savepoint's `savepoint-<n>/<attempt>/<operator uid>`; not the `_metadata` file.
 */
const TASK_STATE_PATH = /^(?:run-\d+\/)?(?:chk|savepoint)-\d+\/[^/]+\/[^/]+$/;

/** True for the object store paths of tasks' snapshot writes. */
export function isTaskStatePath(path: string): boolean {
  return TASK_STATE_PATH.test(path);
}

/** The checkpoint (or savepoint) id of a path in its directory or of the directory (`chk-<n>`, `savepoint-<n>/...`), or -1. */
export function snapshotIdOfPath(path: string): number {
  const m = /^(?:run-\d+\/)?(?:chk|savepoint)-(\d+)(?:\/|$)/.exec(path);
  return m === null ? -1 : Number(m[1]);
}

/** The job run a snapshot path belongs to: `run-<n>/...` is run n, any other path run 1. */
export function jobRunOfPath(path: string): number {
  const m = /^run-(\d+)\//.exec(path);
  return m === null ? 1 : Number(m[1]);
}

/** A distribution in ms to whole µs. */
export function delayUs(d: DelayMs): DelayDistribution {
  const us = (ms: number): number => Math.round(ms * 1000);
  return { minUs: us(d.minMs), medianUs: us(d.medianMs), maxUs: us(d.maxMs) };
}

/** The RPC and object store settings the world-level faults of `faults` amount to. */
export interface FaultWorldOptions {
  readonly lossByKind: Partial<Record<RpcKind, number>>;
  readonly injectedLatencyByKind: Partial<Record<RpcKind, DelayDistribution>>;
  /** Object store fault settings (merge with the store's latency). */
  readonly objectStore: Omit<ObjectStoreConfig, 'latency'>;
  /**
   * The checkpoint ids whose targeted faults met an operation so far: a `slow-store` of that id
   * any store operation of its files, an `async-snapshot-failure` a task state write. Filled as
   * the store runs; a targeted fault whose id no operation had before the heal time never acted.
   */
  readonly touched: { readonly slowStore: ReadonlySet<number>; readonly asyncSnapshotFailure: ReadonlySet<number> };
}

/** Two independent chances as one, 1 - (1 - a)(1 - b); `a` absent: no chance yet. */
export const orP = (a: number | undefined, b: number): number => 1 - (1 - (a ?? 0)) * (1 - b);

/**
 * Of an RPC kind's delay so far (`old`) and a later one, the one that wins: the slowest (largest
 * `maxMs`), the later of equals.
 */
export const winningDelay = (old: DelayMs | undefined, later: DelayMs): DelayMs =>
  (old === undefined || later.maxMs >= old.maxMs ? later : old);

/** Derives the world settings of `faults` (see the file comment for how faults combine). */
export function faultWorldOptions(faults: readonly Fault[]): FaultWorldOptions {
  const lossByKind: Partial<Record<RpcKind, number>> = {};
  const latency: Partial<Record<RpcKind, DelayMs>> = {};
  let fail: number | undefined;
  let unknown: number | undefined;
  let asyncFail: number | undefined;
  /** Async snapshot failures of one checkpoint's (or savepoint's) writes only, by id. */
  const asyncFailById = new Map<number, number>();
  let slow: number | undefined;
  /** Slowness of one checkpoint's (or savepoint's) files only (a slow savepoint target), by id. */
  const slowById = new Map<number, number>();
  for (const f of faults) {
    switch (f.type) {
      case 'rpc-loss':
        lossByKind[f.kind] = orP(lossByKind[f.kind], f.probability);
        break;
      case 'rpc-delay':
        latency[f.kind] = winningDelay(latency[f.kind], f.latency);
        break;
      case 'store-failure':
        fail = orP(fail, f.probability);
        break;
      case 'store-unknown-outcome':
        unknown = orP(unknown, f.probability);
        break;
      case 'async-snapshot-failure':
        if (f.checkpoint === undefined) asyncFail = orP(asyncFail, f.probability);
        else asyncFailById.set(f.checkpoint, orP(asyncFailById.get(f.checkpoint), f.probability));
        break;
      case 'slow-store':
        if (f.checkpoint === undefined) slow = (slow ?? 1) * f.factor;
        else slowById.set(f.checkpoint, (slowById.get(f.checkpoint) ?? 1) * f.factor);
        break;
      default:
        break;
    }
  }
  const touched = { slowStore: new Set<number>(), asyncSnapshotFailure: new Set<number>() };
  const injectedLatencyByKind = Object.fromEntries(
    Object.entries(latency).map(([k, d]) => [k, delayUs(d)])) as Partial<Record<RpcKind, DelayDistribution>>;
  return {
    lossByKind,
    injectedLatencyByKind,
    touched,
    objectStore: {
      ...(fail === undefined ? {} : { failProbability: fail }),
      ...(unknown === undefined ? {} : { unknownOutcomeProbability: unknown }),
      ...(slow === undefined ? {} : { slowFactor: slow }),
      // Only when some fault names a checkpoint: otherwise every operation has the one factor.
      ...(slowById.size === 0 ? {} : {
        slowFactorFor: (path: string) => {
          const id = snapshotIdOfPath(path);
          const factor = slowById.get(id);
          if (factor === undefined) return slow ?? 1;
          touched.slowStore.add(id);
          return (slow ?? 1) * factor;
        },
      }),
      ...(asyncFail === undefined && asyncFailById.size === 0 ? {} : {
        putFailure: {
          probability: Math.max(asyncFail ?? 0, ...asyncFailById.values()),
          applies: isTaskStatePath,
          mark: ASYNC_SNAPSHOT_FAILED_MARK,
          // Only when some fault names a checkpoint: otherwise every write has the one probability.
          ...(asyncFailById.size === 0 ? {} : {
            probabilityFor: (path: string) => {
              const id = snapshotIdOfPath(path);
              const p = asyncFailById.get(id);
              if (p !== undefined) touched.asyncSnapshotFailure.add(id);
              return orP(asyncFail, p ?? 0);
            },
          }),
        },
      }),
    },
  };
}
