/**
 * The ExecutionGraph: per JobVertex an ExecutionJobVertex, per subtask an ExecutionVertex, per
 * attempt an Execution with its ExecutionAttemptId and state. Job status lives here too, with
 * listeners (the checkpoint coordinator's activator listens).
 *
 * @see org.apache.flink.runtime.executiongraph.{DefaultExecutionGraph, ExecutionJobVertex,
 *      ExecutionVertex, Execution}
 * Invariants: an ExecutionVertex's attempt numbers strictly increase; only the current attempt's
 * state changes are applied.
 */
import type { ExecutionAttemptId } from '../api/ids.ts';
import type { JobGraph, JobVertex } from '../jobgraph/JobGraph.ts';
import { attemptIdOf, isTerminal, type ExecutionState } from '../taskexecutor/ExecutionState.ts';
import { assert } from '../util/assert.ts';
import { CompletableFuture } from '../util/CompletableFuture.ts';
import type { AllocatedSlot } from './SlotPool.ts';

/** Flink's JobStatus (the ones the model reaches); CANCELLING is spelled as Flink spells it. */
export type JobStatus = 'CREATED' | 'RUNNING' | 'FAILING' | 'RESTARTING' | 'CANCELLING' | 'FINISHED' | 'FAILED' | 'CANCELED';

/** One attempt of one subtask. */
export class Execution {
  private current: ExecutionState = 'CREATED';
  private terminal: CompletableFuture<ExecutionState> | undefined;
  slot: AllocatedSlot | undefined;
  readonly attemptId: ExecutionAttemptId;

  constructor(readonly vertex: ExecutionVertex, readonly attemptNumber: number) {
    this.attemptId = attemptIdOf(vertex.jobVertex.id, vertex.subtask, attemptNumber);
  }

  get state(): ExecutionState {
    return this.current;
  }

  /** Sets the state; the first terminal one completes {@link getTerminalStateFuture}. */
  set state(s: ExecutionState) {
    this.current = s;
    if (isTerminal(s)) this.terminal?.complete(s);
  }

  /**
   * Execution.getTerminalStateFuture: completes (synchronously, on the thread that set it) with
   * the first terminal state this attempt reaches (FINISHED, CANCELED or FAILED).
   */
  getTerminalStateFuture(): CompletableFuture<ExecutionState> {
    if (this.terminal === undefined) {
      this.terminal = isTerminal(this.current) ? CompletableFuture.completed(this.current) : new CompletableFuture();
    }
    return this.terminal;
  }
}

/** One subtask of a vertex across its attempts. */
export class ExecutionVertex {
  current: Execution;
  private attempts = 0;

  /**
   * @param firstAttemptNumber the number of the first attempt (0 in a job's first run; later
   *   runs start above every attempt of the runs before, JobRun.ts).
   */
  constructor(readonly jobVertex: JobVertex, readonly subtask: number, firstAttemptNumber = 0) {
    this.attempts = firstAttemptNumber;
    this.current = new Execution(this, firstAttemptNumber);
  }

  /** `<vertex>#<subtask>`. */
  get name(): string {
    return `${this.jobVertex.id}#${this.subtask}`;
  }

  /** Starts a new attempt (resetForNewExecution). @throws AssertionError if the current one is live. */
  resetForNewExecution(): Execution {
    assert(isTerminal(this.current.state) || this.current.state === 'CREATED',
      () => `reset of ${this.name} while ${this.current.state}`);
    this.attempts++;
    this.current = new Execution(this, this.attempts);
    return this.current;
  }
}

export class ExecutionGraph {
  readonly vertices: ExecutionVertex[][];
  private status: JobStatus = 'CREATED';
  private readonly listeners: ((s: JobStatus) => void)[] = [];

  /** {@link vertices} flattened once (the vertices never change; their attempts do). */
  private readonly flatVertices: readonly ExecutionVertex[];

  /** The subtasks of each JobVertex by its id (looked up per checkpoint and per deployment). */
  private readonly byVertexId = new Map<string, ExecutionVertex[]>();

  /** Max parallelisms a restore adopted from state, by vertex id (absent: the JobGraph's). */
  private readonly adoptedMaxParallelism = new Map<string, number>();

  /** @param firstAttemptNumber every subtask's first attempt number (JobRun.firstAttemptNumber). */
  constructor(readonly jobGraph: JobGraph, firstAttemptNumber = 0) {
    this.vertices = jobGraph.vertices.map((v) => Array.from({ length: v.parallelism },
      (_x, i) => new ExecutionVertex(v, i, firstAttemptNumber)));
    this.flatVertices = this.vertices.flat();
    jobGraph.vertices.forEach((v, i) => {
      // The first vertex of an id wins, as a search from the start would find it.
      if (!this.byVertexId.has(v.id)) this.byVertexId.set(v.id, this.vertices[i] ?? []);
    });
  }

  get jobStatus(): JobStatus {
    return this.status;
  }

  /** Every ExecutionVertex, vertex by vertex in topological order. */
  allVertices(): readonly ExecutionVertex[] {
    return this.flatVertices;
  }

  /**
   * The vertex's max parallelism, its number of key groups: the JobGraph's unless a restore
   * adopted the state's (ExecutionJobVertex.getMaxParallelism).
   */
  maxParallelismOf(vertexId: string): number {
    return this.adoptedMaxParallelism.get(vertexId) ?? this.jobVertex(vertexId).maxParallelism;
  }

  /**
   * Adopts restored state's max parallelism for a vertex whose max parallelism the job did not
   * set (ExecutionJobVertex.setMaxParallelism, with the validator SchedulerBase gives it).
   * @throws Error "Rescaling max parallelism from a to b is not allowed: ..." when it was
   *   configured, or when `maxParallelism` is below the vertex's parallelism.
   */
  setMaxParallelism(vertexId: string, maxParallelism: number): void {
    const v = this.jobVertex(vertexId);
    const refused = v.maxParallelismConfigured ? 'Cannot override a configured max parallelism.'
      : maxParallelism < v.parallelism ? `it is below the parallelism ${v.parallelism}.` : undefined;
    if (refused !== undefined) {
      throw new Error(`Rescaling max parallelism from ${this.maxParallelismOf(vertexId)} to ${maxParallelism} `
        + `of ${vertexId} is not allowed: ${refused}`);
    }
    this.adoptedMaxParallelism.set(vertexId, maxParallelism);
  }

  private jobVertex(vertexId: string): JobVertex {
    const v = this.byVertexId.get(vertexId)?.[0]?.jobVertex;
    if (v === undefined) throw new Error(`no job vertex ${vertexId}`);
    return v;
  }

  /** The ExecutionVertex whose current attempt is `attemptId`, if any. */
  currentExecution(attemptId: ExecutionAttemptId): Execution | undefined {
    for (const ev of this.allVertices()) if (ev.current.attemptId === attemptId) return ev.current;
    return undefined;
  }

  /** The ExecutionVertex of (vertex id, subtask). */
  vertex(vertexId: string, subtask: number): ExecutionVertex {
    const ev = this.byVertexId.get(vertexId)?.[subtask];
    if (ev === undefined) throw new Error(`no execution vertex ${vertexId}#${subtask}`);
    return ev;
  }

  addJobStatusListener(l: (s: JobStatus) => void): void {
    this.listeners.push(l);
  }

  transitionState(to: JobStatus): void {
    if (this.status === to) return;
    this.status = to;
    for (const l of this.listeners) l(to);
  }

  /** The highest attempt number of any subtask so far (where a next job run starts above). */
  maxAttemptNumber(): number {
    let n = 0;
    for (const ev of this.allVertices()) n = Math.max(n, ev.current.attemptNumber);
    return n;
  }

  checkInvariants(): void {
    for (const ev of this.allVertices()) {
      assert(ev.current.attemptNumber >= 0, 'negative attempt');
    }
  }
}
