/**
 * ChoiceSource: every nondeterministic decision of a run (DESIGN.md "decisions as data").
 *
 * Decisions are numbered 0, 1, 2, ... in the order the run makes them. Three kinds, each drawing
 * from its own named random stream (`delay`, `order`, `fate`):
 * - delay: alternatives 0 min, 1 median, 2 max, 3 slow (ten times max); the seeded value is
 *   piecewise-linear between min, median and max (so the median is the median), an integer.
 * - order: alternative j picks the j-th of n ready events.
 * - fate: alternatives 0 no, 1 yes; seeded: yes with the given probability.
 *
 * Invariants: every decision consumes exactly one draw from its stream whether or not it is
 * overridden, so an override changes only its own decision; alternatives are taken modulo the
 * number available; after the heal time an override of a delay to `slow` (3) is ignored and the
 * seeded value is used, so healed runs really heal.
 */
import { assert } from '../engine/api/index.ts';
import { harnessAssert } from './harnessAssert.ts';
import type { DelayDistribution } from '../engine/api/index.ts';
import type { RandomStream, RandomStreams } from './RandomStreams.ts';
import { SimInputError } from './SimInputError.ts';

/** One entry of a run's sparse override list. */
export interface Override {
  readonly decision: number;
  readonly alternative: number;
}

/** The kinds of decision. */
export type DecisionKind = 'delay' | 'order' | 'fate';

/** One logged decision. `value`: the delay in µs, the chosen order index, or 0/1 for a fate. */
export interface DecisionRecord {
  readonly index: number;
  readonly kind: DecisionKind;
  readonly label: string;
  readonly alternatives: number;
  readonly value: number;
  readonly overridden: boolean;
}

/** Options of {@link ChoiceSource}. */
export interface ChoiceSourceOptions {
  readonly streams: RandomStreams;
  readonly overrides?: readonly Override[];
  /** Virtual time from which delay overrides to `slow` are ignored; default never. */
  readonly healTimeUs?: number;
  /** Reads the current virtual time (for the heal rule). */
  readonly nowUs: () => number;
  /** How many decisions to keep in {@link ChoiceSource.log}; default 10,000. */
  readonly logLimit?: number;
  /** Called for every decision with its kind code (0 delay, 1 order, 2 fate) and value. */
  readonly onDecision?: (kindCode: number, value: number) => void;
}

const DELAY_ALTERNATIVES = 4;
const SLOW = 3;

/**
 * Validates a sparse override list.
 * @throws SimInputError for a non-array, non-integer or negative fields, or a repeated index.
 */
export function validateOverrides(overrides: unknown): Map<number, number> {
  if (!Array.isArray(overrides)) throw new SimInputError('overrides must be an array');
  const map = new Map<number, number>();
  overrides.forEach((o: unknown, i) => {
    const rec = o as { decision?: unknown; alternative?: unknown } | null;
    const d = rec?.decision;
    const a = rec?.alternative;
    if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 0) {
      throw new SimInputError(`overrides[${i}].decision must be a non-negative integer`);
    }
    if (typeof a !== 'number' || !Number.isSafeInteger(a) || a < 0) {
      throw new SimInputError(`overrides[${i}].alternative must be a non-negative integer`);
    }
    if (map.has(d)) throw new SimInputError(`overrides name decision ${d} twice`);
    map.set(d, a);
  });
  return map;
}

/**
 * Checks a delay distribution: finite, 0 <= min <= median <= max.
 * @throws SimInputError naming `what`.
 */
export function validateDistribution(d: DelayDistribution, what: string): void {
  const ok = d !== null && typeof d === 'object' &&
    [d.minUs, d.medianUs, d.maxUs].every((v) => typeof v === 'number' && Number.isFinite(v)) &&
    d.minUs >= 0 && d.minUs <= d.medianUs && d.medianUs <= d.maxUs;
  if (!ok) {
    throw new SimInputError(`${what} must satisfy 0 <= minUs <= medianUs <= maxUs (finite numbers)`);
  }
}

export class ChoiceSource {
  private readonly overrides: Map<number, number>;
  private readonly used = new Set<number>();
  private readonly delayStream: RandomStream;
  private readonly orderStream: RandomStream;
  private readonly fateStream: RandomStream;
  private readonly healTimeUs: number;
  private readonly nowUs: () => number;
  private readonly logLimit: number;
  private readonly onDecision: ((kindCode: number, value: number) => void) | undefined;
  private readonly records: DecisionRecord[] = [];
  private next = 0;
  private orders = 0;
  private ordersProposedOtherwise = 0;
  private slow = false;

  /** @throws SimInputError for a malformed override list or heal time. */
  constructor(options: ChoiceSourceOptions) {
    this.overrides = validateOverrides(options.overrides ?? []);
    this.delayStream = options.streams.stream('delay');
    this.orderStream = options.streams.stream('order');
    this.fateStream = options.streams.stream('fate');
    this.healTimeUs = options.healTimeUs ?? Number.POSITIVE_INFINITY;
    this.nowUs = options.nowUs;
    this.logLimit = options.logLimit ?? 10_000;
    this.onDecision = options.onDecision;
  }

  /**
   * Whether the latest delay decision was overridden to `slow` (ten times the maximum): the
   * world records such a delay where it is used, so that what it made late has a cause (Trace.ts).
   */
  get lastDelaySlow(): boolean {
    return this.slow;
  }

  /** How many decisions the run has made so far. */
  get count(): number {
    return this.next;
  }

  /** How many of them were order decisions. */
  get orderCount(): number {
    return this.orders;
  }

  /**
   * How many order decisions a schedule proposed a candidate for that differs from the seeded
   * draw (whether or not an override then decided): how much the schedule changed the run.
   */
  get orderProposalsDiffering(): number {
    return this.ordersProposedOtherwise;
  }

  /** The first `logLimit` decisions, in order. */
  get log(): readonly DecisionRecord[] {
    return this.records;
  }

  /** Overrides whose decision the run never reached (or has not reached yet), in input order. */
  unusedOverrides(): Override[] {
    const out: Override[] = [];
    for (const [decision, alternative] of this.overrides) {
      if (!this.used.has(decision)) out.push({ decision, alternative });
    }
    return out;
  }

  /**
   * A delay decision: an integer number of microseconds from `d`.
   * @throws AssertionError if `d` is not a valid distribution (an engine bug).
   */
  delay(label: string, d: DelayDistribution): number {
    if (!(d.minUs >= 0 && d.minUs <= d.medianUs && d.medianUs <= d.maxUs)) {
      assert(false, `delay ${label}: bad distribution ${d.minUs}/${d.medianUs}/${d.maxUs}`);
    }
    const u = this.delayStream();
    const index = this.next++;
    let alt = this.overrides.size === 0 ? undefined : this.take(index);
    if (alt !== undefined) {
      alt %= DELAY_ALTERNATIVES;
      if (alt === SLOW && this.nowUs() >= this.healTimeUs) alt = undefined;
    }
    let value: number;
    if (alt === undefined) {
      value = u < 0.5
        ? d.minUs + (d.medianUs - d.minUs) * (u * 2)
        : d.medianUs + (d.maxUs - d.medianUs) * ((u - 0.5) * 2);
    } else {
      value = alt === 0 ? d.minUs : alt === 1 ? d.medianUs : alt === 2 ? d.maxUs : d.maxUs * 10;
    }
    value = Math.round(value);
    this.slow = alt === SLOW;
    this.onDecision?.(0, value);
    if (this.records.length < this.logLimit) {
      this.records.push({
        index, kind: 'delay', label, alternatives: DELAY_ALTERNATIVES, value,
        overridden: alt !== undefined,
      });
    }
    return value;
  }

  /**
   * An order decision among `n` >= 1 ready events: the index of the one that runs next. Only the
   * event queue asks for one (the engine's ChoicePoints have no order), hence a harness assertion.
   * `proposed` is a schedule's choice (PctScheduler), taken instead of the seeded draw; an
   * override still wins over it, and the draw is made either way (so other decisions stay).
   * @throws HarnessAssertionError if `n` < 1 or `proposed` is not one of the `n`.
   */
  order(label: string, n: number, proposed?: number): number {
    if (!(n >= 1 && Number.isInteger(n))) {
      harnessAssert(false, `order ${label}: bad candidate count ${n}`);
    }
    const u = this.orderStream();
    const index = this.next++;
    this.orders++;
    const alt = this.overrides.size === 0 ? undefined : this.take(index);
    const seeded = Math.floor(u * n);
    if (proposed !== undefined) {
      if (!(Number.isInteger(proposed) && proposed >= 0 && proposed < n)) harnessAssert(false, `order ${label}: proposed ${proposed} of ${n}`);
      if (proposed !== seeded) this.ordersProposedOtherwise++;
    }
    const value = alt !== undefined ? alt % n : proposed ?? seeded;
    this.onDecision?.(1, value);
    if (this.records.length < this.logLimit) {
      this.records.push({ index, kind: 'order', label, alternatives: n, value, overridden: alt !== undefined });
    }
    return value;
  }

  /**
   * A fate decision: true with `probability` unless overridden (0 no, 1 yes).
   * @throws AssertionError if `probability` is not in [0, 1].
   */
  fate(label: string, probability: number): boolean {
    if (!(probability >= 0 && probability <= 1)) {
      assert(false, `fate ${label}: bad probability ${probability}`);
    }
    const u = this.fateStream();
    const index = this.next++;
    const alt = this.overrides.size === 0 ? undefined : this.take(index);
    const value = alt === undefined ? (u < probability ? 1 : 0) : alt % 2;
    this.onDecision?.(2, value);
    if (this.records.length < this.logLimit) {
      this.records.push({ index, kind: 'fate', label, alternatives: 2, value, overridden: alt !== undefined });
    }
    return value === 1;
  }

  private take(index: number): number | undefined {
    const alt = this.overrides.get(index);
    if (alt !== undefined) this.used.add(index);
    return alt;
  }
}
