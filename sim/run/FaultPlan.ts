/**
 * FaultPlan: installs a RunSpec's action faults on a booted MiniCluster (the world-setting
 * faults are in faultWorldOptions.ts) and ends every fault at the heal time.
 *
 * Triggers: `{ atMs }` fires through `world.at` (before engine events of that instant);
 * `{ at: point }` fires once, through `world.onTrace`, right after the task that recorded the
 * point's trace event, before any other event. A point reached at or after the heal time fires
 * nothing (logged as `skipped`). Protocol points match these trace events:
 *
 * | point | trace event (attrs) |
 * |---|---|
 * | task triggered | `checkpoint.taskTriggered` (sources: the trigger RPC arrived) |
 * | task first-barrier | `checkpoint.firstBarrier` (tasks with inputs) |
 * | task aligned | `checkpoint.aligned` (every input delivered the barrier) |
 * | task sync-done | `checkpoint.syncDone` |
 * | task async-done | `checkpoint.asyncDone` (state files written) |
 * | task acked | `checkpoint.acked` (acknowledgement sent) |
 * | task ack-received | `checkpoint.acknowledged` (the coordinator handled the task's ack, any result) |
 * | task notified | `checkpoint.taskNotified` (the task received the completion notification) |
 * | jobmaster triggered | `checkpoint.triggered` |
 * | jobmaster coordinators-snapshotted | `checkpoint.coordinatorsSnapshotted` |
 * | jobmaster acknowledged | the `checkpoint.acknowledged` of the last task its `checkpoint.plan` waits for (FullyAcknowledged.ts) |
 * | jobmaster completed | `checkpoint.completed` |
 * | jobmaster notified | `checkpoint.notifiedComplete` |
 * | sink pre-committed | the n-th `txn.preCommit` of the transactional store |
 * | sink committed | the n-th `txn.commit` of the transactional store |
 * | restore | the n-th `checkpoint.restored` with a checkpoint id > 0 (of `checkpoint` when given) |
 * | job | the n-th `job.status` with that `status` |
 * | execution | the n-th `task.<state>` (`task.finished`, ...) of the named task's attempts (any task's when none) |
 *
 * A task or jobmaster point may name a savepoint instead of a checkpoint id (`savepoint: n`, the
 * n-th action that triggers a savepoint): it waits for the same events, of the id that action's
 * savepoint got, read from the `origin` of its `checkpoint.triggered` event (savepointPoints.ts).
 *
 * A restore point counts restores from a checkpoint only: a failover before any checkpoint
 * completed records `checkpoint.restored` with checkpoint id 0 (NO_CHECKPOINT), a restart from
 * nothing, which Flink's CheckpointCoordinator does not count as a restore either (it returns no
 * restored checkpoint id), and which `RunResult.restores` does not count.
 *
 * Message faults (`type: 'message'`) are armed at time 0, or when their `when` fires (which by
 * itself is not firing: nothing is logged), in sim/MessageFaults.ts; the fault fires when it acts
 * on a message, logged `lose`, `delay` or `hold` with a `fault` event that also carries the
 * message's trace `id`, `method`, and the `checkpoint` and task `attempt` it names when it does
 * (the storage oracle reads them), and `release` when a held message goes on. One that never
 * acted is unfired. Arming after a point sees only the messages sent after the task that reached
 * it: the confirmations of checkpoint n go out in the task that completes n, so a fault armed at
 * `checkpoint n completed` first sees those of n + 1 (aim at n with `checkpoint: n` instead).
 *
 * A crash or pause may name a task `<vertex>#<subtask>` as its host: it acts on the TaskManager
 * that subtask was last deployed to (its `task.deploying` event's host) when the fault fires, and
 * is logged `skipped` (and stays unfired) when the subtask was never deployed by then.
 *
 * Channel-event faults (`type: 'channel-event'`) are armed like message faults, in
 * sim/ChannelEventFaults.ts; one fires when it delays its event, logged `delay` with a `fault`
 * event carrying the `event`, its `checkpoint`, the channel's task attempts `from` and `to` and
 * the `releaseUs` (mark `channel-event-delayed`); the delayed event's delivery has that `fault`
 * event as its cause. One that never met its event before the heal time is unfired.
 *
 * Task events carry `{ checkpointId, task }` with `task` an attempt id
 * `<vertex>#<subtask>@<attempt>`; a point's `task` matches any attempt of that subtask.
 *
 * Every fault action records a `fault` event on host `sim` (`{ index, type, action }`) and a
 * mark: `crash` and `partition` (the World's), `pause`, `global-failure`, `slow-task`,
 * `coordinator-stall` (logged `stall`, then `end` when its work has run or the heal time cut it); the
 * world-setting faults record `start` and `end` events, and the World marks each injected
 * occurrence (`rpc-lost`, `store-failed`, `store-unknown-outcome`, `async-snapshot-failed`) or,
 * for slowness, the fault once (`rpc-delay`, `slow-store`).
 *
 * Invariants: each fault fires at most once; at the heal time every crashed host restarts,
 * every paused host resumes, every partition heals, every slow task ends and every coordinator
 * stall's work ends; a fault's own end
 * (after `downMs` or `durationMs`) applies only if no later fault of the same kind on the same
 * host (or pair) started since (the later one takes over the end). A crash of a host that is
 * already down, a pause of a paused host and so on change nothing but the end time.
 */
import type { FaultWorldOptions } from './faultWorldOptions.ts';
import { jobRun, rpcMethodNamed } from '../../engine/index.ts';
import type { ChannelEventActed } from '../ChannelEventFaults.ts';
import type { MessageActed, MessageAction, MessageEnd } from '../MessageFaults.ts';
import type { MiniCluster } from '../MiniCluster.ts';
import type { World } from '../World.ts';
import type { Action, ChannelEventFault, Fault, FaultTrigger, MessageFault } from './RunSpec.ts';
import { whenPointReached } from './whenPointReached.ts';
import { TASK_NAME } from './validateFaults.ts';

/** One entry of the fault log (what fired, when). */
export interface FaultRecord {
  /** Index in `faults`. */
  readonly fault: number;
  readonly type: Fault['type'];
  /**
   * `crash`, `restart`, `pause`, `resume`, `partition`, `heal`, `global-failure`, `slow`, `stall`,
   * `start`, `end`, `skipped`; for message faults `lose`, `delay`, `hold`, `release`.
   */
  readonly action: string;
  readonly timeMs: number;
}

/** An action fault (one that fires, or stays unfired): a triggered, message or channel-event fault. */
function isAction(f: Fault): boolean {
  return 'when' in f || f.type === 'message' || f.type === 'channel-event';
}

/** The mark each action of a message fault records. */
const MESSAGE_MARKS: Readonly<Record<string, string>> = {
  lose: 'message-lost', delay: 'message-delayed', hold: 'message-held',
};

/** A fault that is on until its end runs (at its own end time or at the heal time). */
interface Episode {
  readonly index: number;
  /** The log action of the end (`restart`, `resume`, `heal`, `end`). */
  readonly endAction: string;
  readonly end: () => void;
}

export class FaultPlan {
  private readonly world: World;
  private readonly records: FaultRecord[] = [];
  /** Faults that fired (did something). */
  private readonly fired = new Set<number>();
  /**
   * The current episode per key (`crash:<host>`, `pause:<host>`, `partition:<a>|<b>`,
   * `slow:<index>`); a later fault of the same key supersedes it (and takes over its end).
   */
  private readonly open = new Map<string, Episode>();
  /** The releases of held messages that go on at the heal time (logged there). */
  private readonly releasesAtHeal: (() => void)[] = [];
  /** The TaskManager each subtask `<vertex>#<subtask>` was last deployed to (followTaskHosts). */
  private readonly taskHosts = new Map<string, string>();

  /**
   * @param faults the spec's faults (validated).
   * @param cluster a booted cluster (nothing has run yet).
   * @param healTimeUs the heal time, whole µs.
   * @param actions the spec's actions (validated), which points naming a savepoint count.
   */
  constructor(
    private readonly faults: readonly Fault[],
    private readonly cluster: MiniCluster,
    private readonly healTimeUs: number,
    private readonly actions: readonly Action[],
    /**
     * The ids targeted world settings met so far (faultWorldOptions' `touched`); read at the heal
     * time, when those faults end. Absent: every setting counts as acting.
     */
    private readonly touched?: FaultWorldOptions['touched'],
  ) {
    this.world = cluster.world;
  }

  /** What fired so far, in order. */
  get log(): readonly FaultRecord[] {
    return this.records;
  }

  /**
   * Indices of triggered faults and message faults that never fired: their point was never
   * reached, or only at or after the heal time, when faults no longer fire (logged `skipped`),
   * or a message fault never met its message before the heal time. Either way they did nothing
   * in this run, which must be shown, never passed off as a fault that was tested.
   */
  unfired(): number[] {
    // Before the heal time (a run that ended first), what the settings met so far is final.
    if (!this.healed) this.noteUntouched();
    return this.faults.flatMap((f, i) => ((isAction(f) && !this.fired.has(i)) || this.untouched.has(i) ? [i] : []));
  }

  /** Records the targeted world settings no operation of their checkpoint has met (so far). */
  private noteUntouched(): void {
    this.faults.forEach((f, i) => {
      const targeted = (f.type === 'slow-store' || f.type === 'async-snapshot-failure') ? f.checkpoint : undefined;
      const met = f.type === 'slow-store' ? this.touched?.slowStore : this.touched?.asyncSnapshotFailure;
      if (targeted !== undefined && met !== undefined && !met.has(targeted)) this.untouched.add(i);
    });
  }

  private healed = false;

  /**
   * World settings aimed at one checkpoint (`slow-store`, `async-snapshot-failure` with
   * `checkpoint`) that no operation of that checkpoint met before the heal time: in force, but
   * they never acted (a savepoint got another id than the one named, the checkpoint never came).
   */
  private readonly untouched = new Set<number>();

  /**
   * `f`, a crash or pause naming a task `<vertex>#<subtask>` as its host, aimed at the
   * TaskManager that subtask was last deployed to (any job run), or undefined when it never was;
   * any other fault as it is.
   */
  private withTaskHost(f: Fault): Fault | undefined {
    if ((f.type !== 'crash' && f.type !== 'pause') || !TASK_NAME.test(f.host)) return f;
    const host = this.taskHosts.get(f.host);
    return host === undefined ? undefined : { ...f, host };
  }

  /** Follows where each subtask is deployed, when a crash or pause names a task as its host. */
  private followTaskHosts(): void {
    if (!this.faults.some((f) => (f.type === 'crash' || f.type === 'pause') && TASK_NAME.test(f.host))) return;
    this.world.onTrace(() => true, (e) => {
      // `task` is an attempt id, `<vertex>#<subtask>@<attempt>`, recorded on the TaskManager's host.
      const attempt = String(e.attrs['task']);
      this.taskHosts.set(attempt.slice(0, attempt.lastIndexOf('@')), e.host);
    }, { types: ['task.deploying'] });
  }

  /** Schedules every fault and the heal. Call once, before the run. */
  install(): void {
    this.followTaskHosts();
    const settings: number[] = [];
    this.faults.forEach((f, i) => {
      if (f.type === 'message' && f.when === undefined) this.armMessage(i, f);
      else if (f.type === 'channel-event' && f.when === undefined) this.armChannelEvent(i, f);
      else if ('when' in f && f.when !== undefined) this.arm(i, f.when);
      else settings.push(i);
    });
    // World-setting faults are in force from the start (the World already holds them); their
    // start is logged by one action in index order rather than one action each, so how many
    // there are decides no order among ties at time 0: several faults of one kind and their
    // combination run alike (which is what lets a repro merge them, explore's canonicalFaults).
    if (settings.length > 0) {
      this.world.at(0, 'faults: settings', () => {
        for (const i of settings) this.startSetting(i, this.faults[i] as Fault);
      });
    }
    this.world.at(this.healTimeUs, 'heal', () => this.heal());
  }

  private arm(index: number, when: FaultTrigger): void {
    const fault = this.faults[index] as Fault;
    if ('atMs' in when) {
      this.world.at(Math.round(when.atMs * 1000), `fault[${index}] ${fault.type}`, () => this.fire(index));
      return;
    }
    whenPointReached(this.cluster, when.at, `fault[${index}] ${fault.type}`, () => {
      if (this.world.nowUs >= this.healTimeUs) this.note(index, 'skipped');
      else this.fire(index);
    }, this.actions);
  }

  private fire(index: number): void {
    const fault = this.faults[index] as Fault;
    if (fault.type === 'message') {
      // Its trigger arms it; it fires when it acts on a message.
      this.armMessage(index, fault);
      return;
    }
    const f = this.withTaskHost(fault);
    if (f === undefined) {
      // A crash or pause of a task's host, a task never deployed yet: nothing to act on.
      this.note(index, 'skipped');
      return;
    }
    if (f.type === 'channel-event') {
      this.armChannelEvent(index, f);
      return;
    }
    this.fired.add(index);
    switch (f.type) {
      case 'crash':
        this.note(index, 'crash');
        this.world.crash(f.host);
        this.startEpisode(`crash:${f.host}`, { index, endAction: 'restart', end: () => {
          if (!this.world.isAlive(f.host)) this.world.restart(f.host);
        } }, f.downMs);
        return;
      case 'global-failure':
        this.note(index, 'global-failure', 'global-failure');
        this.cluster.jobManagerProcess.jobMaster.scheduleGlobalFailure(`fault[${index}]: global failure`);
        return;
      case 'pause':
        this.note(index, 'pause', 'pause');
        this.world.pause(f.host);
        this.startEpisode(`pause:${f.host}`, {
          index, endAction: 'resume', end: () => this.world.resume(f.host),
        }, f.durationMs);
        return;
      case 'partition':
        this.note(index, 'partition');
        this.world.partition(f.a, f.b, { oneWay: f.oneWay === true });
        this.startEpisode(`partition:${[f.a, f.b].sort().join('|')}`, {
          index, endAction: 'heal', end: () => this.world.healPartition(f.a, f.b),
        }, f.durationMs);
        return;
      case 'slow-task':
        this.note(index, 'slow', 'slow-task');
        this.startEpisode(`slow:${index}`, {
          index, endAction: 'end', end: this.slowTask(f.operator, f.factor),
        }, f.durationMs);
        return;
      case 'coordinator-stall':
        this.note(index, 'stall', 'coordinator-stall');
        this.stallCoordinator(index, f.operator, f.durationMs);
        return;
      default:
        return;
    }
  }

  /**
   * Queues `durationMs` of enumerator work on the coordinator thread of source `operatorUid`
   * (absent: the first source) of the current job run: one task that keeps the thread busy, so
   * everything queued behind it waits (SourceCoordinatorContext's single thread). It is logged
   * `end` when it has run, or at the heal time, which cuts it short if it is still running (or
   * still queued: then it takes a microsecond).
   */
  private stallCoordinator(index: number, operatorUid: string | undefined, durationMs: number): void {
    const holders = this.cluster.jobManagerProcess.jobMaster.coordinators;
    const holder = operatorUid === undefined ? holders[0] : holders.find((h) => h.operatorUid === operatorUid);
    if (holder === undefined) return; // validated: every job has a source, and the uid is one
    const key = `stall:${index}`;
    const done = (): void => {
      const episode = this.open.get(key);
      if (episode !== undefined) this.endEpisode(key, episode);
    };
    const executor = holder.coordinatorExecutor;
    const durationUs = Math.round(durationMs * 1000);
    if (durationUs === 0) {
      this.open.set(key, { index, endAction: 'end', end: () => undefined });
      executor.execute('coordinator-stall', done);
      return;
    }
    // Paid a microsecond at a time, so the heal time can cut it exactly.
    const work = executor.executePreemptible('coordinator-stall', 1, durationUs, done);
    this.open.set(key, { index, endAction: 'end', end: () => work.preempt() });
  }

  /**
   * Makes `episode` the current one of `key` and schedules its end after `durationMs` (or at
   * the heal time, whichever comes first; absent: at the heal time).
   */
  private startEpisode(key: string, episode: Episode, durationMs: number | undefined): void {
    this.open.set(key, episode);
    const endUs = durationMs === undefined ? this.healTimeUs
      : Math.min(this.world.nowUs + Math.round(durationMs * 1000), this.healTimeUs);
    if (endUs >= this.healTimeUs) return;
    this.world.at(endUs, `fault[${episode.index}] ${episode.endAction}`, () => {
      if (this.open.get(key) === episode) this.endEpisode(key, episode);
    });
  }

  private endEpisode(key: string, episode: Episode): void {
    this.open.delete(key);
    this.note(episode.index, episode.endAction);
    episode.end();
  }

  /** Slows every subtask of the vertex that runs `operatorUid`; returns the end function. */
  private slowTask(operatorUid: string, factor: number): () => void {
    const vertices = this.cluster.jobManagerProcess.jobMaster.graph.jobGraph.vertices;
    const vertex = vertices.find((v) => v.operators.some((op) => op.uid === operatorUid));
    if (vertex === undefined) return () => {};
    const mailbox = `/mailbox/${vertex.id}#`;
    return this.world.slowdowns.add((name) => name.includes(mailbox), factor);
  }

  /**
   * Arms message fault `index` in the World's MessageFaults: from now on it counts matching
   * messages; when it acts it fires and is logged (a hold's release too, at its release time).
   */
  private armMessage(index: number, f: MessageFault): void {
    const end = (s: string | undefined): MessageEnd | undefined =>
      (s === undefined ? undefined : TASK_NAME.test(s) ? { task: s } : { host: s });
    const from = end(f.from);
    const to = end(f.to);
    const action: MessageAction = f.action === 'lose' ? { action: 'lose' }
      : f.action === 'delay' ? { action: 'delay', delayUs: Math.round((f.delayMs ?? 0) * 1000) }
        : { action: 'hold', ...(f.durationMs === undefined ? {} : { durationUs: Math.round(f.durationMs * 1000) }) };
    const filter = {
      // Validated: the method is known (an alias resolved here).
      method: rpcMethodNamed(f.method) ?? f.method, nth: f.nth ?? 1,
      ...(f.checkpoint === undefined ? {} : { checkpoint: f.checkpoint }),
      // A later job run numbers on from the checkpoint it restored, so an id can recur across runs: a filter naming one is about run 1 unless it says.
      ...(f.jobRun === undefined && f.checkpoint === undefined ? {} : { jobMasterAddress: jobRun(f.jobRun ?? 1, 0).address }),
      ...(from === undefined ? {} : { from }),
      ...(to === undefined ? {} : { to }),
    };
    this.world.messageFaults.arm(filter, action, (acted) => {
      this.fired.add(index);
      this.noteMessage(index, acted.action, acted);
      const releaseUs = acted.releaseUs;
      if (releaseUs === undefined) return;
      if (releaseUs < this.healTimeUs) {
        this.world.at(releaseUs, `fault[${index}] release`, () => this.noteMessage(index, 'release', acted));
      } else {
        this.releasesAtHeal.push(() => this.noteMessage(index, 'release', acted));
      }
    });
  }

  /** Logs an action of a message fault, with the message it acted on. */
  private noteMessage(index: number, action: string, m: MessageActed): void {
    this.records.push({ fault: index, type: 'message', action, timeMs: this.world.nowUs / 1000 });
    this.world.trace.record('sim', 'fault', {
      index, type: 'message', action, id: m.id, method: m.method,
      ...(m.checkpoint === undefined ? {} : { checkpoint: m.checkpoint }),
      ...(m.attempt === undefined ? {} : { attempt: m.attempt }),
    });
    const mark = MESSAGE_MARKS[action];
    if (mark !== undefined) this.world.trace.mark('sim', mark, { index });
  }

  /**
   * Arms channel-event fault `index` in the World's ChannelEventFaults: from now on it counts
   * matching events; when it delays one it fires and is logged.
   */
  private armChannelEvent(index: number, f: ChannelEventFault): void {
    // A later job run numbers on from the checkpoint it restored, so an id can recur across runs: a filter naming one is about run 1 unless it says.
    const run = f.jobRun ?? (f.checkpoint === undefined ? undefined : 1);
    const filter = {
      event: f.event, to: f.to, nth: f.nth ?? 1,
      ...(f.checkpoint === undefined ? {} : { checkpoint: f.checkpoint }),
      ...(f.from === undefined ? {} : { from: f.from }),
      ...(run === undefined ? {} : { inRun: (attempt: string) => this.jobRunOfAttempt(attempt) === run }),
    };
    this.world.channelEventFaults.arm(filter, Math.round(f.delayMs * 1000), (acted: ChannelEventActed) => {
      this.fired.add(index);
      this.records.push({ fault: index, type: 'channel-event', action: 'delay', timeMs: this.world.nowUs / 1000 });
      this.world.trace.record('sim', 'fault', {
        index, type: 'channel-event', action: 'delay', event: acted.event, checkpoint: acted.checkpoint,
        from: acted.from, to: acted.to, releaseUs: acted.releaseUs,
      });
      this.world.trace.mark('sim', 'channel-event-delayed', { index });
    });
  }

  /** The job run (1, 2, ...) whose attempts include `attempt` (`<vertex>#<subtask>@<n>`). */
  private jobRunOfAttempt(attempt: string): number {
    const n = Number(attempt.slice(attempt.lastIndexOf('@') + 1));
    let run = 1;
    for (const jm of this.cluster.jobMasters) if (jm.run.firstAttemptNumber <= n) run = jm.run.index;
    return run;
  }

  /** A world-setting fault starts (its settings are in the World already). */
  private startSetting(index: number, f: Fault): void {
    this.fired.add(index);
    const mark = f.type === 'rpc-delay' || f.type === 'slow-store' ? f.type : undefined;
    const seq = this.note(index, 'start', mark);
    // What the sim decides by chance under this fault is its doing (Trace.ts, cause links); of
    // several faults of one type, the first one's start stands for them all.
    if (!this.world.trace.settingFaults.has(f.type)) this.world.trace.settingFaults.set(f.type, seq);
  }

  /**
   * The heal time: every fault ends. Open episodes end first (logged); then, whatever caused
   * them, every partition heals, every paused host resumes and every crashed host restarts.
   */
  private heal(): void {
    this.faults.forEach((f, i) => {
      if (!isAction(f)) this.note(i, 'end');
    });
    this.noteUntouched();
    this.healed = true;
    for (const release of this.releasesAtHeal.splice(0)) release();
    for (const [key, episode] of [...this.open]) this.endEpisode(key, episode);
    this.world.healAllPartitions();
    for (const host of this.world.hostIds) {
      this.world.resume(host);
      if (!this.world.isAlive(host)) this.world.restart(host);
    }
  }

  /** Logs an action of fault `index` (and its mark); returns the `seq` of its `fault` event. */
  private note(index: number, action: string, mark?: string): number {
    const f = this.faults[index] as Fault;
    this.records.push({ fault: index, type: f.type, action, timeMs: this.world.nowUs / 1000 });
    const seq = this.world.trace.record('sim', 'fault', { index, type: f.type, action });
    if (mark !== undefined) this.world.trace.mark('sim', mark, { index });
    return seq;
  }
}
