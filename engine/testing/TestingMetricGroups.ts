/**
 * MetricGroups for unit tests: keeps, per task attempt, every back-pressure wait and every
 * record read, so a test can check what a task reported.
 *
 * Invariants: at most one wait per attempt is open; waits and reads are kept in report order.
 */
import type { MetricGroups, TaskIOMetricGroup } from '../api/MetricGroups.ts';

/** One attempt's reports. */
export interface TestingTaskIOMetricGroup extends TaskIOMetricGroup {
  /** Closed waits, `[startUs, endUs]`, in order. */
  readonly waits: (readonly [number, number])[];
  /** The start of the open wait, or undefined. */
  readonly openWaitSinceUs: number | undefined;
  /** Reads as `[split, offset, timeUs]`, in order. */
  readonly reads: (readonly [number, number, number])[];
}

export class TestingMetricGroups implements MetricGroups {
  private readonly groups = new Map<string, TestingTaskIOMetricGroup>();

  taskIO(attemptId: string): TestingTaskIOMetricGroup {
    let g = this.groups.get(attemptId);
    if (g === undefined) {
      g = newGroup();
      this.groups.set(attemptId, g);
    }
    return g;
  }

  /** The attempts that asked for a group, in first-asked order. */
  get attempts(): string[] {
    return [...this.groups.keys()];
  }
}

function newGroup(): TestingTaskIOMetricGroup {
  const waits: (readonly [number, number])[] = [];
  const reads: (readonly [number, number, number])[] = [];
  let openSince: number | undefined;
  return {
    waits,
    reads,
    get openWaitSinceUs() {
      return openSince;
    },
    markBackPressureStart: (timeUs) => {
      openSince ??= timeUs;
    },
    markBackPressureEnd: (timeUs) => {
      if (openSince === undefined) return;
      waits.push([openSince, timeUs]);
      openSince = undefined;
    },
    markRecordRead: (split, offset, timeUs) => {
      reads.push([split, offset, timeUs]);
    },
  };
}
