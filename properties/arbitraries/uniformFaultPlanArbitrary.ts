/**
 * The uniform strategy's fault plan (ExploreStrategy.ts): 0..maxFaults faults, each drawn from
 * the union of every fault family with equal weight, so a run's faults are independent of one
 * another and no family is switched on or off per run. The baseline the other strategies are
 * measured against: every schedule swarm or targeting can draw is possible here too, only
 * rarer. A new family in FAULT_FAMILIES or LATE_FAULT_FAMILIES joins it without a change here. Shrinks toward fewer
 * faults, and each fault as faultOfFamily's does (the family itself toward the first).
 */
import fc from 'fast-check';
import type { Fault } from '../../sim/run/RunSpec.ts';
import { FAULT_FAMILIES, faultsOfFamily, LATE_FAULT_FAMILIES, type FaultArbitraryOptions } from './faultArbitrary.ts';

/** Up to `o.maxFaults` (default 6) faults, each of a family drawn uniformly. */
export function uniformFaultPlanArbitrary(o: FaultArbitraryOptions): fc.Arbitrary<Fault[]> {
  // A draw of crash-at-completion is its crash with its slowed store (faultsOfFamily).
  const anyFault = fc.oneof(...[...FAULT_FAMILIES, ...LATE_FAULT_FAMILIES].map((family) => faultsOfFamily(family, o)));
  const max = o.maxFaults ?? 6;
  return fc.array(anyFault, { maxLength: max }).map((drawn) => drawn.flat().slice(0, max));
}
