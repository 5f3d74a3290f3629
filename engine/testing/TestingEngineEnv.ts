/**
 * Builds an EngineEnv for unit tests from Testing* fakes. Ports a test does not supply (RPC,
 * stores, choices) fail with an AssertionError when used, so a test notices at once when the
 * code under test reaches further than the test meant.
 */
import type { ChoicePoints } from '../api/ChoicePoints.ts';
import type { Clock } from '../api/Clock.ts';
import type { DataNetwork } from '../api/DataNetwork.ts';
import type { EngineEnv, InvariantRegistry, PlantedBugs } from '../api/EngineEnv.ts';
import type { ExecutorFactory } from '../api/Executor.ts';
import type { HostId } from '../api/ids.ts';
import type { MetricGroups } from '../api/MetricGroups.ts';
import type { ObjectStore } from '../api/ObjectStore.ts';
import type { RpcService } from '../api/Rpc.ts';
import type { Tracer } from '../api/Tracer.ts';
import type { TransactionalStore } from '../api/TransactionalStore.ts';
import { AssertionError } from '../util/assert.ts';
import { TestingInvariantRegistry } from './TestingInvariantRegistry.ts';
import { TestingMetricGroups } from './TestingMetricGroups.ts';
import { TestingTracer } from './TestingTracer.ts';

/** What a test supplies; everything else is a failing stub. */
export interface TestingEngineEnvOptions {
  readonly host: HostId;
  readonly clock: Clock;
  readonly executors: ExecutorFactory;
  readonly network?: DataNetwork;
  readonly rpc?: RpcService;
  readonly objectStore?: ObjectStore;
  readonly transactionalStore?: TransactionalStore;
  readonly tracer?: Tracer;
  readonly choices?: ChoicePoints;
  readonly bugs?: PlantedBugs;
  readonly invariants?: InvariantRegistry;
  readonly metrics?: MetricGroups;
}

/** An object whose every method throws: the port `name` is not part of this test. */
function unavailable<T extends object>(name: string): T {
  const fail = (): never => {
    throw new AssertionError(`${name} is not available in this test`);
  };
  const handler: ProxyHandler<object> = {
    get: (_target, prop) => (prop === 'then' ? undefined : fail),
  };
  return new Proxy({}, handler) as T;
}

/**
 * An EngineEnv made of the given fakes; a TestingTracer, registry and TestingMetricGroups unless
 * supplied (every task reports metrics, so they are recorded rather than refused).
 */
export function createTestingEngineEnv(options: TestingEngineEnvOptions): EngineEnv {
  return {
    host: options.host,
    clock: options.clock,
    executors: options.executors,
    network: options.network ?? unavailable<DataNetwork>('network'),
    rpc: options.rpc ?? unavailable<RpcService>('rpc'),
    objectStore: options.objectStore ?? unavailable<ObjectStore>('objectStore'),
    transactionalStore: options.transactionalStore ??
      unavailable<TransactionalStore>('transactionalStore'),
    tracer: options.tracer ?? new TestingTracer(),
    choices: options.choices ?? unavailable<ChoicePoints>('choices'),
    bugs: options.bugs ?? { has: () => false },
    invariants: options.invariants ?? new TestingInvariantRegistry(),
    metrics: options.metrics ?? new TestingMetricGroups(),
  };
}
