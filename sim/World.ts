/**
 * World: the deterministic simulated world (DESIGN.md "The world's rules"), the sim's facade.
 *
 * It owns the kernel (virtual clock, one event queue, the choice source, the trace), the hosts
 * and their executors, the RPC fabric, the data network, partitions and the durable stores.
 * Engine code runs through each host's EngineEnv; the harness drives faults with crash,
 * restart, pause, resume, partition and heal, at virtual times (`at`) or at protocol points
 * (`onTrace`, whose actions run right after the current task, before any other event).
 *
 * Invariants: the same options and the same calls give the same trace hash; nothing reads real
 * time or real randomness; a run ends when idle, at a budget, or when stopped.
 */
import { hostId } from '../engine/api/index.ts';
import type { EngineEnv, HostId } from '../engine/api/index.ts';
import { ChoiceSource } from './ChoiceSource.ts';
import type { DecisionRecord, Override } from './ChoiceSource.ts';
import { EventQueue, OneShotEntry, PRIORITY_SIM } from './EventQueue.ts';
import { ExecutorSlowdowns } from './ExecutorSlowdowns.ts';
import { harnessAssert } from './harnessAssert.ts';
import { InvariantChecks } from './InvariantChecks.ts';
import { Partitions } from './Partitions.ts';
import { PctScheduler } from './PctScheduler.ts';
import type { PctReport } from './PctScheduler.ts';
import { RandomStreams } from './RandomStreams.ts';
import { MessageFaults } from './MessageFaults.ts';
import { ChannelEventFaults } from './ChannelEventFaults.ts';
import { SimMetricGroups } from './SimMetricGroups.ts';
import { RpcNetwork } from './RpcNetwork.ts';
import { SimDataNetwork } from './SimDataNetwork.ts';
import type { SimClock, SimContext } from './SimContext.ts';
import { SimHost } from './SimHost.ts';
import { SimInputError, requireNonNegativeInteger } from './SimInputError.ts';
import { SimObjectStore } from './SimObjectStore.ts';
import { SimRpcService } from './SimRpcService.ts';
import { SimTransactionalStore } from './SimTransactionalStore.ts';
import { NO_CAUSE, Trace } from './Trace.ts';
import type { TraceEvent } from './Trace.ts';
import {
  DEFAULT_NETWORK_LATENCY, DEFAULT_RPC_LATENCY, DEFAULT_STORE_LATENCY, validateWorldOptions,
} from './WorldOptions.ts';
import type { WorldOptions } from './WorldOptions.ts';

/** Why {@link World.run} returned. */
export type StopReason = 'idle' | 'max-events' | 'max-time' | 'stopped';

/** The outcome of {@link World.run}. */
export interface RunResult {
  readonly reason: StopReason;
  /** Events run so far (all calls to run). */
  readonly events: number;
  /** Virtual time at the end, µs. */
  readonly timeUs: number;
  /** One line for people, e.g. why a budget ended the run. */
  readonly message: string;
}

/** What the choice source reports. */
export interface ChoicesReport {
  readonly count: number;
  /** Order decisions among them. */
  readonly orderCount: number;
  /** Order decisions where the PCT schedule proposed another candidate than the seeded draw. */
  readonly orderProposalsDiffering: number;
  /** What the PCT schedule did, when the run has one. */
  readonly pct: PctReport | undefined;
  readonly unusedOverrides: readonly Override[];
  readonly log: readonly DecisionRecord[];
}

type Boot = (env: EngineEnv) => void;

export class World {
  private readonly clock: SimClock = { nowUs: 0 };
  private readonly ctx: SimContext;
  private readonly hosts = new Map<string, { host: SimHost; boot: Boot; env: EngineEnv | undefined }>();
  private readonly partitions = new Partitions();
  private readonly rpcNet: RpcNetwork;
  private readonly dataNet: SimDataNetwork;
  private readonly invariants = new InvariantChecks();
  private readonly bugSet: ReadonlySet<string>;
  private readonly maxEvents: number;
  private readonly maxTimeUs: number;
  private readonly checkInvariants: boolean;
  /** The PCT schedule of the order decisions, when the options ask for one. */
  private readonly pct: PctScheduler | undefined;
  private eventCount = 0;
  private stopRequested = false;
  private running = false;
  /** The durable object store (sim-side view: `paths()`, `read()`). */
  readonly objectStore: SimObjectStore;
  /** The transactional store (sim-side view: `committedRecords()`). */
  readonly transactionalStore: SimTransactionalStore;
  /** Active "slow task" faults: executor task costs scaled while they last. */
  readonly slowdowns = new ExecutorSlowdowns();
  /** Targeted faults on single RPC messages, armed by the fault plan (MessageFaults.ts). */
  readonly messageFaults = new MessageFaults();
  /** Targeted faults on one data channel's checkpoint events, armed by the fault plan (ChannelEventFaults.ts). */
  readonly channelEventFaults = new ChannelEventFaults();
  /** What tasks report through the metrics port: source reads, back-pressure waits. */
  readonly metrics = new SimMetricGroups();

  /** @throws SimInputError for invalid options (see WorldOptions). */
  constructor(options: WorldOptions) {
    validateWorldOptions(options);
    const trace = new Trace(this.clock, {
      ...(options.traceLimit !== undefined ? { limit: options.traceLimit } : {}),
      storeTasks: options.traceTasks === true,
    });
    const hashing = trace.hashing;
    const healTimeUs = options.healTimeUs ?? Number.POSITIVE_INFINITY;
    const streams = new RandomStreams(options.seed);
    const choices = new ChoiceSource({
      streams,
      overrides: options.overrides ?? [],
      healTimeUs,
      nowUs: () => this.clock.nowUs,
      logLimit: options.decisionLogLimit ?? 10_000,
      onDecision: (kind, value) => {
        hashing.word(kind + 0x5eed0000);
        hashing.word(value);
      },
    });
    const pct = options.pct === undefined ? undefined : new PctScheduler(streams.stream('pct'), options.pct);
    this.pct = pct;
    const queue = new EventQueue(pct === undefined ? (n) => choices.order('order', n) : (n, ties) => {
      // The schedule proposes, an override may still decide; the lane that runs is the one a
      // change point drops.
      const j = choices.order('order', n, pct.propose(n, ties));
      pct.taken(ties.candidate(j));
      return j;
    });
    this.ctx = { clock: this.clock, queue, trace, choices, healTimeUs, slowdowns: this.slowdowns };
    this.rpcNet = new RpcNetwork(this.ctx, this.partitions, options.rpc ?? { defaultLatency: DEFAULT_RPC_LATENCY },
      this.messageFaults);
    this.dataNet = new SimDataNetwork(this.ctx, {
      partitions: this.partitions,
      latency: options.network?.latency ?? DEFAULT_NETWORK_LATENCY,
      host: (id) => this.hosts.get(id)?.host,
      channelEvents: this.channelEventFaults,
    });
    this.objectStore = new SimObjectStore(this.ctx, options.objectStore ?? { latency: DEFAULT_STORE_LATENCY });
    this.transactionalStore = new SimTransactionalStore(trace, this.clock);
    this.bugSet = new Set(options.bugs ?? []);
    this.maxEvents = options.budgets?.maxEvents ?? Number.POSITIVE_INFINITY;
    this.maxTimeUs = options.budgets?.maxTimeUs ?? Number.POSITIVE_INFINITY;
    this.checkInvariants = options.checkInvariants === true;
  }

  /** Current virtual time, µs. */
  get nowUs(): number {
    return this.clock.nowUs;
  }

  /** Events run so far (all calls to run), the one that threw included. */
  get eventsRun(): number {
    return this.eventCount;
  }

  /** The trace (events, hash, marks). */
  get trace(): Trace {
    return this.ctx.trace;
  }

  /** The trace hash so far, 16 hex digits. */
  get traceHash(): string {
    return this.ctx.trace.hash;
  }

  /** Mark counts by name. */
  get marks(): ReadonlyMap<string, number> {
    return this.ctx.trace.marks;
  }

  /** Decisions made so far, overrides not reached, and the (bounded) decision log. */
  get choices(): ChoicesReport {
    const c = this.ctx.choices;
    return {
      count: c.count, orderCount: c.orderCount, orderProposalsDiffering: c.orderProposalsDiffering,
      pct: this.pct?.report(), unusedOverrides: c.unusedOverrides(), log: c.log,
    };
  }

  /** Host ids in the order added. */
  get hostIds(): HostId[] {
    return [...this.hosts.keys()].map(hostId);
  }

  /**
   * Adds host `id` and boots it now (calls `boot` with its EngineEnv).
   * @throws SimInputError if `id` is empty or taken, or `boot` is not a function.
   */
  addHost(id: string, boot: Boot): HostId {
    if (typeof id !== 'string' || id.length === 0 || id.includes('/')) {
      throw new SimInputError(`host id must be a non-empty string without '/', got ${JSON.stringify(id)}`);
    }
    if (this.hosts.has(id)) throw new SimInputError(`host ${id} exists already`);
    requireFunction(boot, `addHost(${id}): boot`);
    const host = new SimHost(this.ctx, hostId(id));
    this.hosts.set(id, { host, boot, env: undefined });
    this.boot(id);
    return host.id;
  }

  /** The EngineEnv of `host`'s current incarnation. @throws SimInputError for an unknown host. */
  env(host: string): EngineEnv {
    return this.entry(host, 'env').env as EngineEnv;
  }

  /** True if `host` is up (not crashed). @throws SimInputError for an unknown host. */
  isAlive(host: string): boolean {
    return this.entry(host, 'isAlive').host.alive;
  }

  /**
   * Crashes `host`: its executors, queued tasks and timers vanish, its endpoints and data
   * connections die (peers get `broken` at once), messages to it are dropped. Crashing a
   * crashed host does nothing. @throws SimInputError for an unknown host.
   */
  crash(host: string): void {
    const h = this.entry(host, 'crash').host;
    if (!h.alive) return;
    h.crashedBy = this.ctx.trace.record(h.id, 'host.crash', { incarnation: h.incarnation });
    this.ctx.trace.mark(h.id, 'crash');
    h.kill();
    this.metrics.hostCrashed(h.id, this.clock.nowUs);
    this.rpcNet.onCrash(h);
    this.dataNet.onCrash(h);
    this.invariants.removeHost(h);
  }

  /**
   * Restarts `host` as a new incarnation and calls its boot function again (a live host is
   * crashed first). @throws SimInputError for an unknown host.
   */
  restart(host: string): void {
    const h = this.entry(host, 'restart').host;
    if (h.alive) this.crash(host);
    this.boot(host);
  }

  /** True if `host` is paused (runs nothing until resumed). @throws SimInputError for an unknown host. */
  isPaused(host: string): boolean {
    return this.entry(host, 'isPaused').host.paused;
  }

  /** Pauses `host`: it runs nothing until {@link resume}. @throws SimInputError (unknown host). */
  pause(host: string): void {
    const h = this.entry(host, 'pause').host;
    if (h.paused) return;
    h.pause(this.ctx.trace.record(h.id, 'host.pause'));
  }

  /** Resumes a paused `host`. @throws SimInputError for an unknown host. */
  resume(host: string): void {
    const h = this.entry(host, 'resume').host;
    if (!h.paused) return;
    this.ctx.trace.record(h.id, 'host.resume');
    h.resume();
  }

  /**
   * Cuts RPC and data connections between hosts `a` and `b` (only `a -> b` when `oneWay`).
   * Messages in flight across a new cut are lost; data connections between them break.
   * @throws SimInputError for unknown or equal hosts.
   */
  partition(a: string, b: string, options: { oneWay?: boolean } = {}): void {
    this.entry(a, 'partition');
    this.entry(b, 'partition');
    if (a === b) throw new SimInputError(`partition: a host cannot be cut from itself (${a})`);
    if (options === null || typeof options !== 'object') {
      throw new SimInputError('partition: options must be an object like { oneWay: true }');
    }
    const cutAB = this.partitions.cut(a, b);
    const cutBA = options.oneWay === true ? false : this.partitions.cut(b, a);
    if (!cutAB && !cutBA) return;
    const seq = this.ctx.trace.record(a, 'net.partition', { from: a, to: b, oneWay: options.oneWay === true });
    if (cutAB) this.partitions.direction(a, b).cause = seq;
    if (cutBA) this.partitions.direction(b, a).cause = seq;
    this.ctx.trace.mark(a, 'partition', { from: a, to: b });
    this.dataNet.onPartition(a, b);
  }

  /** Heals the cuts between `a` and `b`, both directions. @throws SimInputError (unknown host). */
  healPartition(a: string, b: string): void {
    this.entry(a, 'healPartition');
    this.entry(b, 'healPartition');
    const healed = [this.partitions.heal(a, b), this.partitions.heal(b, a)];
    if (healed[0] === true || healed[1] === true) this.ctx.trace.record(a, 'net.heal', { from: a, to: b });
  }

  /** Heals every cut. */
  healAllPartitions(): void {
    for (const [from, to] of this.partitions.cutDirections()) {
      this.partitions.heal(from, to);
      this.ctx.trace.record(from, 'net.heal', { from, to });
    }
  }

  /**
   * Runs `fn` at virtual time `timeUs` (before engine events of that instant), e.g. a fault.
   * `label` names the action in the trace and in errors.
   * @throws SimInputError if `label` is not a string, `fn` is not a function, or `timeUs` is
   *   not a non-negative integer or lies in the past.
   */
  at(timeUs: number, label: string, fn: () => void): void {
    if (typeof label !== 'string') {
      throw new SimInputError(`at: label must be a string, got ${describeValue(label)}`);
    }
    requireFunction(fn, `at(${label}): fn`);
    requireNonNegativeInteger(timeUs, `at(${label}): timeUs`);
    if (timeUs < this.clock.nowUs) {
      throw new SimInputError(`at(${label}): time ${timeUs}us is in the past (now ${this.clock.nowUs}us)`);
    }
    const entry = new OneShotEntry(() => {
      this.ctx.trace.record('sim', 'sim.action', { label });
      fn();
    }, -1, undefined, `sim:${label}`);
    this.ctx.queue.push(entry, timeUs, PRIORITY_SIM);
  }

  /**
   * Reacts to trace events: when `predicate(event)` holds, `action(event)` runs right after the
   * current task, before any other event. `options.once` unsubscribes after the first match;
   * `options.types` offers only events of those types to the predicate (cheaper: other events
   * need not be built). Returns a function that unsubscribes.
   * @throws SimInputError if `predicate` or `action` is not a function, `options` is not an
   *   object or `options.types` is not an array of strings.
   */
  onTrace(
    predicate: (e: TraceEvent) => boolean,
    action: (e: TraceEvent) => void,
    options: { once?: boolean; types?: readonly string[] } = {},
  ): () => void {
    requireFunction(predicate, 'onTrace: predicate');
    requireFunction(action, 'onTrace: action');
    if (options === null || typeof options !== 'object') {
      throw new SimInputError('onTrace: options must be an object like { once: true }');
    }
    const types = options.types;
    if (types !== undefined && !(Array.isArray(types) && types.every((t) => typeof t === 'string'))) {
      throw new SimInputError('onTrace: options.types must be an array of event type strings');
    }
    return this.ctx.trace.subscribe(predicate, action, {
      once: options.once === true, ...(types === undefined ? {} : { types }),
    });
  }

  /** Asks {@link run} to return after the current event. */
  stop(): void {
    this.stopRequested = true;
  }

  /**
   * Runs events until the queue is empty, a budget is reached or {@link stop} is called.
   * Errors thrown by tasks (AssertionError from the engine, invariant checks) propagate.
   * @throws HarnessAssertionError if called from inside a running event.
   */
  run(): RunResult {
    harnessAssert(!this.running, 'World.run is not re-entrant');
    this.running = true;
    this.stopRequested = false;
    try {
      return this.loop();
    } finally {
      this.running = false;
    }
  }

  private loop(): RunResult {
    const queue = this.ctx.queue;
    const trace = this.ctx.trace;
    const pending = trace.pendingActions;
    const clock = this.clock;
    if (pending.length > 0) this.drainActions();
    for (;;) {
      if (this.stopRequested) return this.result('stopped', 'stopped by request');
      if (this.eventCount >= this.maxEvents) {
        return this.result('max-events', `event budget of ${this.maxEvents} reached (a livelock?)`);
      }
      const due = queue.peekDueUs();
      if (due === Number.POSITIVE_INFINITY) return this.result('idle', 'no more events');
      if (due > this.maxTimeUs) {
        clock.nowUs = this.maxTimeUs;
        return this.result('max-time', `virtual time budget of ${this.maxTimeUs}us reached`);
      }
      const entry = queue.pop();
      if (entry === undefined) return this.result('idle', 'no more events');
      clock.nowUs = due;
      this.eventCount++;
      // A lane restores the cause of what it runs; a lane that has none runs as a root.
      trace.cause = NO_CAUSE;
      entry.fire();
      if (pending.length > 0) this.drainActions();
      if (this.checkInvariants) this.invariants.runAll();
    }
  }

  private drainActions(): void {
    const pending = this.ctx.trace.pendingActions;
    while (pending.length > 0) (pending.shift() as () => void)();
  }

  private result(reason: StopReason, message: string): RunResult {
    return { reason, events: this.eventCount, timeUs: this.clock.nowUs, message };
  }

  private entry(host: string, what: string): { host: SimHost; boot: Boot; env: EngineEnv | undefined } {
    const e = this.hosts.get(host);
    if (e === undefined) {
      const known = [...this.hosts.keys()].join(', ');
      throw new SimInputError(`${what}: unknown host ${JSON.stringify(host)} (known: ${known || 'none'})`);
    }
    return e;
  }

  private boot(id: string): void {
    const e = this.entry(id, 'boot');
    const h = e.host;
    h.start();
    e.env = this.makeEnv(h);
    this.ctx.trace.record(h.id, 'host.boot', { incarnation: h.incarnation });
    e.boot(e.env);
  }

  private makeEnv(h: SimHost): EngineEnv {
    const trace = this.ctx.trace;
    const choices = this.ctx.choices;
    const clock = this.clock;
    const bugs = this.bugSet;
    return {
      host: h.id,
      clock: { nowUs: () => clock.nowUs },
      executors: h.executorFactory(),
      rpc: new SimRpcService(this.rpcNet, h),
      network: this.dataNet.view(h),
      objectStore: this.objectStore,
      transactionalStore: this.transactionalStore,
      tracer: {
        event: (type, attrs, cause) => trace.recordOn(h.id, h.idHash, type, attrs, cause ?? trace.cause),
        mark: (name, attrs) => {
          trace.mark(h.id, name, attrs);
        },
        causedBy: (cause) => {
          if (cause !== NO_CAUSE) trace.cause = cause;
        },
        current: () => trace.cause,
      },
      choices: {
        delay: (label, d) => choices.delay(label, d),
        fate: (label, p) => choices.fate(label, p),
      },
      bugs: { has: (id) => bugs.has(id) },
      invariants: this.invariants.registry(h),
      metrics: this.metrics.forHost(h.id),
    };
  }
}

/** @throws SimInputError naming `what` unless `fn` is a function. */
function requireFunction(fn: unknown, what: string): void {
  if (typeof fn !== 'function') {
    throw new SimInputError(`${what} must be a function, got ${describeValue(fn)}`);
  }
}

/** A short description of a bad value for a one-line message. */
function describeValue(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}
