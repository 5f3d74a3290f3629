/**
 * Partitions: which directed host pairs are cut. A symmetric partition cuts both directions, a
 * one-way partition only `from -> to`. Each direction has an epoch that grows whenever a cut
 * starts, so a message or connection can tell whether a cut began while it was in flight.
 * Partitions cut RPC and data connections only, never the durable stores.
 */

/** The state of one direction between two hosts. */
export interface Direction {
  cut: boolean;
  /** The `seq` of the `net.partition` event of the current (or last) cut; -1 before any. */
  cause: number;
  /** Number of cuts that have started on this direction. */
  epoch: number;
}

export class Partitions {
  private readonly directions = new Map<string, Direction>();
  private active = 0;

  /** The state object of `from -> to` (created on first use; stable for the run). */
  direction(from: string, to: string): Direction {
    const key = `${from}\u0000${to}`;
    let d = this.directions.get(key);
    if (d === undefined) {
      d = { cut: false, epoch: 0, cause: -1 };
      this.directions.set(key, d);
    }
    return d;
  }

  /** True if any cut is active (a fast path for the common case). */
  get any(): boolean {
    return this.active > 0;
  }

  /** True if `from -> to` is cut now. */
  isCut(from: string, to: string): boolean {
    return this.active > 0 && from !== to && this.direction(from, to).cut;
  }

  /** Cuts `from -> to`; returns false if it was cut already. */
  cut(from: string, to: string): boolean {
    const d = this.direction(from, to);
    if (d.cut) return false;
    d.cut = true;
    d.epoch++;
    this.active++;
    return true;
  }

  /** Heals `from -> to`; returns false if it was not cut. */
  heal(from: string, to: string): boolean {
    const d = this.direction(from, to);
    if (!d.cut) return false;
    d.cut = false;
    this.active--;
    return true;
  }

  /** Every cut direction as [from, to], in first-use order. */
  cutDirections(): [string, string][] {
    const out: [string, string][] = [];
    for (const [key, d] of this.directions) {
      if (!d.cut) continue;
      const [from = '', to = ''] = key.split('\u0000');
      out.push([from, to]);
    }
    return out;
  }
}
