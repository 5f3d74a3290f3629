/**
 * describeFault: a fault of a RunSpec and its trigger as one short phrase for people, e.g.
 * `crash taskmanager-1 for 50 ms at checkpoint 9 acked on v1#0` or `rpc-loss of trigger RPCs
 * (probability 0.5)`. Pure and total over the Fault union (the compiler checks every case), so
 * replay and reports can name a fault the same way. Times are in ms, as a RunSpec has them.
 */
import type {
  Action, ChannelEventFault, Fault, FaultTrigger, MessageFault, ProtocolPoint,
} from '../sim/run/RunSpec.ts';

/** `1st`, `2nd`, `3rd`, `4th`, ..., `11th`, `12th`, `13th`, `21st`. */
function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th';
  return `${n}${suffix}`;
}

/**
 * A protocol point: `checkpoint 9 acked on v1#0` (a task; `on any task` when none is named),
 * `checkpoint 3 completed on the jobmaster`, `savepoint 1 completed on the jobmaster` (a point
 * naming the first savepoint action's id), `the 2nd sink transaction pre-committed`, `v2#1 FINISHED`
 * (an execution point; `the 2nd attempt of any task entering FINISHED` with nth 2 and no task).
 */
export function describePoint(point: ProtocolPoint): string {
  const base = describePointOfRun(point);
  return point.kind !== 'sink' && point.jobRun !== undefined ? `${base} of job run ${point.jobRun}` : base;
}

function describePointOfRun(point: ProtocolPoint): string {
  switch (point.kind) {
    case 'task':
      return `${checkpointOf(point)} ${point.phase} on ${point.task ?? 'any task'}`;
    case 'jobmaster':
      return `${checkpointOf(point)} ${point.phase} on the jobmaster`;
    case 'sink':
      return `the ${ordinal(point.nth)} sink transaction ${point.phase}`;
    case 'restore':
      return `the ${ordinal(point.nth ?? 1)} restore${point.checkpoint === undefined ? '' : ` from checkpoint ${point.checkpoint}`}`;
    case 'job':
      return `the job ${point.status}${(point.nth ?? 1) === 1 ? '' : ` the ${ordinal(point.nth ?? 1)} time`}`;
    case 'execution':
      // nth counts attempts entering the state (of the task, or of any task), not one task's times.
      if ((point.nth ?? 1) === 1) return `${point.task ?? 'a task'} ${point.state}`;
      return `the ${ordinal(point.nth ?? 1)} attempt ${point.task === undefined ? 'of any task' : `of ${point.task}`} entering ${point.state}`;
  }
}

/** `checkpoint 9`, or `savepoint 1` for a point naming a savepoint action. */
function checkpointOf(point: { readonly checkpoint?: number; readonly savepoint?: number }): string {
  return point.savepoint === undefined ? `checkpoint ${String(point.checkpoint)}` : `savepoint ${point.savepoint}`;
}

/** A trigger: `at 120 ms` or `at <point>`. */
export function describeTrigger(when: FaultTrigger): string {
  return 'atMs' in when ? `at ${when.atMs} ms` : `at ${describePoint(when.at)}`;
}

const forMs = (ms: number | undefined): string => (ms === undefined ? '' : ` for ${ms} ms`);

/** A crash's or pause's host: `taskmanager-1`, or `the host of v1#0` when it names a task. */
const hostOf = (host: string): string => (/^v\d+#\d+$/.test(host) ? `the host of ${host}` : host);

/** The fault, with its trigger when it has one (world-setting faults hold from the start). */
export function describeFault(fault: Fault): string {
  switch (fault.type) {
    case 'crash':
      return `crash ${hostOf(fault.host)}${forMs(fault.downMs)} ${describeTrigger(fault.when)}`;
    case 'global-failure':
      return `global failure ${describeTrigger(fault.when)}`;
    case 'pause':
      return `pause ${hostOf(fault.host)}${forMs(fault.durationMs)} ${describeTrigger(fault.when)}`;
    case 'partition': {
      const link = fault.oneWay === true ? `${fault.a} -> ${fault.b} (one way)` : `${fault.a} <-> ${fault.b}`;
      return `partition ${link}${forMs(fault.durationMs)} ${describeTrigger(fault.when)}`;
    }
    case 'slow-task':
      return `slow task of ${fault.operator} (${fault.factor}x)${forMs(fault.durationMs)} ${describeTrigger(fault.when)}`;
    case 'coordinator-stall':
      return `coordinator stall of ${fault.operator ?? 'the first source'}${forMs(fault.durationMs)} ${describeTrigger(fault.when)}`;
    case 'rpc-loss':
      return `rpc-loss of ${fault.kind} RPCs (probability ${fault.probability})`;
    case 'rpc-delay': {
      const l = fault.latency;
      return `rpc-delay of ${fault.kind} RPCs (${l.minMs}/${l.medianMs}/${l.maxMs} ms min/median/max)`;
    }
    case 'async-snapshot-failure':
      return `${fault.type}${fault.checkpoint === undefined ? '' : ` of checkpoint ${fault.checkpoint}`} (probability ${fault.probability})`;
    case 'store-failure':
    case 'store-unknown-outcome':
      return `${fault.type} (probability ${fault.probability})`;
    case 'slow-store':
      return `slow-store${fault.checkpoint === undefined ? '' : ` of checkpoint ${fault.checkpoint}`} (${fault.factor}x)`;
    case 'message':
      return describeMessageFault(fault);
    case 'channel-event':
      return describeChannelEventFault(fault);
  }
}

/**
 * `delay the 1st cancellation marker of checkpoint 3 from v1#1 to v2#0 by 80 ms`, `delay the 2nd
 * barrier to v1#0 by 30 ms armed at checkpoint 2 completed on the jobmaster`.
 */
function describeChannelEventFault(f: ChannelEventFault): string {
  const what = f.event === 'barrier' ? 'barrier' : 'cancellation marker';
  const of = f.checkpoint === undefined ? '' : ` of checkpoint ${f.checkpoint}`;
  const run = f.jobRun === undefined ? '' : ` of job run ${f.jobRun}`;
  const from = f.from === undefined ? '' : ` from ${f.from}`;
  const when = f.when === undefined ? '' : ` armed ${describeTrigger(f.when)}`;
  return `delay the ${ordinal(f.nth ?? 1)} ${what}${of}${run}${from} to ${f.to} by ${f.delayMs} ms${when}`;
}

/**
 * `lose the 2nd confirmCheckpoint of checkpoint 4 from jobmanager to v1#0 at the 1st restore`,
 * `delay the 1st acknowledgeCheckpoint by 30 ms`, `hold ... until the heal time`.
 */
function describeMessageFault(f: MessageFault): string {
  const of = f.checkpoint === undefined ? '' : ` of checkpoint ${f.checkpoint}`;
  const from = f.from === undefined ? '' : ` from ${f.from}`;
  const to = f.to === undefined ? '' : ` to ${f.to}`;
  const how = f.action === 'delay' ? ` by ${f.delayMs ?? 0} ms`
    : f.action === 'hold' ? (f.durationMs === undefined ? ' until the heal time' : forMs(f.durationMs)) : '';
  const when = f.when === undefined ? '' : ` armed ${describeTrigger(f.when)}`;
  return `${f.action} the ${ordinal(f.nth ?? 1)} ${f.method}${of}${from}${to}${how}${when}`;
}

/** An action in words: `savepoint (native) at 50 ms`, `savepoint at checkpoint 2 completed on the jobmaster`. */
export function describeAction(action: Action): string {
  const when = describeTrigger(action.when);
  if (action.type === 'cancel') return `cancel ${when}`;
  if (action.type === 'rescale') {
    const p = typeof action.parallelism === 'number' ? String(action.parallelism)
      : Object.keys(action.parallelism).length === 0 ? 'the same parallelism'
        : Object.entries(action.parallelism).map(([uid, n]) => `${uid}=${n}`).join(', ');
    const claim = action.claimMode === undefined ? '' : ` (${action.claimMode})`;
    return `rescale to ${p} via ${action.via ?? 'stop-with-savepoint'}${claim} ${when}`;
  }
  const drain = action.type === 'stop-with-savepoint' && action.drain === true ? ' with drain' : '';
  return `${action.type}${drain}${action.format === 'native' ? ' (native)' : ''} ${when}`;
}

/** A job run's parallelism in words: `parallelism 4`, or `uid 4, uid 2` when the operators differ. */
export function describeParallelism(p: Readonly<Record<string, number>>): string {
  const values = new Set(Object.values(p));
  return values.size === 1 ? `parallelism ${[...values][0]}` : Object.entries(p).map(([u, n]) => `${u} ${n}`).join(', ');
}
