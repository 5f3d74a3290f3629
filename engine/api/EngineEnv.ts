/**
 * EngineEnv: the only door between the engine and the world. Each engine component gets the
 * environment of the host it runs on through its constructor; there are no defaults, no
 * singletons and no module-level mutable state, so the same engine code runs on the simulator,
 * on test fakes, or anywhere else that implements these ports.
 */
import type { ChoicePoints } from './ChoicePoints.ts';
import type { Clock } from './Clock.ts';
import type { DataNetwork } from './DataNetwork.ts';
import type { ExecutorFactory } from './Executor.ts';
import type { HostId } from './ids.ts';
import type { MetricGroups } from './MetricGroups.ts';
import type { ObjectStore } from './ObjectStore.ts';
import type { RpcService } from './Rpc.ts';
import type { Tracer } from './Tracer.ts';
import type { TransactionalStore } from './TransactionalStore.ts';

/** Planted-bug switches (mutants.md), off by default, set per run through RunSpec.mutations. */
export interface PlantedBugs {
  /** True when the planted bug `id` is switched on for this run. */
  has(id: string): boolean;
}

/** Lets stateful engine objects offer `checkInvariants()` to the sim (STYLE.md). */
export interface InvariantRegistry {
  /**
   * Registers a check that the sim may call after any event while the object lives. The check
   * throws AssertionError when an invariant does not hold. Returns a function that unregisters.
   */
  register(name: string, check: () => void): () => void;
}

/** Everything one host's engine components may touch. */
export interface EngineEnv {
  /** The host this environment belongs to. */
  readonly host: HostId;
  readonly clock: Clock;
  readonly executors: ExecutorFactory;
  readonly rpc: RpcService;
  readonly network: DataNetwork;
  readonly objectStore: ObjectStore;
  readonly transactionalStore: TransactionalStore;
  readonly tracer: Tracer;
  readonly choices: ChoicePoints;
  readonly bugs: PlantedBugs;
  readonly invariants: InvariantRegistry;
  /** Task metrics for the world's flow figures (MetricGroups.ts); never read back by the engine. */
  readonly metrics: MetricGroups;
}

