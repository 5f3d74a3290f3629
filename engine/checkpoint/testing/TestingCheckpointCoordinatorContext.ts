/**
 * A CheckpointCoordinatorContext for unit tests: a configurable topology whose attempts the test
 * moves between states, recording trigger RPCs, notifications and job failures; the trigger RPC
 * futures complete at once unless the test fails them. Also builds a whole harness
 * ({@link createCheckpointHarness}) around a TestingScheduler.
 */
import type { EngineEnv } from '../../api/EngineEnv.ts';
import { executionAttemptId, hostId, type ExecutionAttemptId } from '../../api/ids.ts';
import { createTestingEngineEnv } from '../../testing/TestingEngineEnv.ts';
import { TestingInvariantRegistry } from '../../testing/TestingInvariantRegistry.ts';
import { TestingScheduler } from '../../testing/TestingScheduler.ts';
import { TestingTracer } from '../../testing/TestingTracer.ts';
import type { ExecutionState } from '../../taskexecutor/ExecutionState.ts';
import { CompletableFuture } from '../../util/CompletableFuture.ts';
import type { CheckpointOptions } from '../CheckpointBarrier.ts';
import { CheckpointCoordinator } from '../CheckpointCoordinator.ts';
import {
  checkpointCoordinatorConfiguration, type CheckpointCoordinatorConfigurationOptions,
} from '../CheckpointCoordinatorConfiguration.ts';
import type {
  CheckpointCoordinatorContext, CheckpointJobEdge, CheckpointJobVertex, CheckpointTaskAttempt,
  OperatorCoordinatorCheckpointContext,
} from '../CheckpointCoordinatorContext.ts';
import type { CompletedCheckpointStore } from '../CompletedCheckpointStore.ts';
import type { CheckpointsCleaner } from '../CheckpointsCleaner.ts';
import { TestingObjectStore } from './TestingObjectStore.ts';
import { testingJobVertex } from './testingJobVertex.ts';

/** A recording coordinator; `hang` keeps its checkpoint futures open. */
export class TestingOperatorCoordinator implements OperatorCoordinatorCheckpointContext {
  readonly calls: string[] = [];
  hang = false;
  fail = false;
  readonly futures: CompletableFuture<unknown>[] = [];
  constructor(readonly operatorUid: string, readonly vertexId: string, private readonly state: unknown = { s: 1 }) {}
  checkpointCoordinator(id: number): CompletableFuture<unknown> {
    this.calls.push(`checkpoint ${id}`);
    const f = new CompletableFuture<unknown>();
    this.futures.push(f);
    if (this.fail) f.completeExceptionally(new Error('coordinator failed'));
    else if (!this.hang) f.complete(this.state);
    return f;
  }
  abortCurrentTriggering(): void { this.calls.push('abortCurrentTriggering'); }
  notifyCheckpointComplete(id: number): void { this.calls.push(`complete ${id}`); }
  notifyCheckpointAborted(id: number): void { this.calls.push(`aborted ${id}`); }
  resetToCheckpoint(id: number, state: unknown): void { this.calls.push(`reset ${id} ${JSON.stringify(state)}`); }
  subtaskReset(subtask: number, id: number): void { this.calls.push(`subtaskReset ${subtask} ${id}`); }
}

export class TestingCheckpointCoordinatorContext implements CheckpointCoordinatorContext {
  readonly triggers: { task: ExecutionAttemptId; checkpointId: number; timestampUs: number; options: CheckpointOptions }[] = [];
  readonly completes: { task: ExecutionAttemptId; checkpointId: number; lastSubsumedId: number }[] = [];
  readonly aborts: { task: ExecutionAttemptId; checkpointId: number; latestCompletedId: number }[] = [];
  readonly failures: string[] = [];
  readonly attempts = new Map<string, CheckpointTaskAttempt>();
  coordinators: OperatorCoordinatorCheckpointContext[] = [];
  failTriggers = false;
  readonly timerExecutor;
  readonly mainExecutor;
  readonly ioExecutor;

  constructor(readonly env: EngineEnv, readonly vertices: CheckpointJobVertex[], readonly edges: CheckpointJobEdge[] = []) {
    this.timerExecutor = env.executors.get('jobmaster/checkpoint-timer');
    this.mainExecutor = env.executors.get('jobmaster/main');
    this.ioExecutor = env.executors.pool('jobmaster/io', 4);
    for (const v of vertices) for (let i = 0; i < v.parallelism; i++) this.setState(v.id, i, 'RUNNING');
  }

  /** Sets the state of (vertex, subtask)'s current attempt; `attempt` starts a new one. */
  setState(vertexId: string, subtask: number, state: ExecutionState, attempt?: number): CheckpointTaskAttempt {
    const old = this.attempts.get(`${vertexId}#${subtask}`);
    const n = attempt ?? (old === undefined ? 0 : Number(old.attemptId.slice(old.attemptId.lastIndexOf('@') + 1)));
    const a = { attemptId: executionAttemptId(`${vertexId}#${subtask}@${n}`), vertexId, subtask, state };
    this.attempts.set(`${vertexId}#${subtask}`, a);
    return a;
  }

  attempt(vertexId: string, subtask: number): CheckpointTaskAttempt {
    return this.attempts.get(`${vertexId}#${subtask}`) as CheckpointTaskAttempt;
  }

  jobVertices(): readonly CheckpointJobVertex[] { return this.vertices; }
  jobEdges(): readonly CheckpointJobEdge[] { return this.edges; }
  currentAttempt(vertexId: string, subtask: number): CheckpointTaskAttempt | undefined {
    return this.attempts.get(`${vertexId}#${subtask}`);
  }
  triggerCheckpoint(attempt: CheckpointTaskAttempt, checkpointId: number, timestampUs: number, options: CheckpointOptions): CompletableFuture<void> {
    this.triggers.push({ task: attempt.attemptId, checkpointId, timestampUs, options });
    return this.failTriggers ? CompletableFuture.failed<void>(new Error('rpc failed')) : CompletableFuture.completed<void>(undefined);
  }
  notifyCheckpointComplete(attempt: CheckpointTaskAttempt, checkpointId: number, _ts: number, lastSubsumedId: number): void {
    this.completes.push({ task: attempt.attemptId, checkpointId, lastSubsumedId });
  }
  notifyCheckpointAborted(attempt: CheckpointTaskAttempt, checkpointId: number, latestCompletedId: number): void {
    this.aborts.push({ task: attempt.attemptId, checkpointId, latestCompletedId });
  }
  failJob(cause: Error): void { this.failures.push(`job: ${cause.message}`); }
  failJobDueToTaskFailure(cause: Error, attemptId: ExecutionAttemptId): void {
    this.failures.push(`task ${attemptId}: ${cause.message}`);
  }
}

/** A whole test harness. */
export interface CheckpointHarness {
  readonly scheduler: TestingScheduler;
  readonly tracer: TestingTracer;
  readonly invariants: TestingInvariantRegistry;
  readonly objectStore: TestingObjectStore;
  readonly env: EngineEnv;
  readonly ctx: TestingCheckpointCoordinatorContext;
  readonly coordinator: CheckpointCoordinator;
}

/** Options of {@link createCheckpointHarness}. */
export interface CheckpointHarnessOptions {
  readonly config?: CheckpointCoordinatorConfigurationOptions;
  readonly vertices?: CheckpointJobVertex[];
  readonly edges?: CheckpointJobEdge[];
  readonly bugs?: readonly string[];
  readonly store?: (cleaner: CheckpointsCleaner) => CompletedCheckpointStore;
  readonly coordinators?: (ctx: TestingCheckpointCoordinatorContext) => OperatorCoordinatorCheckpointContext[];
}

/** Two source subtasks (`src`, parallelism 2) unless told otherwise; invariants after every task. */
export function createCheckpointHarness(o: CheckpointHarnessOptions = {}): CheckpointHarness {
  const scheduler = new TestingScheduler();
  const tracer = new TestingTracer();
  const invariants = new TestingInvariantRegistry();
  const objectStore = new TestingObjectStore();
  const bugs = new Set(o.bugs ?? []);
  const env = createTestingEngineEnv({
    host: hostId('jobmanager'), clock: scheduler, executors: scheduler, tracer, invariants, objectStore,
    bugs: { has: (id) => bugs.has(id) },
    choices: { delay: (_l, d) => d.minUs, fate: () => false },
  });
  const ctx = new TestingCheckpointCoordinatorContext(env,
    o.vertices ?? [testingJobVertex({ id: 'src', parallelism: 2, isSource: true, operatorUids: ['source'] })], o.edges ?? []);
  ctx.coordinators = o.coordinators?.(ctx) ?? [];
  const coordinator = new CheckpointCoordinator({
    config: checkpointCoordinatorConfiguration(o.config ?? {}), context: ctx,
    ...(o.store === undefined ? {} : { store: o.store }),
  });
  scheduler.afterEachTask = () => invariants.checkAll();
  return { scheduler, tracer, invariants, objectStore, env, ctx, coordinator };
}
