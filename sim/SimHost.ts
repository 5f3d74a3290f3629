/**
 * SimHost: one simulated process (the JobManager or a TaskManager) and its executors.
 *
 * A host has an incarnation number that grows at each restart. A crash kills the incarnation's
 * executors (with their queued tasks) and pending timers at once; work handed to a dead executor
 * is dropped silently. A paused host runs nothing: its executors park until it resumes, and work
 * that arrives meanwhile (timers, messages) waits in their queues.
 */
import { assert } from '../engine/api/index.ts';
import type { Executor, ExecutorFactory, HostId } from '../engine/api/index.ts';
import type { SimContext } from './SimContext.ts';
import { SimExecutor } from './SimExecutor.ts';
import { SimExecutorPool } from './SimExecutorPool.ts';
import { SimTimer } from './SimTimer.ts';
import { stringHash } from './TraceHash.ts';

export class SimHost {
  /** Grows at each restart; the first boot is incarnation 1. */
  incarnation = 0;
  alive = false;
  /** The `seq` of the `host.crash` event of its last crash; -1 before any (Trace.ts, cause links). */
  crashedBy = -1;
  paused = false;
  /** The `seq` of the `host.pause` event of its current pause; -1 when not paused. */
  pausedBy = -1;
  /** Live executors of the current incarnation, in creation order (pool workers too). */
  executors = new Map<string, SimExecutor>();
  /** Live pools of the current incarnation, by local name. */
  pools = new Map<string, SimExecutorPool>();
  /** The string hash of `id`, for recording this host's events ({@link Trace.recordOn}). */
  readonly idHash: number;

  constructor(
    private readonly ctx: SimContext,
    readonly id: HostId,
  ) {
    this.idHash = stringHash(id);
  }

  /** Starts a new incarnation (after a crash, or the first boot). */
  start(): void {
    this.incarnation++;
    this.alive = true;
    this.paused = false;
    this.pausedBy = -1;
  }

  /** Kills the current incarnation's executors and timers. */
  kill(): void {
    this.alive = false;
    for (const e of this.executors.values()) e.kill();
    this.executors = new Map();
    for (const p of this.pools.values()) p.kill();
    this.pools = new Map();
    // A timer is queued exactly while pending, so the queue holds every pending timer: finding
    // them there at a crash is cheaper than adding and deleting each timer in a set of the host
    // (the set's per-object hashing cost about 1% of a run). The order they leave the queue in
    // does not matter: the queue's order depends on the entries' keys only.
    for (const e of this.ctx.queue.entries()) {
      if (e instanceof SimTimer && e.host === this) e.kill();
    }
  }

  /** Pauses the host: executors park at their next event. `by`: the `host.pause` event. */
  pause(by = -1): void {
    this.paused = true;
    this.pausedBy = by;
  }

  /** Resumes the host: parked executors with work are queued again at the current time. */
  resume(): void {
    this.paused = false;
    this.pausedBy = -1;
    for (const e of this.executors.values()) e.unpark();
  }

  /** The executor factory of the current incarnation (dead executors once it crashed). */
  executorFactory(): ExecutorFactory {
    const incarnation = this.incarnation;
    const live = (): boolean => this.alive && this.incarnation === incarnation;
    const get = (name: string): SimExecutor => {
      if (!live()) {
        const dead = new SimExecutor(this.ctx, this, name);
        dead.kill();
        return dead;
      }
      let e = this.executors.get(name);
      if (e === undefined) {
        e = new SimExecutor(this.ctx, this, name);
        this.executors.set(name, e);
      }
      return e;
    };
    return {
      get,
      pool: (name: string, size: number): Executor => {
        assert(Number.isInteger(size) && size >= 1, () => `pool ${name}: size must be a positive integer, got ${size}`);
        let p = live() ? this.pools.get(name) : undefined;
        if (p !== undefined) {
          assert(p.size === size, () => `pool ${name} exists with ${p?.size} workers, asked for ${size}`);
          return p;
        }
        const workers = Array.from({ length: size }, (_x, i) => get(`${name}-${i + 1}`));
        p = new SimExecutorPool(this.ctx, this, name, workers);
        if (live()) this.pools.set(name, p);
        else p.kill();
        return p;
      },
    };
  }
}
