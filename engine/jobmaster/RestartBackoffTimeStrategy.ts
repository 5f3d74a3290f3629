/**
 * Decides whether a failure may be restarted and after which delay: Flink's restart strategies
 * (none, fixed delay, exponential delay).
 *
 * @see org.apache.flink.runtime.executiongraph.failover.{NoRestartBackoffTimeStrategy,
 *      FixedDelayRestartBackoffTimeStrategy, ExponentialDelayRestartBackoffTimeStrategy}
 */
import type { RestartStrategy } from '../cluster/ClusterConfiguration.ts';

export class RestartBackoffTimeStrategy {
  private failures = 0;
  private currentDelayUs: number;

  constructor(private readonly strategy: RestartStrategy) {
    this.currentDelayUs = strategy.kind === 'exponential-delay' ? strategy.initialDelayUs : 0;
  }

  /** Records one failure (notifyFailure). */
  notifyFailure(): void {
    this.failures++;
    if (this.strategy.kind === 'exponential-delay' && this.failures > 1) {
      this.currentDelayUs = Math.min(this.strategy.maxDelayUs, Math.round(this.currentDelayUs * this.strategy.multiplier));
    }
  }

  /** True while restarts are allowed. */
  canRestart(): boolean {
    switch (this.strategy.kind) {
      case 'none':
        return false;
      case 'fixed-delay':
      case 'exponential-delay':
        return this.failures <= this.strategy.attempts;
    }
  }

  /** The delay before the next restart, µs. */
  getBackoffTimeUs(): number {
    switch (this.strategy.kind) {
      case 'none':
        return 0;
      case 'fixed-delay':
        return this.strategy.delayUs;
      case 'exponential-delay':
        return this.currentDelayUs;
    }
  }

  /** Restarts so far. */
  get failureCount(): number {
    return this.failures;
  }
}
