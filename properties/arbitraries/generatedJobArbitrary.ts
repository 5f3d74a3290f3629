/**
 * fast-check arbitrary of generated job shapes (sim/workloads/generatedJob.ts), built to shrink
 * well: fewer splits and records, fewer stages (the operator-state ones go first), lower
 * parallelism, smaller values.
 */
import fc from 'fast-check';
import {
  FILTER_MENU, FLAT_MAP_MENU, KEY_MENU, KEYED_MENU, MAP_MENU,
} from '../../sim/workloads/generatedFunctions.ts';
import type { GeneratedJobSpec, GeneratedStage } from '../../sim/workloads/generatedJob.ts';

export interface GeneratedJobArbitraryOptions {
  /** Upper bound of records in the whole input. Default 200. */
  readonly maxRecords?: number;
  /** Upper bound of every parallelism. Default 2. */
  readonly maxParallelism?: number;
}

/**
 * Generated jobs with at most two keyed stages and two flatMaps (the limits F needs), and in
 * about a third of them each a `splitLog` (list state) and a `splitOwners` (union state) stage.
 */
export function generatedJobArbitrary(o: GeneratedJobArbitraryOptions = {}): fc.Arbitrary<GeneratedJobSpec> {
  const maxRecords = o.maxRecords ?? 200;
  const maxP = o.maxParallelism ?? 2;
  const p = fc.integer({ min: 1, max: maxP });
  const stateless: fc.Arbitrary<GeneratedStage> = fc.oneof(
    fc.record({ kind: fc.constant('map' as const), fn: fc.nat({ max: MAP_MENU.length - 1 }), parallelism: p, rebalance: fc.boolean() }),
    fc.record({ kind: fc.constant('filter' as const), fn: fc.nat({ max: FILTER_MENU.length - 1 }), parallelism: p, rebalance: fc.boolean() }),
    fc.record({ kind: fc.constant('flatMap' as const), fn: fc.nat({ max: FLAT_MAP_MENU.length - 1 }), parallelism: p, rebalance: fc.boolean() }),
  );
  const keyed: fc.Arbitrary<GeneratedStage> = fc.record({
    kind: fc.constant('keyed' as const),
    key: fc.nat({ max: KEY_MENU.length - 1 }),
    fn: fc.nat({ max: KEYED_MENU.length - 1 }),
    parallelism: p,
  });
  const stages = fc.array(fc.oneof({ weight: 1, arbitrary: stateless }, { weight: 2, arbitrary: keyed }), { minLength: 1, maxLength: 4 })
    .filter((ss) => ss.filter((s) => s.kind === 'keyed').length <= 2 && ss.filter((s) => s.kind === 'flatMap').length <= 2);
  // Operator-state stages (generatedOperatorState.ts), each in about a third of the jobs, at a
  // drawn position; `null` first, so shrinking drops them.
  const splitLog = fc.oneof(
    { weight: 2, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.record({ at: fc.nat({ max: 4 }), parallelism: p, rebalance: fc.boolean() }) },
  );
  const splitOwners = fc.oneof(
    { weight: 2, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.record({ at: fc.nat({ max: 5 }), parallelism: p }) },
  );
  const withOperatorState = fc.tuple(stages, splitLog, splitOwners).map(([ss, log, owners]) => {
    const out: GeneratedStage[] = [...ss];
    if (log !== null) {
      out.splice(Math.min(log.at, out.length), 0, { kind: 'splitLog', parallelism: log.parallelism, rebalance: log.rebalance });
    }
    if (owners !== null) out.splice(Math.min(owners.at, out.length), 0, { kind: 'splitOwners', parallelism: owners.parallelism });
    return out;
  });
  const splits = fc.array(fc.array(fc.integer({ min: -1000, max: 1000 }), { maxLength: Math.max(1, Math.floor(maxRecords / 2)) }),
    { minLength: 1, maxLength: 4 })
    .filter((rs) => rs.reduce((n, r) => n + r.length, 0) <= maxRecords);
  return fc.record({
    records: splits,
    stages: withOperatorState,
    sourceParallelism: p,
    sinkParallelism: p,
    maxParallelism: fc.constantFrom(128, 8, 4),
  }).filter((s) => s.maxParallelism >= Math.max(s.sourceParallelism, s.sinkParallelism, ...s.stages.map((x) => x.parallelism)));
}
