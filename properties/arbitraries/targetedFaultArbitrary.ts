/**
 * The targeted strategy's fault plan (ExploreStrategy.ts): one fault, sometimes two or three,
 * each exactly at a protocol point of a chosen checkpoint: a named step of it (a task's phase or
 * the coordinator's), or an RPC of its protocol, or its own state files. Bugs that need one
 * fault in a narrow window (the notification of the last checkpoint before the tasks finish
 * lost, a crash right after a sink acknowledged) are a handful of runs away here, where a swarm
 * of faults at random times rarely lands in the window.
 *
 * Checkpoints are weighted toward both ends of the run: the first few (nothing restored yet,
 * the first completion) and the last few (the ones finishing tasks wait for: FLIP-147's final
 * checkpoint and its notification). The last is estimated from the run's pacing before it runs
 * (sourcePacing.ts's expectedLastCheckpoint), so a draw is an end and an offset, resolved to an
 * id by {@link targetedFaults}.
 *
 * {@link TARGETABLE_FAULTS} is the registry: one line per kind, from a {@link Target} to a
 * fault. A new fault family plugs in with a line (its entry's `fault`). Tasks, TaskManagers and
 * operators are the placeholders runSpecArbitrary aims at the job (`v<i>#<j>`, `taskmanager-<i>`,
 * `op<k>`). Shrinks toward one fault, the registry's first kind, the first checkpoint, shorter.
 */
import fc from 'fast-check';
import { CHECKPOINT_RPC_METHODS, rpcTaskSide } from '../../engine/index.ts';
import type { Fault, ProtocolPoint } from '../../sim/run/RunSpec.ts';
import { JOB_MASTER_PHASES, TASK_PHASES } from '../../sim/run/validateFaults.ts';
import type { FaultArbitraryOptions } from './faultArbitrary.ts';

/** What a targeted fault is aimed at: one checkpoint and a step of it. */
export interface Target {
  /** The checkpoint id. */
  readonly checkpoint: number;
  /** A task placeholder `v<i>#<j>`. */
  readonly task: string;
  /** That task reaching a phase of the checkpoint. */
  readonly taskPoint: ProtocolPoint;
  /** A step of the checkpoint: the task's point or the coordinator's (drawn half and half). */
  readonly point: ProtocolPoint;
  /** A checkpoint RPC method (trigger, ack, decline, confirm, abort). */
  readonly method: string;
  /** A TaskManager placeholder. */
  readonly taskManager: string;
  /** An operator placeholder `op<k>`. */
  readonly operator: string;
  /** A duration, ms (1..300). */
  readonly ms: number;
}

/** One kind of targeted fault: its name and how a target makes it. */
export interface TargetableFault {
  readonly kind: string;
  /** The fault, or faults that only make the schedule together (a crash and the slowed store it needs). */
  readonly fault: (t: Target) => Fault | Fault[];
}

/** A message fault on the checkpoint's `t.method` RPC of `t.task` (the side the method names). */
function protocolMessage(t: Target, action: 'lose' | 'hold' | 'delay'): Fault {
  const side = rpcTaskSide(t.method);
  return {
    type: 'message', action, method: t.method, checkpoint: t.checkpoint,
    ...(side === undefined ? {} : { [side]: t.task }),
    ...(action === 'delay' ? { delayMs: t.ms } : {}),
  };
}

/** The registry of targetable fault kinds: one line each. */
export const TARGETABLE_FAULTS: readonly TargetableFault[] = [
  { kind: 'crash-task-host', fault: (t) => ({ type: 'crash', host: t.task, when: { at: t.taskPoint }, downMs: t.ms }) },
  { kind: 'global-failure', fault: (t) => ({ type: 'global-failure', when: { at: t.point } }) },
  { kind: 'lose-protocol-rpc', fault: (t) => protocolMessage(t, 'lose') },
  { kind: 'hold-protocol-rpc', fault: (t) => protocolMessage(t, 'hold') },
  { kind: 'delay-protocol-rpc', fault: (t) => protocolMessage(t, 'delay') },
  { kind: 'async-snapshot-failure', fault: (t) => ({ type: 'async-snapshot-failure', probability: 1, checkpoint: t.checkpoint }) },
  { kind: 'pause-task-host', fault: (t) => ({ type: 'pause', host: t.task, when: { at: t.taskPoint }, durationMs: t.ms }) },
  { kind: 'slow-task', fault: (t) => ({ type: 'slow-task', operator: t.operator, factor: 100, when: { at: t.point }, durationMs: t.ms }) },
  { kind: 'slow-checkpoint-store', fault: (t) => ({ type: 'slow-store', factor: 100, checkpoint: t.checkpoint }) },
  { kind: 'partition-from-jobmanager', fault: (t) => ({ type: 'partition', a: t.taskManager, b: 'jobmanager', when: { at: t.point }, durationMs: t.ms }) },
  // A coordinator stall's durationMs is in thousandths of the run's checkpoint timeout
  // (STALL_DURATION_PER_TIMEOUT, scaled by withStallsScaled): up to 0.3 timeouts, or 1 to 4.
  { kind: 'stall-coordinator', fault: (t) => ({ type: 'coordinator-stall', when: { at: coordinatorTrigger(t) }, durationMs: t.ms }) },
  { kind: 'stall-coordinator-past-timeout', fault: (t) => ({ type: 'coordinator-stall', when: { at: coordinatorTrigger(t) }, durationMs: 1000 + t.ms * 10 }) },
  // A barrier held on one input channel of the task (fitChannelEvent aims `to` at a channel the
  // job has): briefly, or past two to five checkpoint timeouts (a placeholder -k, resolved there).
  { kind: 'hold-barrier', fault: (t) => ({ type: 'channel-event', event: 'barrier', checkpoint: t.checkpoint, to: t.task, delayMs: t.ms }) },
  { kind: 'hold-barrier-past-timeout', fault: (t) => ({ type: 'channel-event', event: 'barrier', checkpoint: t.checkpoint, to: t.task, delayMs: -(2 + (t.ms % 4)) }) },
  // faultArbitrary's crash-at-completion: a crash as the checkpoint's _metadata write begins, its store ten times slower.
  { kind: 'crash-at-completion', fault: (t) => [
    { type: 'crash', host: t.taskManager, downMs: t.ms, when: { at: { kind: 'jobmaster', checkpoint: t.checkpoint, phase: 'acknowledged' } } },
    { type: 'slow-store', factor: 10, checkpoint: t.checkpoint },
  ] },
];

/** The coordinator's trigger of the target's checkpoint, or its coordinators' snapshot. */
function coordinatorTrigger(t: Target): ProtocolPoint {
  const phase = t.ms % 2 === 0 ? 'triggered' : 'coordinators-snapshotted';
  return { kind: 'jobmaster', checkpoint: t.checkpoint, phase };
}

/** Which end of the run a targeted checkpoint is counted from. */
export type RunEnd = 'first' | 'last';

/** One drawn targeted fault, before its checkpoint is known. */
export interface TargetDraw {
  /** Index in {@link TARGETABLE_FAULTS}. */
  readonly kind: number;
  readonly end: RunEnd;
  /**
   * 0..3. From the first: checkpoint 1 + offset. From the last: the expected last checkpoint
   * + 1 - offset: from one past the estimate (which falls short when restores or slow operators
   * lengthen the run) down to two before it.
   */
  readonly offset: number;
  readonly taskPhase: (typeof TASK_PHASES)[number];
  readonly jobmasterPhase: (typeof JOB_MASTER_PHASES)[number];
  readonly atJobmaster: boolean;
  readonly task: string;
  readonly method: string;
  readonly taskManager: string;
  readonly operator: string;
  readonly ms: number;
}

/** The checkpoint RPCs every checkpoint sends (trigger, ack, confirm), and those a failure sends. */
const ON_FAILURE: readonly string[] = ['declineCheckpoint', 'abortCheckpoint'];
const ALWAYS_SENT: readonly string[] = CHECKPOINT_RPC_METHODS.filter((m) => !ON_FAILURE.includes(m));

/** One draw (see the file comment for what it shrinks toward). */
function targetDrawArbitrary(o: FaultArbitraryOptions): fc.Arbitrary<TargetDraw> {
  return fc.record({
    kind: fc.integer({ min: 0, max: TARGETABLE_FAULTS.length - 1 }),
    end: fc.constantFrom<RunEnd>('first', 'last'),
    offset: fc.integer({ min: 0, max: 3 }),
    taskPhase: fc.constantFrom(...TASK_PHASES),
    jobmasterPhase: fc.constantFrom(...JOB_MASTER_PHASES),
    atJobmaster: fc.boolean(),
    task: fc.constantFrom(...o.tasks),
    // Declines and aborts are sent only when something failed: with one fault they seldom are.
    method: fc.oneof(
      { arbitrary: fc.constantFrom(...ALWAYS_SENT), weight: 4 }, { arbitrary: fc.constantFrom(...ON_FAILURE), weight: 1 },
    ),
    taskManager: fc.integer({ min: 1, max: o.taskManagers }).map((i) => `taskmanager-${i}`),
    operator: fc.constantFrom(...o.operators),
    ms: fc.integer({ min: 1, max: 300 }),
  });
}

/**
 * The targeted draws of one run: one, or in one run out of four two or three (`more` shrinks
 * toward 0, one fault). The first is drawn as an option that is almost never empty when
 * generated (1 in 1000) but shrinks to empty first, so a counterexample that needs no fault
 * shrinks to none, as the other strategies' do.
 */
export function targetedPlanArbitrary(o: FaultArbitraryOptions): fc.Arbitrary<TargetDraw[]> {
  const draw = targetDrawArbitrary(o);
  return fc.record({
    first: fc.option(draw, { nil: undefined, freq: 1000 }), more: fc.integer({ min: 0, max: 3 }),
    extra: fc.array(draw, { minLength: 1, maxLength: 2 }),
  }).map(({ first, more, extra }) => [...(first === undefined ? [] : [first]), ...(more === 3 ? extra : [])]);
}

/** The checkpoint id a draw aims at, for a run expected to complete `lastCheckpoint` (>= 1). */
export function targetCheckpoint(d: Pick<TargetDraw, 'end' | 'offset'>, lastCheckpoint: number): number {
  return d.end === 'first' ? 1 + d.offset : Math.max(1, lastCheckpoint + 1 - d.offset);
}

/** The faults of `draws` for a run expected to complete `lastCheckpoint` checkpoints. */
export function targetedFaults(draws: readonly TargetDraw[], lastCheckpoint: number): Fault[] {
  return draws.flatMap((d) => {
    const checkpoint = targetCheckpoint(d, lastCheckpoint);
    // Only a source is `triggered` (by the RPC; the others by barriers): the job graph's first
    // vertex, v0, is one in every job (sources come first in its order).
    const task = d.taskPhase === 'triggered' ? d.task.replace(/^v\d+#/, 'v0#') : d.task;
    const taskPoint: ProtocolPoint = { kind: 'task', checkpoint, phase: d.taskPhase, task };
    const point: ProtocolPoint = d.atJobmaster
      ? { kind: 'jobmaster', checkpoint, phase: d.jobmasterPhase } : taskPoint;
    const entry = TARGETABLE_FAULTS[d.kind] as TargetableFault;
    return entry.fault({
      checkpoint, task, taskPoint, point, method: d.method, taskManager: d.taskManager,
      operator: d.operator, ms: d.ms,
    });
  });
}
