/**
 * fast-check arbitraries of faults, with swarm testing (FoundationDB): each run switches whole
 * fault families on or off and pushes the ones that are on hard. Everything shrinks toward no
 * faults, earlier checkpoints and simpler shapes; a message fault toward `lose` (rather than
 * `delay` or `hold`), no filters, `nth` 1, shorter delays and no trigger. A checkpoint counted back
 * from the run's last (a placeholder, fromLastCheckpoint.ts) shrinks toward the last.
 */
import fc from 'fast-check';
import { CHECKPOINT_RPC_METHODS, rpcTaskSide, type RpcKind } from '../../engine/index.ts';
import type {
  ChannelEventFault, Fault, FaultTrigger, MessageFault, ProtocolPoint,
} from '../../sim/run/RunSpec.ts';
import { CHANNEL_EVENT_TARGETS, PAIR_TARGET } from './fitChannelEvent.ts';
import { checkpointArbitrary, MAX_BACK } from './fromLastCheckpoint.ts';

/** The fault families a swarm switches on or off. */
export const FAULT_FAMILIES = [
  'crash', 'global-failure', 'pause', 'partition', 'rpc-loss', 'rpc-delay', 'store-failure',
  'store-unknown-outcome', 'slow-store', 'async-snapshot-failure', 'slow-task', 'message', 'channel-event',
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

/**
 * When a fault (or an action) fires: at a time before the heal time, or at a protocol point. A
 * task or jobmaster point's checkpoint is drawn from the start (1..12) two times in three, else
 * as a placeholder counted back from the run's last checkpoint (fromLastCheckpoint.ts), which
 * runSpecArbitrary resolves.
 */
export function triggerArbitrary(o: FaultArbitraryOptions): fc.Arbitrary<FaultTrigger> {
  const checkpoint = checkpointArbitrary(12, { fromStart: 2, fromLast: 1 });
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
 * A message fault: one in four aimed at the messages of the run's last checkpoints
 * (lastCheckpointMessageArbitrary); the others a protocol method four times in five, the
 * checkpoint filter only for a method about a checkpoint, a task filter only on the side the
 * method names one (tasks are the placeholders fitToJob aims at the job's), optional trigger.
 * Each part shrinks toward the simplest: `lose`, no filter, nth 1, a delay or hold of 1 ms, no
 * trigger.
 */
function messageFaultArbitrary(o: FaultArbitraryOptions, when: fc.Arbitrary<FaultTrigger>): fc.Arbitrary<MessageFault> {
  // One in four aims at the protocol messages of the run's last checkpoints; shrinking may move
  // such a fault to the general draw.
  return fc.oneof({ withCrossShrink: true },
    { weight: 3, arbitrary: anyMessageFaultArbitrary(o, when) },
    { weight: 1, arbitrary: lastCheckpointMessageArbitrary(o) });
}

/**
 * A message fault on the messages of one of the run's last checkpoints (a placeholder counted
 * back from the last, fromLastCheckpoint.ts): its completion notification two times in three
 * (what finishing tasks wait for, and what a two-phase-commit sink commits on), else its trigger
 * or an acknowledgement; lose, delay or hold; to (or from) one task half the time; the first
 * matching message, armed from the start.
 */
function lastCheckpointMessageArbitrary(o: FaultArbitraryOptions): fc.Arbitrary<MessageFault> {
  return fc.record({
    method: fc.oneof({ weight: 2, arbitrary: fc.constant('confirmCheckpoint') },
      { weight: 1, arbitrary: fc.constantFrom('triggerCheckpoint', 'acknowledgeCheckpoint') }),
    action: fc.constantFrom('lose' as const, 'delay' as const, 'hold' as const),
    checkpoint: fc.integer({ min: -MAX_BACK, max: 0 }),
    task: fc.option(fc.constantFrom(...o.tasks), { nil: undefined, freq: 2 }),
    ms: fc.integer({ min: 1, max: 100 }),
    holdToHeal: fc.boolean(),
  }).map((r): MessageFault => {
    const side = rpcTaskSide(r.method);
    return {
      type: 'message', action: r.action, method: r.method, checkpoint: r.checkpoint,
      ...(side === undefined || r.task === undefined ? {} : { [side]: r.task }),
      ...(r.action === 'delay' ? { delayMs: r.ms } : {}),
      ...(r.action === 'hold' && !r.holdToHeal ? { durationMs: r.ms } : {}),
    };
  });
}

function anyMessageFaultArbitrary(o: FaultArbitraryOptions, when: fc.Arbitrary<FaultTrigger>): fc.Arbitrary<MessageFault> {
  return fc.record({
    method: fc.oneof({ withCrossShrink: true }, { arbitrary: fc.constantFrom(...PROTOCOL_METHODS), weight: 4 },
      { arbitrary: fc.constantFrom(...OTHER_METHODS), weight: 1 }),
    action: fc.constantFrom('lose' as const, 'delay' as const, 'hold' as const),
    // Each filter is on half the time (nil one time in `freq`; fast-check's default is on four times in five,
    // and a fault with every filter on rarely meets its message).
    // From the start (1..8) two times in three, else counted back from the run's last checkpoint
    // (a placeholder runSpecArbitrary resolves: fromLastCheckpoint.ts).
    checkpoint: fc.option(checkpointArbitrary(8, { fromStart: 2, fromLast: 1 }), { nil: undefined, freq: 2 }),
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

/**
 * A channel-event fault: a barrier (two times in three) or a cancellation marker, the checkpoint
 * filter half the time (an early one), the receiving task and (half the time) the sending one as
 * placeholders `v<a>#<b>` that fitChannelEvent aims at the job's channels (`to` ranges over
 * CHANNEL_EVENT_TARGETS placeholder vertices), optional trigger. A marker's hold is short
 * (1..50 ms): where markers of several checkpoints reach a task on several channels, one late
 * channel makes them cross. A barrier's hold is short one time in three (one channel late
 * against its siblings within a checkpoint), else long: two to four checkpoint timeouts and an
 * interval (a placeholder fitChannelEvent resolves), so the checkpoints behind the barrier expire
 * and the task, told of each abort before its barrier comes, sends cancellation markers
 * downstream in their place (with the default timeout a long hold lasts to the heal time).
 * Shrinks toward a barrier, no filter, nth 1, 1 ms, no trigger.
 */
function channelEventFaultArbitrary(o: FaultArbitraryOptions, when: fc.Arbitrary<FaultTrigger>): fc.Arbitrary<ChannelEventFault> {
  const subtasks = Math.max(1, ...o.tasks.map((t) => Number(/#(\d+)$/.exec(t)?.[1] ?? 0) + 1));
  const targets = Array.from({ length: CHANNEL_EVENT_TARGETS * subtasks },
    (_x, i) => `v${Math.floor(i / subtasks)}#${i % subtasks}`);
  const short = fc.integer({ min: 1, max: 50 });
  return fc.record({
    // Markers flow only where a checkpoint was aborted before its barrier came: barriers twice as often.
    event: fc.oneof({ withCrossShrink: true }, { weight: 2, arbitrary: fc.constant('barrier' as const) },
      { weight: 1, arbitrary: fc.constant('cancellation' as const) }),
    // An early checkpoint: a long hold must end by the heal time (600 ms, 3 to 12 intervals).
    checkpoint: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined, freq: 2 }),
    to: fc.constantFrom(...targets),
    from: fc.option(fc.constantFrom(...o.tasks), { nil: undefined, freq: 2 }),
    nth: fc.integer({ min: 0, max: 5 }).map((i) => Math.max(1, i - 1)),
    shortMs: short,
    // A long hold: the placeholder -k for k checkpoint timeouts and one interval (k = 2..4).
    barrierMs: fc.oneof({ withCrossShrink: true }, { weight: 1, arbitrary: short },
      { weight: 2, arbitrary: fc.integer({ min: -4, max: -2 }) }),
    when: fc.option(when, { nil: undefined, freq: 2 }),
  }).map((r): ChannelEventFault => ({
    type: 'channel-event', event: r.event, to: r.to, delayMs: r.event === 'barrier' ? r.barrierMs : r.shortMs,
    ...(r.checkpoint === undefined ? {} : { checkpoint: r.checkpoint }),
    ...(r.from === undefined ? {} : { from: r.from }),
    // One checkpoint's event of one channel comes once: only the 1st can match.
    ...(r.nth === 1 || (r.checkpoint !== undefined && r.from !== undefined) ? {} : { nth: r.nth }),
    ...(r.when === undefined ? {} : { when: r.when }),
  }));
}

/**
 * A marker race, the schedule of FLINK-5285 (mutants.md 31): cancellation markers of two
 * checkpoints that reach one task on two channels in crossed order. Markers flow where a task
 * was told of a checkpoint's abort before its barrier came; a barrier held past the timeout
 * makes the checkpoints behind it expire (at least three: a task remembers only the latest
 * aborted ids, maxConcurrent of them, and the ones more than that below it), and its task sends
 * markers in their place when the hold ends. A race holds one subtask's barrier and a marker
 * where the markers meet (heldAndCrossedArbitrary), or, two times in three, two subtasks'
 * barriers, released a timeout apart (pairRaceArbitrary).
 */
function markerRaceArbitrary(o: FaultArbitraryOptions): fc.Arbitrary<ChannelEventFault[]> {
  const subtasks = Math.max(1, ...o.tasks.map((t) => Number(/#(\d+)$/.exec(t)?.[1] ?? 0) + 1));
  // Pair races two times in three: they need a shape most generated jobs have (a vertex with inputs at
  // parallelism two or more, an all-to-all edge out), and caught FLINK-5285 in a quarter of the runs
  // that drew one, against a tenth for the other race.
  return fc.oneof({ withCrossShrink: true }, { weight: 1, arbitrary: heldAndCrossedArbitrary(subtasks) },
    { weight: 2, arbitrary: pairRaceArbitrary(subtasks) });
}

/**
 * A barrier of checkpoint 1 or 2 held on a channel of the first vertex with inputs whose markers
 * can meet further down, for three or four checkpoint timeouts and an interval, and a marker
 * held 5..50 ms on a channel of the last vertex whose subtasks read two or more channels, where
 * the markers of consecutive checkpoints meet on several channels, so that they cross.
 * (Placeholders: fitChannelEvent aims `v0#<b>` at those vertices and resolves the hold.)
 */
function heldAndCrossedArbitrary(subtasks: number): fc.Arbitrary<ChannelEventFault[]> {
  return fc.record({
    checkpoint: fc.integer({ min: 1, max: 2 }),
    timeouts: fc.integer({ min: 3, max: 4 }),
    held: fc.nat({ max: subtasks - 1 }),
    crossed: fc.nat({ max: subtasks - 1 }),
    markerMs: fc.integer({ min: 5, max: 50 }),
  }).map((r): ChannelEventFault[] => [
    { type: 'channel-event', event: 'barrier', checkpoint: r.checkpoint, to: `v0#${r.held}`, delayMs: -r.timeouts },
    { type: 'channel-event', event: 'cancellation', to: `v0#${r.crossed}`, delayMs: r.markerMs },
  ]);
}

/**
 * A pair race: a barrier of checkpoint 1 or 2 held on a channel into two subtasks of one vertex
 * whose markers meet right below (fitChannelEvent's PAIR_TARGET), for k and k + 1 checkpoint
 * timeouts and an interval (k = 3 or 4). Each subtask, told of the aborts before its barriers
 * come, sends cancellation markers in their place when its hold ends, the second a timeout
 * after the first: a task below reads the markers of two checkpoints on the first subtask's
 * channel before the older one's on the other's. One slow upstream subtask whose channels to
 * both subtasks are slow does this in Flink.
 */
function pairRaceArbitrary(subtasks: number): fc.Arbitrary<ChannelEventFault[]> {
  return fc.record({
    checkpoint: fc.integer({ min: 1, max: 2 }),
    timeouts: fc.integer({ min: 3, max: 4 }),
    held: fc.nat({ max: subtasks - 1 }),
  }).map((r): ChannelEventFault[] => [0, 1].map((i) => ({
    type: 'channel-event', event: 'barrier', checkpoint: r.checkpoint,
    to: `v${PAIR_TARGET}#${r.held + i}`, delayMs: -(r.timeouts + i),
  })));
}

/**
 * The faults of a family that is on: one to three of {@link faultOfFamily}; for channel-event
 * faults, one time in two a marker race instead; for crash-at-completion, one to three crashes,
 * each with its slowed store (faultsOfFamily), a checkpoint slowed once.
 */
function familyFaultsArbitrary(family: FaultFamily, o: FaultArbitraryOptions): fc.Arbitrary<Fault[]> {
  if (family === 'crash-at-completion') {
    return fc.array(faultsOfFamily(family, o), { minLength: 1, maxLength: 3 }).map((fs) => withoutRepeatedSlowStores(fs.flat()));
  }
  const some = fc.array(faultOfFamily(family, o), { minLength: 1, maxLength: 3 });
  if (family !== 'channel-event') return some;
  return fc.oneof({ withCrossShrink: true }, { weight: 1, arbitrary: some }, { weight: 1, arbitrary: markerRaceArbitrary(o) });
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
    case 'channel-event':
      return channelEventFaultArbitrary(o, when);
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
export function faultsOfFamily(family: FaultFamily, o: FaultArbitraryOptions): fc.Arbitrary<Fault[]> {
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
 * A swarm fault plan: each family is off or on with one to three faults (a channel-event family
 * sometimes with a marker race instead: familyFaultsArbitrary) (families on are pushed
 * hard instead of every family a little), at most `maxFaults` in all (capFaultsPerFamily). Built
 * per family without `chain` (which shrinks poorly), so it shrinks toward families off and fewer
 * faults.
 */
export function faultPlanArbitrary(o: FaultArbitraryOptions): fc.Arbitrary<Fault[]> {
  const max = o.maxFaults ?? 6;
  // A family is on in one run out of five; `on` shrinks toward 0, i.e. toward the family off.
  const perFamily = Object.fromEntries(FAULT_FAMILIES.map((f) => [
    f, fc.record({ on: fc.integer({ min: 0, max: 4 }), faults: familyFaultsArbitrary(f, o) })
      .map((r) => (r.on === 4 ? r.faults : null)),
  ])) as Record<FaultFamily, fc.Arbitrary<Fault[] | null>>;
  return fc.record(perFamily).map((byFamily) => capFaultsPerFamily(FAULT_FAMILIES.map((f) => byFamily[f] ?? []), max));
}

/**
 * The faults of `families` (one list per family, in FAULT_FAMILIES order), at most `max` in all,
 * in family order: each family keeps its first fault before any keeps its second, and so on.
 * (Cutting the concatenation instead dropped the families late in the list, the message and
 * channel-event faults, from about half the runs that switched them on.)
 */
export function capFaultsPerFamily(families: readonly (readonly Fault[])[], max: number): Fault[] {
  const kept = families.map(() => 0);
  let total = 0;
  for (let round = 0; total < max; round++) {
    let any = false;
    families.forEach((faults, i) => {
      if (total < max && round < faults.length) {
        kept[i] = round + 1;
        total++;
        any = true;
      }
    });
    if (!any) break;
  }
  return families.flatMap((faults, i) => faults.slice(0, kept[i]));
}

/**
 * The swarm plan of {@link LATE_FAULT_FAMILIES}, drawn apart (see there) and per family as
 * faultPlanArbitrary's; not capped by `maxFaults`, which the main plan fills first.
 */
export function lateFaultPlanArbitrary(o: FaultArbitraryOptions): fc.Arbitrary<Fault[]> {
  const perFamily = Object.fromEntries(LATE_FAULT_FAMILIES.map((f) => [
    f, fc.record({ on: fc.integer({ min: 0, max: 4 }), faults: familyFaultsArbitrary(f, o) })
      .map((r) => (r.on === 4 ? r.faults : null)),
  ])) as Record<string, fc.Arbitrary<Fault[] | null>>;
  return fc.record(perFamily).map((byFamily) => LATE_FAULT_FAMILIES.flatMap((f) => byFamily[f] ?? []));
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
