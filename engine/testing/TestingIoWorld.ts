/**
 * A two-host world for data-plane unit tests: one TestingScheduler, one TestingDataNetwork, and
 * an EngineEnv per host sharing a tracer and an invariant registry whose checks run after every
 * task (as the sim runs them when a run asks for it).
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import { hostId } from '../api/ids.ts';
import type { HostId } from '../api/ids.ts';
import { TestingDataNetwork } from './TestingDataNetwork.ts';
import { createTestingEngineEnv } from './TestingEngineEnv.ts';
import { TestingInvariantRegistry } from './TestingInvariantRegistry.ts';
import type { TestingExecutor } from './TestingScheduler.ts';
import { TestingScheduler } from './TestingScheduler.ts';
import { TestingTracer } from './TestingTracer.ts';

export class TestingIoWorld {
  readonly scheduler = new TestingScheduler();
  readonly network = new TestingDataNetwork(this.scheduler.get('net'));
  readonly tracer = new TestingTracer();
  readonly invariants = new TestingInvariantRegistry();
  readonly producerHost: HostId = hostId('taskmanager-1');
  readonly consumerHost: HostId = hostId('taskmanager-2');
  readonly producerEnv: EngineEnv;
  readonly consumerEnv: EngineEnv;
  /** The producer task's mailbox thread. */
  readonly producerExecutor: TestingExecutor;
  /** The consumer task's mailbox thread. */
  readonly consumerExecutor: TestingExecutor;

  constructor(checkInvariants = true) {
    this.producerEnv = this.env(this.producerHost);
    this.consumerEnv = this.env(this.consumerHost);
    this.producerExecutor = this.scheduler.get(`${this.producerHost}/mailbox`);
    this.consumerExecutor = this.scheduler.get(`${this.consumerHost}/mailbox`);
    if (checkInvariants) this.scheduler.afterEachTask = () => this.invariants.checkAll();
  }

  /** Runs every ready task (the network delivers everything in flight) and checks invariants. */
  runAll(): void {
    this.scheduler.runAll();
    this.invariants.checkAll();
  }

  private env(host: HostId): EngineEnv {
    return createTestingEngineEnv({
      host,
      clock: this.scheduler,
      executors: this.scheduler,
      network: this.network.view(host),
      tracer: this.tracer,
      invariants: this.invariants,
    });
  }
}
