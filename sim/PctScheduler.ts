/**
 * PctScheduler: PCT-style priority scheduling of the order decisions (Burckhardt, Kothari,
 * Musuvathi, Nagarakatte, "A Randomized Scheduler with Probabilistic Guarantees of Finding
 * Bugs", ASPLOS 2010), adapted to a discrete-event world: only events due at the same instant
 * compete, so the schedule ranks the ready candidates of an order decision and never moves an
 * event in virtual time (the timing model is untouched).
 *
 * The unit that holds a priority is the queue's *lane* (QueueEntry.laneKey): an executor (one
 * Flink thread), one direction of an RPC link (the ordered connection between two endpoints,
 * whose messages the network may deliver before or after another link's), one direction of a
 * data connection (one input channel), the timers of one kind on one thread, the object store's
 * answers to one thread, and each sim action. Why lanes and not single events: PCT's power comes
 * from a *consistent* bias, one thread kept behind another across many steps until a change
 * point, which exposes orders such as "every ack of TaskManager 1 before any of TaskManager 2's"
 * that independent coin flips at each tie make exponentially unlikely. Why lanes and not hosts:
 * the races the model exists to find are between threads of one host as much as between hosts
 * (the checkpoint timer's canceller against an ack on the io pool, a mail against the async
 * snapshot thread), and every event already belongs to exactly one lane.
 *
 * Priorities: a lane gets one uniform draw from the `pct` stream of the world seed the first time
 * it is a candidate (candidates in seq order, so the draw order is deterministic); the candidate
 * of highest priority runs, and among candidates of one lane (two timers of a kind) the earliest.
 * Change points are order-decision indices (counting order decisions only, from 0): at the i-th
 * of k, the lane chosen there drops below every other lane, the first one lowest (priority
 * i - k, below every draw in [0, 1)), as PCT lowers the running thread to priority i.
 *
 * Overrides of a decision win over the schedule (ChoiceSource.order), and a change point still
 * drops the lane that ran there.
 *
 * Invariants: the same seed, change points and event sequence give the same choices; a lane's
 * priority changes only at a change point.
 */
import type { QueueEntry, TieCandidates } from './EventQueue.ts';
import type { RandomStream } from './RandomStreams.ts';
import { SimInputError } from './SimInputError.ts';

/** The most change points a schedule may have (the arbitrary draws 1..3). */
export const MAX_PCT_CHANGE_POINTS = 16;

/** What a run's PCT schedule is made of (besides the world seed). */
export interface PctOptions {
  /** Order-decision indices, ascending and distinct, at most {@link MAX_PCT_CHANGE_POINTS}. */
  readonly changePoints: readonly number[];
}

/** What the schedule did in a run, for reports and measurements. */
export interface PctReport {
  readonly changePoints: readonly number[];
  /** Change points the run never reached (it made fewer order decisions). */
  readonly unusedChangePoints: readonly number[];
  /** Lanes that were candidates at least once (and so got a priority). */
  readonly lanes: number;
}

/**
 * Checks a PCT schedule's change points.
 * @throws SimInputError naming the first problem.
 */
export function validatePctOptions(o: PctOptions): void {
  const cps: unknown = (o as { changePoints?: unknown } | null)?.changePoints;
  if (!Array.isArray(cps)) {
    throw new SimInputError('pct.changePoints must be an array of order-decision indices');
  }
  if (cps.length > MAX_PCT_CHANGE_POINTS) {
    throw new SimInputError(`pct.changePoints: at most ${MAX_PCT_CHANGE_POINTS}, got ${cps.length}`);
  }
  cps.forEach((c: unknown, i) => {
    if (typeof c !== 'number' || !Number.isSafeInteger(c) || c < 0) {
      throw new SimInputError(`pct.changePoints[${i}] must be a non-negative integer`);
    }
    if (i > 0 && c <= (cps[i - 1] as number)) {
      throw new SimInputError(`pct.changePoints[${i}] must be above the one before (ascending, distinct)`);
    }
  });
}

export class PctScheduler {
  private readonly priorities = new Map<string, number>();
  private readonly changePoints: readonly number[];
  /** Order decisions taken so far (the index of the next one). */
  private decisions = 0;
  /** Index in {@link changePoints} of the next change point. */
  private next = 0;

  /**
   * @param stream the `pct` stream of the world seed, drawn once per lane.
   * @throws SimInputError for invalid options (validatePctOptions).
   */
  constructor(private readonly stream: RandomStream, options: PctOptions) {
    validatePctOptions(options);
    this.changePoints = [...options.changePoints];
  }

  /** The candidate the schedule runs: the one whose lane has the highest priority. */
  propose(n: number, ties: TieCandidates): number {
    let best = 0;
    let bestPriority = this.priorityOf(ties.candidate(0));
    for (let j = 1; j < n; j++) {
      const p = this.priorityOf(ties.candidate(j));
      // Strictly higher: among candidates of one lane the earliest (seq order) stays chosen.
      if (p > bestPriority) {
        best = j;
        bestPriority = p;
      }
    }
    return best;
  }

  /** The decision is taken and `entry` runs: at a change point its lane drops below every other. */
  taken(entry: QueueEntry): void {
    const index = this.decisions++;
    if (this.changePoints[this.next] !== index) return;
    const k = this.changePoints.length;
    this.priorities.set(entry.laneKey(), this.next - k);
    this.next++;
  }

  /** What the schedule did so far. */
  report(): PctReport {
    return {
      changePoints: this.changePoints,
      unusedChangePoints: this.changePoints.slice(this.next),
      lanes: this.priorities.size,
    };
  }

  private priorityOf(entry: QueueEntry): number {
    const key = entry.laneKey();
    let p = this.priorities.get(key);
    if (p === undefined) {
      p = this.stream();
      this.priorities.set(key, p);
    }
    return p;
  }
}
