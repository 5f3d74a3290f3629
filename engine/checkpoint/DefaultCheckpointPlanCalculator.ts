/**
 * Computes the CheckpointPlan from the current execution attempts, on the JobMaster main thread.
 * With every task running: trigger the sources, wait for and commit to every subtask. With some
 * tasks finished (FLIP-147, checkpoints after tasks finish): wait for and commit to the
 * unfinished ones only, and trigger each running subtask none of whose predecessors still runs.
 *
 * @see org.apache.flink.runtime.checkpoint.DefaultCheckpointPlanCalculator (reference 1.5)
 * Planted bug `plan-terminal-as-finished` (mutants.md 7a): once some task FINISHED, any terminal
 * task counts as finished, so a FAILED or CANCELED task is left out of the tasks to wait for.
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import { isTerminal } from '../taskexecutor/ExecutionState.ts';
import type {
  CheckpointCoordinatorContext, CheckpointJobEdge, CheckpointJobVertex, CheckpointTaskAttempt,
} from './CheckpointCoordinatorContext.ts';
import { CheckpointException } from './CheckpointFailureReason.ts';
import type { CheckpointPlan, SubtaskRef } from './CheckpointPlan.ts';
import { PLANTED_BUGS } from './CheckpointPlantedBugs.ts';

/** The subtasks of `upstream` that feed subtask `i` of `downstream` over `pattern`. */
export function producersOf(pattern: CheckpointJobEdge['pattern'], upstreamParallelism: number,
  downstreamParallelism: number, i: number): number[] {
  if (pattern === 'ALL_TO_ALL') return Array.from({ length: upstreamParallelism }, (_x, j) => j);
  if (upstreamParallelism === downstreamParallelism) return [i];
  if (upstreamParallelism > downstreamParallelism) {
    const from = Math.floor((i * upstreamParallelism) / downstreamParallelism);
    const to = Math.floor(((i + 1) * upstreamParallelism) / downstreamParallelism);
    return Array.from({ length: to - from }, (_x, j) => from + j);
  }
  return [Math.floor((i * upstreamParallelism) / downstreamParallelism)];
}

export class DefaultCheckpointPlanCalculator {
  constructor(
    private readonly ctx: CheckpointCoordinatorContext,
    private readonly env: EngineEnv,
    private readonly allowCheckpointsAfterTasksFinish: boolean,
  ) {}

  /**
   * Computes the plan from the attempts now current.
   * @throws CheckpointException NOT_ALL_REQUIRED_TASKS_RUNNING when a subtask has no attempt,
   *   when a task finished while checkpoints after finish are off, or when a task to wait for
   *   (any unfinished task, not only a task to trigger) is not RUNNING.
   */
  calculateCheckpointPlan(): CheckpointPlan {
    const vertices = this.ctx.jobVertices();
    const attempts = new Map<string, CheckpointTaskAttempt[]>();
    let hasFinished = false;
    for (const v of vertices) {
      const list: CheckpointTaskAttempt[] = [];
      for (let i = 0; i < v.parallelism; i++) {
        const a = this.ctx.currentAttempt(v.id, i);
        if (a === undefined) {
          throw new CheckpointException('NOT_ALL_REQUIRED_TASKS_RUNNING', `${v.id}#${i} has no attempt`);
        }
        list.push(a);
        // Whether any task FINISHED (Flink's hasFinishedTasks: the graph's finished vertex count,
        // FINISHED only, whatever the planted bug), which picks the plan's path.
        if (!hasFinished && a.state === 'FINISHED') hasFinished = true;
      }
      attempts.set(v.id, list);
    }
    if (hasFinished && !this.allowCheckpointsAfterTasksFinish) {
      throw new CheckpointException('NOT_ALL_REQUIRED_TASKS_RUNNING', 'some tasks have finished');
    }
    const plan = hasFinished
      ? this.afterTasksFinished(vertices, attempts)
      : this.allTasksRunning(vertices, attempts);
    // Every task to wait for, not only the tasks to trigger (FLINK-22379): no checkpoint starts
    // while a downstream task is still deploying or restoring its state.
    for (const t of plan.tasksToWaitFor) {
      if (t.state !== 'RUNNING') {
        throw new CheckpointException('NOT_ALL_REQUIRED_TASKS_RUNNING',
          `task ${t.attemptId} is ${t.state}, not RUNNING`);
      }
    }
    return plan;
  }

  /**
   * Whether the plan after tasks finished counts `a` as finished. Planted bug 7a (FLINK-40482):
   * Flink 1.20's collectTaskRunningStatus asks Execution.isFinished, which is "is terminal", so a
   * FAILED or CANCELED attempt is left out of the tasks to wait for; only on this path, which
   * Flink takes once some task FINISHED, so an all-terminal job with none FINISHED is refused as
   * not running (the masking the Flink PR names).
   */
  private isFinished(a: CheckpointTaskAttempt): boolean {
    if (this.env.bugs.has(PLANTED_BUGS.planTerminalAsFinished)) return isTerminal(a.state);
    return a.state === 'FINISHED';
  }

  private allTasksRunning(vertices: readonly CheckpointJobVertex[],
    attempts: Map<string, CheckpointTaskAttempt[]>): CheckpointPlan {
    // Plain loops: this runs at every checkpoint trigger, and flatMap is slow in V8.
    const all: CheckpointTaskAttempt[] = [];
    const sources: CheckpointTaskAttempt[] = [];
    const commitTo: SubtaskRef[] = [];
    for (const v of vertices) {
      for (const a of attempts.get(v.id) ?? []) {
        all.push(a);
        if (v.isSource) sources.push(a);
        commitTo.push({ vertexId: a.vertexId, subtask: a.subtask });
      }
    }
    return {
      tasksToTrigger: sources,
      tasksToWaitFor: all,
      tasksToCommitTo: commitTo,
      finishedTasks: [],
      fullyFinishedVertices: [],
    };
  }

  private afterTasksFinished(vertices: readonly CheckpointJobVertex[],
    attempts: Map<string, CheckpointTaskAttempt[]>): CheckpointPlan {
    const running = new Map<string, boolean[]>();
    for (const v of vertices) {
      running.set(v.id, (attempts.get(v.id) ?? []).map((a) => !this.isFinished(a)));
    }
    const parallelism = new Map(vertices.map((v) => [v.id, v.parallelism]));
    const edges = this.ctx.jobEdges();
    const trigger: CheckpointTaskAttempt[] = [];
    const waitFor: CheckpointTaskAttempt[] = [];
    const commitTo: SubtaskRef[] = [];
    const finished: CheckpointTaskAttempt[] = [];
    const fullyFinished: string[] = [];
    for (const v of vertices) {
      const status = running.get(v.id) ?? [];
      const list = attempts.get(v.id) ?? [];
      if (!status.some((r) => r)) {
        fullyFinished.push(v.id);
        finished.push(...list);
        continue;
      }
      const inputs = edges.filter((e) => e.target === v.id);
      // Vertex-level shortcut: an ALL_TO_ALL input with any running producer, or a POINTWISE
      // input whose producers all run, means no subtask of this vertex can be triggered.
      const someMayBeTriggered = inputs.every((e) => {
        const up = running.get(e.source) ?? [];
        return e.pattern === 'ALL_TO_ALL' ? !up.some((r) => r) : !up.every((r) => r);
      });
      list.forEach((a, i) => {
        if (!status[i]) {
          finished.push(a);
          return;
        }
        waitFor.push(a);
        commitTo.push({ vertexId: v.id, subtask: i });
        if (!someMayBeTriggered) return;
        const hasRunningPredecessor = inputs.some((e) => {
          const up = running.get(e.source) ?? [];
          const producers = producersOf(e.pattern, parallelism.get(e.source) ?? 0, v.parallelism, i);
          return producers.some((j) => up[j] === true);
        });
        if (!hasRunningPredecessor) trigger.push(a);
      });
    }
    return {
      tasksToTrigger: trigger,
      tasksToWaitFor: waitFor,
      tasksToCommitTo: commitTo,
      finishedTasks: finished,
      fullyFinishedVertices: fullyFinished,
    };
  }
}
