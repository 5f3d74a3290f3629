/**
 * The periodic trigger on the coordinator timer: the first firing after a random delay in
 * [minPause, interval] (a delay decision), then at a fixed rate (next due = previous due +
 * interval, independent of completions); `rescheduleTrigger` re-bases the rhythm after a
 * min-pause drop. Each firing re-arms first, then submits a periodic request.
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointCoordinator.ScheduledTrigger,
 *      startCheckpointScheduler, getRandomInitDelay, rescheduleTrigger (reference 1.2)
 * Invariants: at most one armed timer; a stopped scheduler has none.
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { Cancellable, Executor } from '../api/Executor.ts';
import { assert } from '../util/assert.ts';

export class PeriodicCheckpointScheduler {
  private timer: Cancellable | undefined;
  private nextDueUs = 0;
  /** Bumped whenever the timer is replaced, so a replaced firing does nothing. */
  private generation = 0;

  constructor(
    private readonly env: EngineEnv,
    private readonly timerExecutor: Executor,
    private readonly intervalUs: number,
    private readonly minPauseUs: number,
    private readonly fire: () => void,
  ) {}

  get isRunning(): boolean {
    return this.timer !== undefined;
  }

  /** Arms the first firing after a random delay in [minPause, interval], µs. */
  start(): void {
    const lo = Math.min(this.minPauseUs, this.intervalUs);
    const delay = this.env.choices.delay('checkpoint-initial-delay',
      { minUs: lo, medianUs: Math.floor((lo + this.intervalUs) / 2), maxUs: this.intervalUs });
    // The "slow" alternative is ten times the maximum; the initial delay stays in range.
    this.arm(Math.max(lo, Math.min(this.intervalUs, Math.round(delay))));
  }

  /** Cancels the timer. */
  stop(): void {
    this.generation++;
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** Re-bases the rhythm: fire after `delayUs`, then every interval from there. */
  rescheduleTrigger(delayUs: number): void {
    if (this.timer === undefined) return;
    this.arm(Math.max(0, Math.ceil(delayUs)));
  }

  private arm(delayUs: number): void {
    this.stop();
    const generation = this.generation;
    this.nextDueUs = this.env.clock.nowUs() + delayUs;
    this.timer = this.timerExecutor.schedule('checkpoint-periodic-trigger', delayUs, () => this.run(generation));
  }

  private run(generation: number): void {
    if (generation !== this.generation) return;
    this.nextDueUs += this.intervalUs;
    const delayUs = Math.max(0, this.nextDueUs - this.env.clock.nowUs());
    this.timer = this.timerExecutor.schedule('checkpoint-periodic-trigger', delayUs, () => this.run(generation));
    this.fire();
  }

  checkInvariants(): void {
    if (this.timer !== undefined) assert(this.nextDueUs >= 0, 'negative due time');
  }
}
