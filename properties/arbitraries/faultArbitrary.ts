/**
 * fast-check arbitraries of faults, with swarm testing (FoundationDB): each run switches whole
 * fault families on or off and pushes the ones that are on hard. Everything shrinks toward no
 * faults, earlier checkpoints and simpler shapes; a message fault toward `lose` (rather than
 * `delay` or `hold`), no filters, `nth` 1, shorter delays and no trigger.
 */
import fc from 'fast-check';
import { CHECKPOINT_RPC_METHODS, rpcTaskSide, type RpcKind } from '../../engine/index.ts';
import type { Fault, FaultTrigger, MessageFault, ProtocolPoint } from '../../sim/run/RunSpec.ts';

/** The fault families a swarm switches on or off. */
export const FAULT_FAMILIES = [
  'crash', 'global-failure', 'pause', 'partition', 'rpc-loss', 'rpc-delay', 'store-failure',
  'store-unknown-outcome', 'slow-store', 'async-snapshot-failure', 'slow-task', 'message',
] as const;

/**
 * Fault families drawn apart from {@link FAULT_FAMILIES}, by {@link lateFaultPlanArbitrary}, after
 * every other field of a spec (runSpecArbitrary): adding one changed no draw of the others, so
 * every run without them stays the run it was. Swarmed the same way (on in one run out of five).
 */
export const LATE_FAULT_FAMILIES = ['coordinator-stall', 'crash-at-completion'] as const;

/**
 * A drawn coordinator stall's `durationMs` is in thousandths of the run's checkpoint timeout (1000
 * is one timeout): the timeout is drawn with the rest of the spec, so runSpecArbitrary scales the
 * stall to it where it assembles the spec. Short stalls (up to half a timeout) delay a
 * checkpoint's coordinator snapshot and the split assignments behind it; long ones (one to four
 * timeouts) make a checkpoint expire, unless the heal time cuts them first.
 */
export const STALL_DURATION_PER_TIMEOUT = 1000;

/** The checkpoint protocol's RPCs, which message faults aim at four times in five. */
const PROTOCOL_METHODS = [
  'triggerCheckpoint', 'acknowledgeCheckpoint', 'declineCheckpoint', 'confirmCheckpoint', 'abortCheckpoint',
  'sendOperatorEventToCoordinator', 'sendOperatorEventToTask',
] as const;
/** Other RPCs whose loss or delay the protocol must survive (heartbeats, deployment, task states). */
const OTHER_METHODS = ['requestHeartbeat', 'heartbeatFromTaskManager', 'updateTaskExecutionState', 'submitTask', 'cancelTask'] as const;
export type FaultFamily = (typeof FAULT_FAMILIES)[number] | (typeof LATE_FAULT_FAMILIES)[number];

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

export function triggerArbitrary(o: FaultArbitraryOptions): fc.Arbitrary<FaultTrigger> {
  const checkpoint = fc.integer({ min: 1, max: 12 });
  const taskPoint: fc.Arbitrary<ProtocolPoint> = fc.record({
    kind: fc.constant('task' as const),
    checkpoint,
    phase: fc.constantFrom('triggered', 'first-barrier', 'aligned', 'sync-done', 'async-done', 'acked', 'ack-received', 'notified'),
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
  const restorePoint: fc.Arbitrary<ProtocolPoint> = fc.record({
    kind: fc.constant('restore' as const), nth: fc.integer({ min: 1, max: 3 }),
  });
  const jobPoint: fc.Arbitrary<ProtocolPoint> = fc.record({
    kind: fc.constant('job' as const), status: fc.constantFrom('RUNNING', 'RESTARTING'), nth: fc.integer({ min: 1, max: 3 }),
  });
  return fc.oneof(
    fc.record({ atMs: fc.integer({ min: 0, max: Math.max(0, o.healTimeMs - 1) }) }),
    fc.record({ at: fc.oneof(taskPoint, jmPoint, sinkPoint, restorePoint, jobPoint) }),
  );
}

/**
 * A message fault: a protocol method four times in five, the checkpoint filter only for a method
 * about a checkpoint, a task filter only on the side the method names one (tasks are the
 * placeholders fitToJob aims at the job's), optional trigger. Each part shrinks toward the
 * simplest: `lose`, no filter, nth 1, a delay or hold of 1 ms, no trigger.
 */
function messageFaultArbitrary(o: FaultArbitraryOptions, when: fc.Arbitrary<FaultTrigger>): fc.Arbitrary<MessageFault> {
  return fc.record({
    method: fc.oneof({ arbitrary: fc.constantFrom(...PROTOCOL_METHODS), weight: 4 },
      { arbitrary: fc.constantFrom(...OTHER_METHODS), weight: 1 }),
    action: fc.constantFrom('lose' as const, 'delay' as const, 'hold' as const),
    // Each filter is on half the time (nil one time in `freq`; fast-check's default is on four times in five,
    // and a fault with every filter on rarely meets its message).
    checkpoint: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined, freq: 2 }),
    task: fc.option(fc.constantFrom(...o.tasks), { nil: undefined, freq: 2 }),
    // nth 1 half the time, else 2..4; drawn as one integer so that it shrinks toward 1.
    nth: fc.integer({ min: 0, max: 5 }).map((i) => Math.max(1, i - 1)),
    ms: fc.integer({ min: 1, max: 100 }),
    holdToHeal: fc.boolean(),
    when: fc.option(when, { nil: undefined, freq: 2 }),
  }).map((r): MessageFault => {
    const side = rpcTaskSide(r.method);
    const checkpoint = (CHECKPOINT_RPC_METHODS as readonly string[]).includes(r.method) ? r.checkpoint : undefined;
    const task = side === undefined ? undefined : r.task;
    // One checkpoint's RPC of one method names one task attempt once: only the 1st can match.
    const nth = checkpoint !== undefined && task !== undefined ? 1 : r.nth;
    return {
      type: 'message', action: r.action, method: r.method,
      ...(checkpoint === undefined ? {} : { checkpoint }),
      ...(side === undefined || task === undefined ? {} : { [side]: task }),
      ...(nth === 1 ? {} : { nth }),
      ...(r.action === 'delay' ? { delayMs: r.ms } : {}),
      ...(r.action === 'hold' && !r.holdToHeal ? { durationMs: r.ms } : {}),
      ...(r.when === undefined ? {} : { when: r.when }),
    };
  });
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
    case 'message':
      return messageFaultArbitrary(o, when);
    case 'slow-task':
      // Back pressure: 10 or 100 times the per-record cost of one operator's task for a while.
      return fc.record({
        type: fc.constant('slow-task' as const), operator: fc.constantFrom(...o.operators),
        factor: fc.constantFrom(10, 100), when, durationMs: fc.integer({ min: 1, max: 300 }),
      });
    case 'coordinator-stall':
      return coordinatorStallArbitrary(when);
    case 'crash-at-completion':
      // Two faults (faultsOfFamily); as one, the crash alone.
      return crashAtCompletionArbitrary(tm).map((faults) => faults[0] as Fault);
  }
}

/** One draw of `family`: one fault, or for crash-at-completion the crash and its slowed store. */
function faultsOfFamily(family: FaultFamily, o: FaultArbitraryOptions): fc.Arbitrary<Fault[]> {
  if (family === 'crash-at-completion') {
    return crashAtCompletionArbitrary(fc.integer({ min: 1, max: o.taskManagers }).map((i) => `taskmanager-${i}`));
  }
  return faultOfFamily(family, o).map((f) => [f]);
}

/**
 * A TaskManager crash as a checkpoint completes: when checkpoint `k` is fully acknowledged (the
 * `jobmaster acknowledged` point: the coordinator starts writing its `_metadata`, under its lock),
 * three times in four with `k`'s storage slowed ten times (`slow-store` of `k`), so that the write
 * outlasts the time the JobMaster takes to learn of the crash (a broken data connection seen on
 * another TaskManager, about a millisecond, or else the heartbeat timeout). The failed tasks
 * then reach the coordinators before the completion's notification does, and the restart restores
 * `k`: FLINK-20290's window. (Slowed a hundred times, `k`'s task state writes make it expire
 * before it is fully acknowledged.) `k` is the first checkpoint two times in three, since a generated
 * job's readers take their splits as they start, so those assignments are in the first coordinator
 * snapshot; else 2 to 4, since later ones mostly complete after the heal time, where a crash is
 * skipped. Shrinks toward checkpoint 1, the shortest downtime and the crash alone.
 */
function crashAtCompletionArbitrary(tm: fc.Arbitrary<string>): fc.Arbitrary<Fault[]> {
  return fc.record({
    host: tm,
    checkpoint: fc.oneof({ arbitrary: fc.constant(1), weight: 2 }, { arbitrary: fc.integer({ min: 2, max: 4 }), weight: 1 }),
    downMs: fc.integer({ min: 1, max: 200 }),
    slowStore: fc.option(fc.constant(10), { nil: undefined, freq: 4 }),
  }).map(({ host, checkpoint, downMs, slowStore }): Fault[] => [
    { type: 'crash', host, downMs, when: { at: { kind: 'jobmaster', checkpoint, phase: 'acknowledged' } } },
    ...(slowStore === undefined ? [] : [{ type: 'slow-store' as const, factor: slowStore, checkpoint }]),
  ]);
}

/**
 * A coordinator stall: aimed three times in five at a checkpoint's trigger or at its coordinators'
 * snapshot (the snapshot, or the notifications and split requests after it, then wait), else at
 * any trigger; a short or a long duration (see {@link STALL_DURATION_PER_TIMEOUT}); the job's first
 * source or, half the time, a source placeholder `src<k>` that fitToJob aims at the job's sources.
 * Shrinks toward the first source, a checkpoint's trigger of checkpoint 1 and the shortest stall.
 */
function coordinatorStallArbitrary(when: fc.Arbitrary<FaultTrigger>): fc.Arbitrary<Fault> {
  // Checkpoints 1 to 6: a run takes about five (its input spans about a second, at intervals of
  // 50 to 200 ms), so a stall aimed at a later one mostly never fires.
  const atCheckpoint: fc.Arbitrary<FaultTrigger> = fc.record({
    checkpoint: fc.integer({ min: 1, max: 6 }),
    phase: fc.constantFrom('triggered' as const, 'coordinators-snapshotted' as const),
  }).map(({ checkpoint, phase }) => ({ at: { kind: 'jobmaster' as const, checkpoint, phase } }));
  const per = STALL_DURATION_PER_TIMEOUT;
  return fc.record({
    source: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined, freq: 2 }),
    when: fc.oneof({ arbitrary: atCheckpoint, weight: 3 }, { arbitrary: when, weight: 2 }),
    durationMs: fc.oneof(fc.integer({ min: 1, max: per / 2 }), fc.integer({ min: per, max: 4 * per })),
  }).map((r): Fault => ({
    type: 'coordinator-stall', ...(r.source === undefined ? {} : { operator: `src${r.source}` }),
    when: r.when, durationMs: r.durationMs,
  }));
}

/**
 * A swarm fault plan: each family is off or on with one to three faults (families on are pushed
 * hard instead of every family a little). Built per family without `chain` (which shrinks
 * poorly), so it shrinks toward families off and fewer faults.
 */
export function faultPlanArbitrary(o: FaultArbitraryOptions): fc.Arbitrary<Fault[]> {
  const max = o.maxFaults ?? 6;
  return swarm(FAULT_FAMILIES, o).map((faults) => faults.slice(0, max));
}

/**
 * The swarm plan of {@link LATE_FAULT_FAMILIES}, drawn apart (see there); not capped by
 * `maxFaults`, which the main plan fills first.
 */
export function lateFaultPlanArbitrary(o: FaultArbitraryOptions): fc.Arbitrary<Fault[]> {
  return swarm(LATE_FAULT_FAMILIES, o);
}

/** Each of `families` off, or on with one to three faults; shrinks toward off and fewer. */
function swarm(families: readonly FaultFamily[], o: FaultArbitraryOptions): fc.Arbitrary<Fault[]> {
  // A family is on in one run out of five; `on` shrinks toward 0, i.e. toward the family off.
  const perFamily = Object.fromEntries(families.map((f) => [
    f, fc.record({ on: fc.integer({ min: 0, max: 4 }), faults: fc.array(faultsOfFamily(f, o), { minLength: 1, maxLength: 3 }) })
      .map((r) => (r.on === 4 ? withoutRepeatedSlowStores(r.faults.flat()) : null)),
  ])) as Record<string, fc.Arbitrary<Fault[] | null>>;
  return fc.record(perFamily).map((byFamily) => families.flatMap((f) => byFamily[f] ?? []));
}

/**
 * `faults` without a `slow-store` of a checkpoint an earlier one already slows: two
 * crash-at-completion draws aimed at one checkpoint would multiply its slowdown (ten times ten),
 * and its task state writes would then make it expire before it is fully acknowledged.
 */
function withoutRepeatedSlowStores(faults: Fault[]): Fault[] {
  const slowed = new Set<number>();
  return faults.filter((f) => {
    if (f.type !== 'slow-store' || f.checkpoint === undefined) return true;
    if (slowed.has(f.checkpoint)) return false;
    slowed.add(f.checkpoint);
    return true;
  });
}
