/**
 * ExecutorSlowdowns: the sim's "slow task" fault (back pressure by a slow operator). A slowdown
 * lowers the rate at which matching executors (a task's mailbox, whose step costs are the
 * chain's per-record processing costs) work through their task costs, by its factor, from the
 * moment it starts until the moment it ends: a cost paid partly inside a slowdown takes longer
 * only for that part. Zero-cost tasks (mails, RPC handlers) stay instant.
 *
 * Executors that pay costs register themselves ({@link register}); when a slowdown starts or
 * ends, every registered live executor it matches re-times the cost it is paying
 * ({@link RateChangeListener.rateChanged}), so work in progress speeds up again when the fault
 * ends instead of keeping a cost scaled at its start (which outlasted the heal time).
 *
 * Invariants: with no slowdown active, costs pass through unchanged (one boolean check); factors
 * of overlapping slowdowns multiply; due times are whole microseconds.
 */
import { SimInputError } from './SimInputError.ts';

/** An executor that pays task costs at a rate slowdowns change. */
export interface RateChangeListener {
  /** Full executor name, `<host>/<local name>`. */
  readonly name: string;
  /** False once the executor is dead (it is then forgotten). */
  readonly alive: boolean;
  /** The factor for this executor changed now: re-time the cost being paid. */
  rateChanged(): void;
}

interface Slowdown {
  readonly id: number;
  readonly matches: (executorName: string) => boolean;
  readonly factor: number;
}

export class ExecutorSlowdowns {
  private active: Slowdown[] = [];
  private nextId = 0;
  private readonly listeners = new Set<RateChangeListener>();

  /** True while at least one slowdown is active. */
  get any(): boolean {
    return this.active.length > 0;
  }

  /**
   * Starts a slowdown of the executors whose full name (`<host>/<local name>`, e.g.
   * `taskmanager-1/mailbox/v1#0@0`) satisfies `matches`. Returns the function that ends it.
   * @throws SimInputError if `factor` is not a finite number >= 1 or `matches` is no function.
   */
  add(matches: (executorName: string) => boolean, factor: number): () => void {
    if (typeof matches !== 'function') throw new SimInputError('slowdown: matches must be a function');
    if (typeof factor !== 'number' || !Number.isFinite(factor) || factor < 1) {
      throw new SimInputError(`slowdown: factor must be a finite number >= 1, got ${String(factor)}`);
    }
    const id = this.nextId++;
    this.active = [...this.active, { id, matches, factor }];
    this.notify(matches);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.active = this.active.filter((s) => s.id !== id);
      this.notify(matches);
    };
  }

  /** `executor` pays task costs: tell it when a slowdown matching it starts or ends. */
  register(executor: RateChangeListener): void {
    this.listeners.add(executor);
  }

  /** The product of the factors of the active slowdowns matching `executorName` (1: none). */
  factor(executorName: string): number {
    let factor = 1;
    for (const s of this.active) if (s.matches(executorName)) factor *= s.factor;
    return factor;
  }

  /** Every live registered executor that `matches` re-times its cost (registration order). */
  private notify(matches: (executorName: string) => boolean): void {
    for (const e of this.listeners) {
      if (!e.alive) this.listeners.delete(e);
      else if (matches(e.name)) e.rateChanged();
    }
  }
}
