/**
 * An EngineEnv for operator and coordinator unit tests, built from the shared fakes of
 * engine/testing: a manually stepped TestingScheduler (clock and executors), a TestingTracer, a
 * TestingInvariantRegistry, TestingMetricGroups, planted bugs from a list, and an in-memory
 * transactional store. Other ports fail when touched.
 */
import type { EngineEnv } from '../../../api/EngineEnv.ts';
import { hostId } from '../../../api/ids.ts';
import { createTestingEngineEnv } from '../../../testing/TestingEngineEnv.ts';
import { TestingInvariantRegistry } from '../../../testing/TestingInvariantRegistry.ts';
import { TestingMetricGroups } from '../../../testing/TestingMetricGroups.ts';
import { TestingScheduler, type TestingExecutor } from '../../../testing/TestingScheduler.ts';
import { TestingTracer } from '../../../testing/TestingTracer.ts';
import { TestingTransactionalStore } from './TestingTransactionalStore.ts';

/** The environment plus handles on its fakes. */
export interface TestingOperatorEnv extends EngineEnv {
  readonly scheduler: TestingScheduler;
  /** The executor operator contexts use as their mailbox. */
  readonly mailbox: TestingExecutor;
  readonly store: TestingTransactionalStore;
  readonly trace: TestingTracer;
  readonly registry: TestingInvariantRegistry;
  readonly metricGroups: TestingMetricGroups;
}

/** A fresh environment; `bugs` switches planted bugs on; `store` shares a store between envs. */
export function createTestingOperatorEnv(options: {
  readonly bugs?: readonly string[];
  readonly store?: TestingTransactionalStore;
} = {}): TestingOperatorEnv {
  const scheduler = new TestingScheduler();
  const store = options.store ?? new TestingTransactionalStore();
  const trace = new TestingTracer();
  const registry = new TestingInvariantRegistry();
  const metricGroups = new TestingMetricGroups();
  const bugs = new Set(options.bugs ?? []);
  const env = createTestingEngineEnv({
    host: hostId('taskmanager-1'), clock: scheduler, executors: scheduler,
    transactionalStore: store,
    tracer: trace, invariants: registry, bugs: { has: (id) => bugs.has(id) }, metrics: metricGroups,
  });
  return { ...env, scheduler, mailbox: scheduler.get('mailbox'), store, trace, registry, metricGroups };
}

/** Advances the scheduler's clock to `timeUs`, firing due timers and running tasks. */
export function advanceTo(env: TestingOperatorEnv, timeUs: number): void {
  env.scheduler.advanceTimeUs(Math.max(0, timeUs - env.scheduler.nowUs()));
}
