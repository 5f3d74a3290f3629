/**
 * Sends heartbeat requests to monitored targets every interval and declares a target lost when
 * no answer came within the timeout. Runs on the owner's main thread.
 *
 * @see org.apache.flink.runtime.heartbeat.HeartbeatManagerSenderImpl, HeartbeatMonitorImpl
 * Invariant: a target is reported lost at most once per monitoring.
 */
import type { Cancellable, Executor } from '../api/Executor.ts';
import type { Clock } from '../api/Clock.ts';
import type { RpcAddress } from '../api/ids.ts';

export interface HeartbeatManagerOptions {
  readonly clock: Clock;
  readonly executor: Executor;
  readonly intervalUs: number;
  readonly timeoutUs: number;
  /** Sends one heartbeat request to `target`. */
  readonly requestHeartbeat: (target: RpcAddress) => void;
  /** `target` missed its heartbeats for longer than the timeout. */
  readonly onTimeout: (target: RpcAddress) => void;
}

export class HeartbeatManager {
  private readonly lastSeenUs = new Map<RpcAddress, number>();
  private timer: Cancellable | undefined;
  /** The tick as a task, made once. */
  private readonly tickTask = (): void => this.tick();

  constructor(private readonly o: HeartbeatManagerOptions) {}

  /** Starts the periodic requests. */
  start(): void {
    if (this.timer !== undefined) return;
    this.tick();
  }

  /** Stops all monitoring. */
  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.lastSeenUs.clear();
  }

  /** Begins monitoring `target` as of now. */
  monitor(target: RpcAddress): void {
    this.lastSeenUs.set(target, this.o.clock.nowUs());
  }

  /** Stops monitoring `target`. */
  unmonitor(target: RpcAddress): void {
    this.lastSeenUs.delete(target);
  }

  /** `target` answered. Unknown targets are ignored. */
  receiveHeartbeat(target: RpcAddress): void {
    if (this.lastSeenUs.has(target)) this.lastSeenUs.set(target, this.o.clock.nowUs());
  }

  isMonitoring(target: RpcAddress): boolean {
    return this.lastSeenUs.has(target);
  }

  private tick(): void {
    const now = this.o.clock.nowUs();
    const timeoutUs = this.o.timeoutUs;
    let anyTimedOut = false;
    for (const seen of this.lastSeenUs.values()) {
      if (now - seen > timeoutUs) {
        anyTimedOut = true;
        break;
      }
    }
    if (anyTimedOut) {
      // onTimeout may change the map, so such a round works on a copy of it.
      for (const [target, seen] of [...this.lastSeenUs]) {
        if (now - seen > timeoutUs) {
          this.lastSeenUs.delete(target);
          this.o.onTimeout(target);
        } else {
          this.o.requestHeartbeat(target);
        }
      }
    } else {
      // Sending a request only queues a message, so the map stays as it is: no copy needed
      // (this is the round of almost every tick).
      for (const target of this.lastSeenUs.keys()) this.o.requestHeartbeat(target);
    }
    this.timer = this.o.executor.schedule('heartbeat', this.o.intervalUs, this.tickTask);
  }
}
