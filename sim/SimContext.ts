/**
 * SimContext: the kernel pieces every part of the world shares (virtual clock, event queue,
 * trace, choice source, heal time). One per World; passed to constructors, never global.
 */
import type { ChoiceSource } from './ChoiceSource.ts';
import type { EventQueue } from './EventQueue.ts';
import type { ExecutorSlowdowns } from './ExecutorSlowdowns.ts';
import type { Trace } from './Trace.ts';

/** The virtual clock: the due time of the event being run, integer µs. */
export interface SimClock {
  nowUs: number;
}

export interface SimContext {
  readonly clock: SimClock;
  readonly queue: EventQueue;
  readonly trace: Trace;
  readonly choices: ChoiceSource;
  /** Fault injections (loss, store failures, slow delays) stop at this time; +Infinity: never. */
  readonly healTimeUs: number;
  /** Active "slow task" faults scaling executor task costs; absent in bare kernels. */
  readonly slowdowns?: ExecutorSlowdowns;
}
