/**
 * canonicalFaults: a shrunk repro with each world-setting fault kind as one fault. fast-check
 * shrinks by dropping faults, and dropping one of two `async-snapshot-failure` faults changes
 * the combined probability, so the run changes and the drop is refused; yet the two together
 * act exactly like one fault of their combined probability (faultWorldOptions combines faults
 * of one kind: probabilities as independent events, slowness factors multiply, the slowest delay
 * per RPC kind wins). Merging them keeps the run's world settings and its decisions, and leaves
 * a smaller repro; explore keeps the merge only if the same property still fails.
 */
import type { RpcKind } from '../../engine/index.ts';
import type { Fault, RunSpec } from '../../sim/run/RunSpec.ts';
import { orP, winningDelay } from '../../sim/run/faultWorldOptions.ts';

/**
 * `spec` with its world-setting faults merged per kind, in the place of the first fault of the
 * kind (triggered faults keep their order): `rpc-loss` per RPC kind, `store-failure`,
 * `store-unknown-outcome` and `async-snapshot-failure` with their combined probability,
 * `slow-store` with the product of the factors, `rpc-delay` per RPC kind as the fault that
 * wins (the largest `maxMs`, the later of equals). Returns `spec` itself when nothing merges.
 */
export function canonicalFaults(spec: RunSpec): RunSpec {
  const keyOf = (f: Fault): string | undefined => {
    switch (f.type) {
      case 'rpc-loss':
      case 'rpc-delay':
        return `${f.type}:${f.kind}`;
      case 'async-snapshot-failure':
        // One per checkpoint filter: failures of one checkpoint's writes and of all combine apart.
        return f.checkpoint === undefined ? f.type : `${f.type}:${f.checkpoint}`;
      case 'slow-store':
        return f.checkpoint === undefined ? f.type : `${f.type}:${f.checkpoint}`;
      case 'store-failure':
      case 'store-unknown-outcome':
        return f.type;
      default:
        return undefined;
    }
  };
  const merged = new Map<string, Fault>();
  const out: (Fault | string)[] = [];
  for (const f of spec.faults) {
    const key = keyOf(f);
    if (key === undefined) {
      out.push(f);
      continue;
    }
    const old = merged.get(key);
    if (old === undefined) out.push(key);
    merged.set(key, old === undefined ? f : combine(old, f));
  }
  if (merged.size === spec.faults.filter((f) => keyOf(f) !== undefined).length) return spec;
  const faults = out.map((x) => (typeof x === 'string' ? merged.get(x) as Fault : x));
  return { ...spec, faults };
}

/** Two world-setting faults of one kind as one, by faultWorldOptions' own rules. */
function combine(a: Fault, b: Fault): Fault {
  if (a.type === 'rpc-delay' && b.type === 'rpc-delay') return winningDelay(a.latency, b.latency) === b.latency ? b : a;
  if (a.type === 'slow-store' && b.type === 'slow-store') return { ...a, factor: a.factor * b.factor };
  if (a.type === 'rpc-loss' && b.type === 'rpc-loss') {
    return { type: 'rpc-loss', kind: a.kind as RpcKind, probability: orP(a.probability, b.probability) };
  }
  if ((a.type === 'store-failure' || a.type === 'store-unknown-outcome' || a.type === 'async-snapshot-failure')
    && a.type === b.type) {
    // Combined only with a fault of the same checkpoint filter (keyOf), which the result keeps.
    const checkpoint = a.type === 'async-snapshot-failure' ? a.checkpoint : undefined;
    return { type: a.type, probability: orP(a.probability, (b as typeof a).probability), ...(checkpoint === undefined ? {} : { checkpoint }) } as Fault;
  }
  throw new Error(`canonicalFaults: cannot combine ${a.type} with ${b.type}`);
}
