/**
 * The engine's door to the sim's choice source (DESIGN.md "decisions as data"). Every
 * nondeterministic value the engine needs (a processing or storage duration, a yes/no fate) is a
 * numbered decision: seeded by default, replaceable by a RunSpec override.
 */

/**
 * A delay distribution in virtual microseconds: values between `minUs` and `maxUs` with median
 * `medianUs`. Override alternatives: 0 min, 1 median, 2 max, 3 slow (ten times max).
 */
export interface DelayDistribution {
  readonly minUs: number;
  readonly medianUs: number;
  readonly maxUs: number;
}

export interface ChoicePoints {
  /** A delay decision labelled `label`; returns an integer number of microseconds. */
  delay(label: string, distribution: DelayDistribution): number;
  /** A fate decision: true with probability `probability` (0..1) unless overridden. */
  fate(label: string, probability: number): boolean;
}
