/**
 * fast-check arbitraries of faults, with swarm testing (FoundationDB): each run switches whole
 * fault families on or off and pushes the ones that are on hard. Everything shrinks toward no
 * faults, earlier checkpoints and simpler shapes.
 */
import fc from 'fast-check';
import type { RpcKind } from '../../engine/index.ts';
import type { Fault, FaultTrigger, ProtocolPoint } from '../../sim/run/RunSpec.ts';

/** The fault families a swarm switches on or off. */
export const FAULT_FAMILIES = [
  'crash', 'global-failure', 'pause', 'partition', 'rpc-loss', 'rpc-delay', 'store-failure',
  'store-unknown-outcome', 'slow-store', 'async-snapshot-failure', 'slow-task',
] as const;
export type FaultFamily = (typeof FAULT_FAMILIES)[number];

/** RPC kinds faults may target (deployment and registration loss only slow recovery down). */
const TARGET_KINDS: readonly RpcKind[] = [
  'trigger', 'ack', 'decline', 'notifyComplete', 'notifyAborted', 'coordinatorEvent', 'heartbeat', 'deployment',
];

export interface FaultArbitraryOptions {
  readonly taskManagers: number;
  /** Faults by time fire in [0, healTimeMs). */
  readonly healTimeMs: number;
  /** Task names `<vertex>#<subtask>` for task protocol points. */
  readonly tasks: readonly string[];
  /** Operator uids (or placeholders the caller maps to the job's) that slow tasks run. */
  readonly operators: readonly string[];
  readonly maxFaults?: number;
}

function triggerArbitrary(o: FaultArbitraryOptions): fc.Arbitrary<FaultTrigger> {
  const checkpoint = fc.integer({ min: 1, max: 12 });
  const taskPoint: fc.Arbitrary<ProtocolPoint> = fc.record({
    kind: fc.constant('task' as const),
    checkpoint,
    phase: fc.constantFrom('triggered', 'first-barrier', 'aligned', 'sync-done', 'async-done', 'acked'),
    task: fc.constantFrom(...o.tasks),
  });
  const jmPoint: fc.Arbitrary<ProtocolPoint> = fc.record({
    kind: fc.constant('jobmaster' as const),
    checkpoint,
    phase: fc.constantFrom('triggered', 'coordinators-snapshotted', 'completed', 'notified'),
  });
  const sinkPoint: fc.Arbitrary<ProtocolPoint> = fc.record({
    kind: fc.constant('sink' as const),
    phase: fc.constantFrom('pre-committed', 'committed'),
    nth: fc.integer({ min: 1, max: 8 }),
  });
  return fc.oneof(
    fc.record({ atMs: fc.integer({ min: 0, max: Math.max(0, o.healTimeMs - 1) }) }),
    fc.record({ at: fc.oneof(taskPoint, jmPoint, sinkPoint) }),
  );
}

/** One fault of `family`. */
export function faultOfFamily(family: FaultFamily, o: FaultArbitraryOptions): fc.Arbitrary<Fault> {
  const tm = fc.integer({ min: 1, max: o.taskManagers }).map((i) => `taskmanager-${i}`);
  const host = fc.oneof(tm, fc.constant('jobmanager'));
  const when = triggerArbitrary(o);
  const probability = fc.constantFrom(0.2, 0.5, 1);
  switch (family) {
    case 'crash':
      return fc.record({ type: fc.constant('crash' as const), host: tm, when, downMs: fc.integer({ min: 1, max: 200 }) });
    case 'global-failure':
      return fc.record({ type: fc.constant('global-failure' as const), when });
    case 'pause':
      return fc.record({ type: fc.constant('pause' as const), host: tm, when, durationMs: fc.integer({ min: 1, max: 100 }) });
    case 'partition':
      return fc.record({
        type: fc.constant('partition' as const), a: tm, b: host, oneWay: fc.boolean(), when, durationMs: fc.integer({ min: 1, max: 100 }),
      }).filter((f) => f.a !== f.b);
    case 'rpc-loss':
      return fc.record({ type: fc.constant('rpc-loss' as const), kind: fc.constantFrom(...TARGET_KINDS), probability });
    case 'rpc-delay':
      return fc.record({
        type: fc.constant('rpc-delay' as const),
        kind: fc.constantFrom(...TARGET_KINDS),
        latency: fc.constantFrom({ minMs: 1, medianMs: 5, maxMs: 50 }, { minMs: 10, medianMs: 50, maxMs: 300 }),
      });
    case 'store-failure':
      return fc.record({ type: fc.constant('store-failure' as const), probability });
    case 'store-unknown-outcome':
      return fc.record({ type: fc.constant('store-unknown-outcome' as const), probability });
    case 'slow-store':
      return fc.record({ type: fc.constant('slow-store' as const), factor: fc.constantFrom(10, 100, 1000) });
    case 'async-snapshot-failure':
      return fc.record({ type: fc.constant('async-snapshot-failure' as const), probability });
    case 'slow-task':
      // Back pressure: 10 or 100 times the per-record cost of one operator's task for a while.
      return fc.record({
        type: fc.constant('slow-task' as const), operator: fc.constantFrom(...o.operators),
        factor: fc.constantFrom(10, 100), when, durationMs: fc.integer({ min: 1, max: 300 }),
      });
  }
}

/**
 * A swarm fault plan: each family is off or on with one to three faults (families on are pushed
 * hard instead of every family a little). Built per family without `chain` (which shrinks
 * poorly), so it shrinks toward families off and fewer faults.
 */
export function faultPlanArbitrary(o: FaultArbitraryOptions): fc.Arbitrary<Fault[]> {
  const max = o.maxFaults ?? 6;
  // A family is on in one run out of five; `on` shrinks toward 0, i.e. toward the family off.
  const perFamily = Object.fromEntries(FAULT_FAMILIES.map((f) => [
    f, fc.record({ on: fc.integer({ min: 0, max: 4 }), faults: fc.array(faultOfFamily(f, o), { minLength: 1, maxLength: 3 }) })
      .map((r) => (r.on === 4 ? r.faults : null)),
  ])) as Record<FaultFamily, fc.Arbitrary<Fault[] | null>>;
  return fc.record(perFamily).map((byFamily) => FAULT_FAMILIES.flatMap((f) => byFamily[f] ?? []).slice(0, max));
}
