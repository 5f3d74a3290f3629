/**
 * ExecutorSlowdowns: the sim's "slow task" fault (back pressure by a slow operator). While a
 * slowdown is active, every task cost handed to a matching executor (a task's mailbox, whose
 * step costs are the chain's per-record processing costs) is multiplied by its factor. Only
 * costs are scaled: zero-cost tasks (mails, RPC handlers) stay instant.
 *
 * Invariants: with no slowdown active, costs pass through unchanged (one boolean check); factors
 * of overlapping slowdowns multiply; scaled costs are whole microseconds.
 */
import { SimInputError } from './SimInputError.ts';

interface Slowdown {
  readonly id: number;
  readonly matches: (executorName: string) => boolean;
  readonly factor: number;
}

export class ExecutorSlowdowns {
  private active: Slowdown[] = [];
  private nextId = 0;

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
    return () => {
      this.active = this.active.filter((s) => s.id !== id);
    };
  }

  /** The cost of a task of `executorName` under the active slowdowns, whole µs. */
  scale(executorName: string, costUs: number): number {
    let factor = 1;
    for (const s of this.active) if (s.matches(executorName)) factor *= s.factor;
    return factor === 1 ? costUs : Math.round(costUs * factor);
  }
}
