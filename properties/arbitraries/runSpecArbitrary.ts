/**
 * fast-check arbitrary of whole RunSpecs (DESIGN.md "A run is data"), built to shrink well:
 * fewer faults, fewer records, lower parallelism, fewer overrides, simpler configurations; the
 * seed is wrapped so it never shrinks. Generated runs use a restart strategy with unlimited
 * attempts and crashed hosts come back at the heal time (simulate does that), so liveness can be
 * judged after healing.
 */
import fc from 'fast-check';
import { basename, isAbsolute, relative, sep } from 'node:path';
import { FLIGHTS_FILE_SIZE } from '../../sim/workloads/flights.ts';
import { GENERATED_JOB_LIMITS } from '../../sim/workloads/generatedJob.ts';
import {
  RUN_SPEC_VERSION, type Action, type ChannelEventFault, type Fault, type FaultTrigger, type JobSpec, type RunMode,
  type RunSpec,
} from '../../sim/run/RunSpec.ts';
import { createJobGraph } from '../../engine/index.ts';
import { DEFAULT_CHECKPOINT, expandRunSpec } from '../../sim/run/expandRunSpec.ts';
import {
  faultHostTask, faultTask, faultTaskPhase, INPUT_PHASES, messageFaultTasks, withFaultTask,
} from '../../sim/run/faultTasks.ts';
import { runGraph } from '../../sim/run/simulate.ts';
import { buildJobGraph } from '../../sim/run/RunJob.ts';
import { loadedJobModule } from '../../sim/jobs/jobModuleRegistry.ts';
import { inputSizeRange } from '../../sim/jobs/resolveJob.ts';
import { expectedLastCheckpoint, lastCheckpointEstimate, TARGET_SPAN_MS, withSourcePacing } from './sourcePacing.ts';
import { rescaleActions, rescaleArbitrary, type DrawnRescale } from './rescaleArbitrary.ts';
import { actionPlanArbitrary, type ActionPlan } from './actionArbitrary.ts';
import { faultPlanArbitrary, lateFaultPlanArbitrary, STALL_DURATION_PER_TIMEOUT } from './faultArbitrary.ts';
import type { RunStrategy } from './ExploreStrategy.ts';
import { pctScheduleArbitrary } from './pctScheduleArbitrary.ts';
import {
  forwardRegionsJob, RESTART_WINDOW_HEAL_SPANS, RESTART_WINDOW_REGIONS, restartWindowArbitrary, restartWindowPlan, type RestartWindow,
} from './restartWindowArbitrary.ts';
import { targetedFaults, targetedPlanArbitrary, type TargetDraw } from './targetedFaultArbitrary.ts';
import { uniformFaultPlanArbitrary } from './uniformFaultPlanArbitrary.ts';
import { fitChannelEvent } from './fitChannelEvent.ts';
import { resolveFromLast } from './fromLastCheckpoint.ts';
import { generatedJobArbitrary } from './generatedJobArbitrary.ts';

/**
 * The job explore draws runs of: a built-in job by name, or a job module (a loaded one:
 * properties/jobModules/loadJobModule.ts) by absolute path and export.
 */
export type ExploreJob = BuiltInJob | ModuleJobRef;

/** The built-in jobs. */
export type BuiltInJob = 'flights' | 'wordcount' | 'generated';

/** A job module explore runs: `path` absolute, `export` as the user named it (absent: the default). */
export interface ModuleJobRef {
  readonly kind: 'module';
  readonly path: string;
  readonly export?: string;
}

export interface RunSpecArbitraryOptions {
  readonly job: ExploreJob;
  readonly mode: RunMode;
  /** Largest input (flights records, generated records). Default 2000. */
  readonly maxRecords?: number;
  /** Largest parallelism. Default 4. */
  readonly maxParallelism?: number;
  /** Planted bugs to switch on in every run. */
  readonly mutations?: readonly string[];
  /** Largest number of faults. Default 6. */
  readonly maxFaults?: number;
  /**
   * Whether runs may ask for savepoints (default true). Off, the draw still happens (every other
   * field stays as it is) but no run gets one: for searches aimed without them.
   */
  readonly savepoints?: boolean;
  /**
   * Whether histories may rescale (default true; never with checkpointing off): as for
   * `savepoints`, off keeps the draw and drops the actions.
   */
  readonly rescales?: boolean;
  /**
   * How the run's faults and schedule are drawn (ExploreStrategy.ts); default `swarm`, which
   * draws exactly what this arbitrary drew before strategies existed.
   */
  readonly strategy?: RunStrategy;
}

function jobArbitrary(o: RunSpecArbitraryOptions): fc.Arbitrary<JobSpec> {
  const maxRecords = o.maxRecords ?? 2000;
  if (typeof o.job !== 'string') return moduleJobArbitrary(o.job, maxRecords);
  switch (o.job) {
    case 'flights':
      return fc.record({
        length: fc.integer({ min: Math.min(50, maxRecords), max: maxRecords }),
        from: fc.integer({ min: 0, max: FLIGHTS_FILE_SIZE - maxRecords }),
      }).map(({ length, from }) => ({ kind: 'flights' as const, selection: { from, to: from + length } }));
    case 'wordcount':
      return fc.constant({ kind: 'wordcount' as const });
    case 'generated':
      return generatedJobArbitrary({ maxRecords, maxParallelism: Math.min(2, o.maxParallelism ?? 4) })
        .map((spec) => ({ kind: 'generated' as const, spec }));
  }
}

/**
 * A job module's input size, from 1 (or its generator's minSize) up to its largest size capped
 * at `maxRecords`; shrinks toward the smallest.
 */
function moduleJobArbitrary(job: ModuleJobRef, maxRecords: number): fc.Arbitrary<JobSpec> {
  const module = loadedJobModule(job.path, job.export);
  const range = inputSizeRange(module.definition, module.label);
  const max = Math.max(range.min, Math.min(range.max, maxRecords));
  const min = Math.min(max, Math.max(1, range.min));
  const base = { kind: 'module' as const, path: job.path, ...(job.export === undefined ? {} : { export: job.export }) };
  return fc.integer({ min, max }).map((size) => ({ ...base, size }));
}

/**
 * The run's parallelism for `job`: a generated job caps it at the generated-job limit and at its
 * own max parallelism (a drawn parallelism above either is not a job Flink would run).
 */
function parallelismFor(job: JobSpec, drawn: number): number {
  if (job.kind === 'module') return Math.min(drawn, configuredMaxParallelism(job));
  if (job.kind !== 'generated') return drawn;
  return Math.min(drawn, GENERATED_JOB_LIMITS.maxParallelism, job.spec.maxParallelism);
}

/**
 * The lowest max parallelism a job module's operators configure (a parallelism above it is no
 * job Flink would run), or Infinity when none does.
 */
function configuredMaxParallelism(job: JobSpec): number {
  const nodes = buildJobGraph(job, { parallelism: {} }).nodes.filter((n) => n.maxParallelismConfigured);
  return Math.min(Infinity, ...nodes.map((n) => n.maxParallelism));
}

/** Re-aims faults generated for the largest cluster at the one this run has (modulo). */
function fitFaults(faults: readonly Fault[], taskManagers: number, parallelism: number): Fault[] {
  const tm = (h: string): string => {
    const m = /^taskmanager-(\d+)$/.exec(h);
    return m === null ? h : `taskmanager-${((Number(m[1]) - 1) % taskManagers) + 1}`;
  };
  const task = (t: string): string => {
    const m = /^(v\d+)#(\d+)$/.exec(t);
    return m === null ? t : `${m[1]}#${Number(m[2]) % parallelism}`;
  };
  const when = (w: FaultTrigger): FaultTrigger =>
    'at' in w && w.at.kind === 'task' && w.at.task !== undefined ? { at: { ...w.at, task: task(w.at.task) } } : w;
  return faults.flatMap((f): Fault[] => {
    switch (f.type) {
      case 'crash':
      case 'pause':
        return [{ ...f, host: tm(f.host), when: when(f.when) }];
      case 'partition': {
        const a = tm(f.a);
        const b = tm(f.b);
        return a === b ? [] : [{ ...f, a, b, when: when(f.when) }];
      }
      case 'global-failure':
      case 'slow-task':
      case 'coordinator-stall':
        return [{ ...f, when: when(f.when) }];
      case 'channel-event':
        // Its channel is aimed at the job's in fitToJob (fitChannelEvent).
        return [f.when === undefined ? f : { ...f, when: when(f.when) }];
      case 'message':
        return [{
          ...f,
          ...(f.from === undefined ? {} : { from: task(tm(f.from)) }),
          ...(f.to === undefined ? {} : { to: task(tm(f.to)) }),
          ...(f.when === undefined ? {} : { when: when(f.when) }),
        }];
      default:
        return [f];
    }
  });
}

/** Re-aims actions' task points like faults' (fitFaults), through a stand-in fault. */
function fitActions(actions: readonly Action[], taskManagers: number, parallelism: number): Action[] {
  return actions.map((a) => {
    const [fitted] = fitFaults([{ type: 'global-failure', when: a.when }], taskManagers, parallelism);
    return { ...a, when: (fitted as Extract<Fault, { type: 'global-failure' }>).when };
  });
}

/** Placeholders of the operators slow-task faults are drawn against (see {@link fitToJob}). */
const OPERATOR_PLACEHOLDERS = ['op0', 'op1', 'op2', 'op3', 'op4', 'op5'];

/**
 * Points faults at tasks and operators the spec's job really has. Faults are drawn before the
 * job is known: task protocol points and message faults' `from` / `to` against `v<i>#<j>`
 * names, slow tasks against `op<k>`, coordinator stalls against `src<k>`, channel-event faults'
 * `to` / `from` against placeholders that fitChannelEvent aims at the job's channels (dropping
 * the fault in a job without any); the heal time moves past the end of a long channel hold
 * (longHoldEndMs). The
 * JobGraph decides which vertices exist (chaining) and their parallelism, so a drawn `v<i>#<j>`
 * becomes vertex `i mod V`, subtask `j mod p` of that vertex; `op<k>` becomes the uid of the
 * job's operator `k mod N` (in StreamGraph order), `src<k>` the uid of its source `k mod S`. (A point
 * for a task or an operator that does not exist is refused as bad input.)
 */
function fitToJob(spec: RunSpec): RunSpec {
  const actions = spec.actions ?? [];
  const hasTask = spec.faults.some((f) => faultTask(f) !== undefined || messageFaultTasks(f).length > 0
    || faultHostTask(f) !== undefined || f.type === 'channel-event') || actions.some((a) => faultTask(a) !== undefined);
  const hasOperator = spec.faults.some((f) => f.type === 'slow-task' || (f.type === 'coordinator-stall' && f.operator !== undefined));
  if (!hasTask && !hasOperator) return spec;
  // The graph does not depend on the faults, and the drawn ones are not valid yet.
  const graph = runGraph(expandRunSpec({ ...spec, faults: [] }));
  const jobGraph = hasTask ? createJobGraph(graph) : undefined;
  const vertices = jobGraph?.vertices ?? [];
  // Barrier phases happen only on tasks with inputs: such a point aims at those vertices.
  const withInputs = vertices.filter((v) => !v.isSource);
  const fitTask = (t: string, phase: string | undefined): string => {
    const m = /^v(\d+)#(\d+)$/.exec(t);
    const among = INPUT_PHASES.has(phase ?? '') && withInputs.length > 0 ? withInputs : vertices;
    const v = m === null ? undefined : among[Number(m[1]) % among.length];
    return m === null || v === undefined ? t : `${v.id}#${Number(m[2]) % v.parallelism}`;
  };
  const sources = vertices.filter((v) => v.isSource);
  const fitSourceTask = (t: string): string => {
    const m = /^v(\d+)#(\d+)$/.exec(t);
    const v = m === null ? undefined : sources[Number(m[1]) % sources.length];
    return m === null || v === undefined ? t : `${v.id}#${Number(m[2]) % v.parallelism}`;
  };
  const fitOperator = (uid: string): string => {
    const m = /^op(\d+)$/.exec(uid);
    return m === null ? uid : graph.nodes[Number(m[1]) % graph.nodes.length]?.uid ?? uid;
  };
  const sourceUids = graph.nodes.filter((n) => n.spec.kind === 'source').map((n) => n.uid);
  const fitSource = (uid: string): string => {
    const m = /^src(\d+)$/.exec(uid);
    return m === null ? uid : sourceUids[Number(m[1]) % sourceUids.length] ?? uid;
  };
  const holdEndsMs: number[] = [];
  const faults = spec.faults.flatMap((f): Fault[] => {
    const task = faultTask(f);
    const pointed = task === undefined ? f : withBarrierPhaseIfPossible(
      withFaultTask(f, fitTask(task, faultTaskPhase(f))), withInputs.length > 0);
    // A host named by a task is aimed as the point's task is (the same placeholder, the same task).
    const hostTask = faultHostTask(pointed);
    const fitted = hostTask === undefined ? pointed : { ...pointed, host: fitTask(hostTask, faultTaskPhase(f)) } as Fault;
    if (fitted.type === 'channel-event') {
      const aimed = jobGraph === undefined ? undefined : fitChannelEvent(fitted, jobGraph, spec.checkpoint);
      if (aimed !== undefined && fitted.delayMs < 0) holdEndsMs.push(longHoldEndMs(aimed, spec.checkpoint.intervalMs));
      return aimed === undefined ? [] : [aimed];
    }
    if (fitted.type === 'message') {
      // Checkpoints are triggered on source tasks only (CheckpointPlan.tasksToTrigger).
      const fitEnd = (t: string): string => (fitted.method === 'triggerCheckpoint' ? fitSourceTask(t) : fitTask(t, undefined));
      const ends = Object.fromEntries(messageFaultTasks(fitted).map((e) => [e.field, fitEnd(e.task)]));
      return [{ ...fitted, ...ends }];
    }
    if (fitted.type === 'coordinator-stall' && fitted.operator !== undefined) return [{ ...fitted, operator: fitSource(fitted.operator) }];
    return [fitted.type === 'slow-task' ? { ...fitted, operator: fitOperator(fitted.operator) } : fitted];
  });
  // An action's point is aimed like a fault's: through a stand-in fault with the same trigger.
  const fitAction = (a: Action): Action => {
    const task = faultTask(a);
    if (task === undefined) return a;
    const standIn: Fault = { type: 'global-failure', when: a.when };
    const fitted = withBarrierPhaseIfPossible(withFaultTask(standIn, fitTask(task, faultTaskPhase(a))), withInputs.length > 0);
    return { ...a, when: (fitted as Extract<Fault, { type: 'global-failure' }>).when };
  };
  // A long channel hold ends before the heal time, which it would otherwise cut short (faults stop there).
  const healTimeMs = Math.max(spec.healTimeMs, ...holdEndsMs);
  const checkpoint = holdEndsMs.length === 0 ? spec.checkpoint : withLongHoldTolerance(spec.checkpoint, faults);
  return { ...spec, faults, ...(actions.length === 0 ? {} : { actions: actions.map(fitAction) }), healTimeMs, checkpoint };
}

/**
 * `checkpoint` with enough tolerable failures for the expiries of its long channel holds. A
 * barrier held k timeouts makes about k + 1 checkpoints expire (maxConcurrent times that), and
 * Flink's CheckpointFailureManager counts each: with fewer tolerable failures the job fails over
 * before the hold ends, its tasks are cancelled, and the held task never sends the cancellation
 * markers the hold is there for (a failover on expiries is what slow stores and tasks draw).
 */
function withLongHoldTolerance(checkpoint: RunSpec['checkpoint'], faults: readonly Fault[]): RunSpec['checkpoint'] {
  const timeoutMs = checkpoint.timeoutMs ?? DEFAULT_CHECKPOINT.timeoutMs;
  const expiries = Math.max(0, ...faults.map((f) => (f.type === 'channel-event' && f.event === 'barrier'
    ? Math.ceil(f.delayMs / timeoutMs) + 1 : 0))) * (checkpoint.maxConcurrent ?? DEFAULT_CHECKPOINT.maxConcurrent);
  return { ...checkpoint, tolerableFailures: Math.max(checkpoint.tolerableFailures ?? DEFAULT_CHECKPOINT.tolerableFailures, expiries) };
}

/**
 * When a long channel hold (k checkpoint timeouts and an interval, fitChannelEvent) ends, ms: its
 * checkpoint's barrier comes about `checkpoint` intervals into the run (the first one's, when it
 * names none), then the hold, then an interval for the checkpoints behind it to expire. A hold
 * armed by a trigger starts later and may still be cut by the heal time.
 */
function longHoldEndMs(f: ChannelEventFault, intervalMs: number): number {
  return ((f.checkpoint ?? 1) + 1) * intervalMs + f.delayMs;
}

/**
 * `f` unchanged, or, when its point names a barrier phase (first-barrier, aligned) and the job
 * has no task with inputs (one chain from source to sink), at `sync-done`: a phase every task
 * reaches, so that no drawn fault aims at a point no run can reach.
 */
function withBarrierPhaseIfPossible(f: Fault, hasTasksWithInputs: boolean): Fault {
  if (hasTasksWithInputs || !INPUT_PHASES.has(faultTaskPhase(f) ?? '')) return f;
  if (!('when' in f) || !('at' in f.when) || f.when.at.kind !== 'task') return f;
  return { ...f, when: { at: { ...f.when.at, phase: 'sync-done' } } } as Fault;
}

/**
 * The jobs whose checkpoints the source pacing keeps within an interval, so a timeout of two
 * intervals raises no false alarm (checkpointTimeoutMs). Not wordcount, whose tokenizer turns a
 * line into several words (its fault-free checkpoints took up to 3.7 intervals, median 2), nor a
 * job module, whose operators are the user's: they keep the default.
 */
const BOUNDED_CHECKPOINT_JOBS: readonly string[] = ['flights', 'generated'];

/**
 * A drawn checkpoint timeout of `intervals` checkpoint intervals, at most the default 1 s. Why
 * it can be this short without false alarms in flights and generated jobs: a paced source's
 * record costs at most half an interval and a network buffer holds at most half an interval of
 * records (sourcePacing), and their other operators cost a twentieth of the source per record,
 * so a healthy checkpoint waits at most about an interval for its trigger and its barriers; over
 * fault-free runs the slowest checkpoint took 0.95 intervals (generated, 300 runs) and 0.83
 * (flights, 120 runs) from trigger to completion. Two intervals is room for that and the
 * asynchronous writes, so after the heal time checkpoints complete again; before it, any
 * slowness of about two intervals (a slow task, a slow store, a held channel or message)
 * outlasts a checkpoint, which with the default timeout only slowness longer than the heal time
 * could.
 */
function checkpointTimeoutMs(intervals: number, intervalMs: number): number {
  return Math.min(1000, intervals * intervalMs);
}

/** RunSpecs for explore and the property suites. */
export function runSpecArbitrary(o: RunSpecArbitraryOptions): fc.Arbitrary<RunSpec> {
  const maxP = o.maxParallelism ?? 4;
  const maxTaskManagers = Math.ceil(maxP / 2);
  const healTimeMs = Math.round(TARGET_SPAN_MS * 0.6);
  const seed = fc.noShrink(fc.integer({ min: 0, max: 0x7fffffff })).map((n) => `s${n}`);
  const overrides = fc.array(fc.record({ decision: fc.nat({ max: 20_000 }), alternative: fc.nat({ max: 3 }) }), { maxLength: 8 })
    .map((os) => {
      const seen = new Set<number>();
      return os.filter((x) => {
        if (seen.has(x.decision)) return false;
        seen.add(x.decision);
        return true;
      });
    });
  const tasks = Array.from({ length: maxP }, (_x, i) => [`v0#${i}`, `v1#${i}`]).flat();
  const strategy = o.strategy ?? 'swarm';
  const faultOptions = {
    taskManagers: maxTaskManagers, healTimeMs, tasks, operators: OPERATOR_PLACEHOLDERS, maxFaults: o.maxFaults ?? 6,
  };
  // The fault plan is the strategy's (ExploreStrategy.ts); targeted faults are drawn as targets,
  // resolved in specOf once the run's expected last checkpoint is known. pct and targeted draw
  // one field more, last, so that swarm's draws stay exactly what they were before strategies
  // (targeted two: its restart window after its targets, so the targets stay what they were).
  const faults = strategy === 'uniform' ? uniformFaultPlanArbitrary(faultOptions)
    : strategy === 'targeted' ? fc.constant<Fault[]>([]) : faultPlanArbitrary(faultOptions);
  const extra = strategy === 'pct' ? { pct: pctScheduleArbitrary() }
    : strategy === 'targeted' ? { targets: targetedPlanArbitrary(faultOptions), restartWindow: restartWindowArbitrary() } : {};
  return fc.record({
    seed,
    job: jobArbitrary(o),
    parallelism: fc.integer({ min: 1, max: maxP }),
    intervalMs: fc.constantFrom(100, 50, 200),
    maxConcurrent: fc.constantFrom(1, 2),
    tolerableFailures: fc.constantFrom(0, 1, 10),
    // The output flusher's interval (execution.buffer-timeout): with 0 every record leaves at
    // once, which is what lets an at-least-once snapshot take in records behind a barrier.
    bufferTimeoutMs: fc.constantFrom(2, 0, 0.5),
    faults,
    overrides,
    // Generated jobs only: run every operator at its shape's own parallelism (rescaling edges
    // between stages of different parallelism) instead of one for all. Drawn after the others, so
    // they, and the runs of the other jobs, do not depend on it; shrinks toward one for all.
    shapeParallelism: fc.boolean(),
    // Savepoints (and a savepoint race's faults): drawn last for the same reason; shrinks toward none.
    actionPlan: actionPlanArbitrary({
      taskManagers: maxTaskManagers, healTimeMs, tasks, operators: OPERATOR_PLACEHOLDERS,
    }),
    // Rescales: drawn last, like the savepoints; shrinks toward none.
    rescales: rescaleArbitrary({ spanMs: TARGET_SPAN_MS, maxParallelism: maxP }),
    // The checkpoint timeout: Flink's default here (1 s) in one run in three, else 4 or 2
    // intervals (flights and generated jobs only: checkpointTimeoutMs says why). Drawn after the
    // others, like the rescales; shrinks toward the default.
    timeoutIntervals: fc.constantFrom(0, 4, 2),
    // Coordinator stalls and crashes at completion (LATE_FAULT_FAMILIES): drawn last, like the
    // rescales; shrinks toward none. The uniform strategy draws them in its own plan, the targeted
    // one aims its own.
    lateFaults: (strategy === 'swarm' || strategy === 'pct') && o.maxFaults !== 0
      ? lateFaultPlanArbitrary({ taskManagers: maxTaskManagers, healTimeMs, tasks, operators: OPERATOR_PLACEHOLDERS })
      : fc.constant<Fault[]>([]),
    ...extra,
  }).map((base): RunSpec => {
    const spec = specOf(base as DrawnBase);
    return withSourcePacing(fitToJob(withStallsScaled(resolveFromLast(spec, () => lastCheckpointEstimate(spec)))));
  });

  function specOf(base: DrawnBase): RunSpec {
    // A restart window that loses one TaskManager runs a generated job as pipelined regions.
    const regions = base.restartWindow?.lose === 'one' && base.job.kind === 'generated'
      ? Math.min(RESTART_WINDOW_REGIONS, maxP, GENERATED_JOB_LIMITS.maxParallelism, base.job.spec.maxParallelism) : 0;
    const job = regions > 1 && base.job.kind === 'generated'
      ? { kind: 'generated' as const, spec: forwardRegionsJob(base.job.spec, regions) } : base.job;
    // `{}`: every operator at its default, which for a generated job is its shape's.
    const ownParallelism = (base.shapeParallelism || regions > 1) && job.kind === 'generated';
    const parallelism = ownParallelism
      ? Math.max(job.spec.sourceParallelism, job.spec.sinkParallelism, ...job.spec.stages.map((st) => st.parallelism))
      : parallelismFor(job, base.parallelism);
    const plan = o.savepoints === false ? { actions: [], raceFaults: [], concurrent: false } : base.actionPlan;
    // A rescale sets every operator to one parallelism, within the job's max parallelism.
    const limit = Math.min(maxP, job.kind === 'generated' ? job.spec.maxParallelism
      : job.kind === 'module' ? configuredMaxParallelism(job) : maxP);
    const drawn = o.rescales === false ? [] : rescaleActions(base.rescales, parallelism, limit);
    // Mode none has no snapshot to restore from: the same history without its rescales (sized as
    // with them, so that the spec differs from the other modes' only there: compare, specInMode).
    const rescales = o.mode === 'none' ? [] : drawn;
    const largest = Math.max(parallelism, ...drawn.map((a) => (a.type === 'rescale' && typeof a.parallelism === 'number' ? a.parallelism : 1)));
    const taskManagers = Math.ceil(largest / 2);
    const actions = [...(plan.actions.length === 0 ? [] : fitActions(plan.actions, taskManagers, parallelism)), ...rescales];
    const spec = draftSpec(base, { job, parallelism, ownParallelism, taskManagers, plan, actions, rescales });
    if (base.targets === undefined) return spec;
    // The run's pacing decides how many checkpoints it takes, and so where its last few are.
    const last = expectedLastCheckpoint(withSourcePacing(spec));
    const targeted = targetedFaults(base.targets, last);
    // The last checkpoints come after the usual heal time (60% of the span), when faults no
    // longer fire: a targeted run heals two intervals after its expected last checkpoint.
    const healTimeMs = Math.max(spec.healTimeMs, (last + 2) * spec.checkpoint.intervalMs);
    const faults = [...fitFaults(targeted, taskManagers, parallelism), ...spec.faults];
    if (base.restartWindow === undefined) return { ...spec, faults, healTimeMs };
    // The first job run's TaskManagers: its parallelism, two slots each (as taskManagers above).
    const drawnActions = spec.actions ?? [];
    const window = restartWindowPlan(base.restartWindow, Math.ceil(parallelism / 2), drawnActions, o.savepoints !== false);
    const withWindow = [...drawnActions, ...window.actions];
    // Tasks finish at the end of their input, which faults and restores push well past the
    // heal time above (in half of the windowed runs measured): the window heals later, so that
    // its pauses, waiting for a task FINISHED, can still fire.
    return {
      ...spec, faults: [...faults, ...window.faults], ...(withWindow.length === 0 ? {} : { actions: withWindow }),
      healTimeMs: Math.max(healTimeMs, RESTART_WINDOW_HEAL_SPANS * TARGET_SPAN_MS),
    };
  }

  /** The spec of `base` with its parts decided (specOf); the strategy's drawn faults fitted. */
  function draftSpec(base: DrawnBase, d: {
    job: RunSpec['job']; parallelism: number; ownParallelism: boolean; taskManagers: number; plan: ActionPlan;
    actions: Action[]; rescales: Action[];
  }): RunSpec {
    const { job, parallelism, ownParallelism, taskManagers, plan, actions, rescales } = d;
    return {
      version: RUN_SPEC_VERSION,
      seed: base.seed,
      job,
      parallelism: ownParallelism ? {} : parallelism,
      taskManagers,
      ...(base.bufferTimeoutMs === 2 ? {} : { network: { bufferTimeoutMs: base.bufferTimeoutMs } }),
      checkpoint: {
        mode: o.mode,
        intervalMs: base.intervalMs,
        // A savepoint race needs a checkpoint triggered while its savepoint is pending.
        maxConcurrent: plan.concurrent ? 2 : base.maxConcurrent,
        tolerableFailures: base.tolerableFailures,
        ...(base.timeoutIntervals === 0 || !BOUNDED_CHECKPOINT_JOBS.includes(job.kind) ? {}
          : { timeoutMs: checkpointTimeoutMs(base.timeoutIntervals, base.intervalMs) }),
        // A rescale via cancel restores the run's latest checkpoint: it must be retained.
        ...(rescales.some((a) => a.type === 'rescale' && a.via === 'cancel') ? { retention: 'RETAIN_ON_CANCELLATION' as const } : {}),
      },
      // A restart window draws its own delay (restartWindowArbitrary.ts); other runs restart after 10 ms.
      restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: base.restartWindow?.restartDelayMs ?? 10 },
      faults: [...fitFaults(base.faults, taskManagers, parallelism), ...plan.raceFaults, ...fitFaults(base.lateFaults, taskManagers, parallelism)],
      ...(actions.length === 0 ? {} : { actions }),
      healTimeMs,
      budgets: { maxEvents: 5_000_000, maxTimeMs: TARGET_SPAN_MS * 30 },
      overrides: base.overrides,
      mutations: [...(o.mutations ?? [])],
      ...(base.pct === undefined ? {} : { pct: base.pct }),
    };
  }
}

/** What runSpecArbitrary's record draws (its `pct` and `targets` only for those strategies). */
interface DrawnBase {
  readonly seed: string;
  readonly job: RunSpec['job'];
  readonly parallelism: number;
  readonly intervalMs: number;
  readonly maxConcurrent: number;
  readonly tolerableFailures: number;
  readonly bufferTimeoutMs: number;
  readonly faults: Fault[];
  readonly overrides: RunSpec['overrides'];
  readonly shapeParallelism: boolean;
  readonly actionPlan: ActionPlan;
  readonly rescales: DrawnRescale[];
  readonly timeoutIntervals: number;
  readonly lateFaults: Fault[];
  readonly pct?: NonNullable<RunSpec['pct']>;
  readonly targets?: TargetDraw[];
  readonly restartWindow?: RestartWindow | undefined;
}

/**
 * `spec` with each coordinator stall's `durationMs`, drawn in thousandths of a checkpoint timeout
 * (faultArbitrary's STALL_DURATION_PER_TIMEOUT), turned into ms of this spec's checkpoint timeout
 * (its default when the spec names none), rounded to whole µs.
 */
export function withStallsScaled(spec: RunSpec): RunSpec {
  if (!spec.faults.some((f) => f.type === 'coordinator-stall')) return spec;
  const timeoutMs = spec.checkpoint.timeoutMs ?? DEFAULT_CHECKPOINT.timeoutMs;
  const faults = spec.faults.map((f): Fault => (f.type !== 'coordinator-stall' ? f
    : { ...f, durationMs: Math.round((f.durationMs / STALL_DURATION_PER_TIMEOUT) * timeoutMs * 1000) / 1000 }));
  return { ...spec, faults };
}

/**
 * How flags and reports name an explored job: the built-in job's name, or the module's path
 * (relative to the working directory when it is inside it) with `#export` when named, as
 * `--job` takes it.
 */
export function exploreJobName(job: ExploreJob): string {
  if (typeof job === 'string') return job;
  const rel = relative(process.cwd(), job.path).split(sep).join('/');
  const path = rel.startsWith('..') || isAbsolute(rel) ? job.path : `./${rel}`;
  return `${path}${job.export === undefined ? '' : `#${job.export}`}`;
}

/** A short name for file names: the built-in job's name, or the module's file name without extension (and export). */
export function exploreJobFileName(job: ExploreJob): string {
  if (typeof job === 'string') return job;
  return `${basename(job.path).replace(/\.[^.]*$/, '')}${job.export === undefined ? '' : `-${job.export}`}`.replace(/[^\w.-]/g, '_');
}
