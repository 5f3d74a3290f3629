/**
 * SimMetricGroups: the world's side of the metrics port (engine/api MetricGroups.ts). It keeps,
 * aside from the trace (so no trace hash changes), what the run's flow metrics are computed from
 * (sim/run/flowMetrics.ts): every record a source reader emitted, with its virtual time, and
 * every task attempt's back-pressure waits.
 *
 * Reads are kept per split as segments: a run of consecutive offsets one attempt read in order
 * (a reader reads a split from its position onwards; a restore makes a new attempt read it again
 * from the checkpoint's position, which starts a new segment). A split holds few segments, one
 * per time it was read, so finding a read is cheap; storing one costs an array push.
 *
 * A wait still open when its TaskManager crashes ends at the crash (the task's thread is gone);
 * one still open when the run ends counts up to the end.
 *
 * Invariants: within a segment, offsets are consecutive and times never decrease; each attempt has
 * one metric group, on the host that first asked for it; a group has at most one open wait.
 */
import type { MetricGroups, TaskIOMetricGroup } from '../engine/api/index.ts';

/** Consecutive reads of one split by one attempt: offsets `start`, `start + 1`, ... */
interface ReadSegment {
  readonly split: number;
  readonly start: number;
  /** Read times, µs, by offset - start. */
  readonly times: number[];
}

/** One attempt's IO metric group. */
class SimTaskIOMetricGroup implements TaskIOMetricGroup {
  /** Closed waits' total, µs. */
  backPressuredUs = 0;
  /** The open wait's start, µs; -1 when none is open. */
  openSinceUs = -1;
  /** The segment the attempt read into last. */
  private segment: ReadSegment | undefined;

  constructor(
    readonly host: string,
    private readonly addSegment: (split: number, start: number) => ReadSegment,
  ) {}

  markBackPressureStart(timeUs: number): void {
    if (this.openSinceUs < 0) this.openSinceUs = timeUs;
  }

  markBackPressureEnd(timeUs: number): void {
    if (this.openSinceUs < 0) return;
    this.backPressuredUs += Math.max(0, timeUs - this.openSinceUs);
    this.openSinceUs = -1;
  }

  markRecordRead(split: number, offset: number, timeUs: number): void {
    let s = this.segment;
    if (s === undefined || s.split !== split || offset !== s.start + s.times.length) {
      s = this.addSegment(split, offset);
      this.segment = s;
    }
    s.times.push(timeUs);
  }
}

export class SimMetricGroups {
  /** By attempt id, in first-asked order. */
  private readonly groups = new Map<string, SimTaskIOMetricGroup>();
  /** Per split id, its segments in the order they began (split ids are small integers). */
  private readonly segments: ReadSegment[][] = [];
  private readonly addSegment = (split: number, start: number): ReadSegment => {
    const s: ReadSegment = { split, start, times: [] };
    const list = this.segments[split];
    if (list === undefined) this.segments[split] = [s];
    else list.push(s);
    return s;
  };

  /** The port as host `host` sees it. */
  forHost(host: string): MetricGroups {
    return { taskIO: (attemptId) => this.group(attemptId, host) };
  }

  /** `host` crashed at `nowUs`: the open waits of its attempts end there. */
  hostCrashed(host: string, nowUs: number): void {
    for (const g of this.groups.values()) if (g.host === host) g.markBackPressureEnd(nowUs);
  }

  /**
   * The time, µs, of the latest read of the record at `offset` of split `split` at or before
   * `atOrBeforeUs`; undefined when there is none.
   */
  readTimeUs(split: number, offset: number, atOrBeforeUs: number): number | undefined {
    const list = this.segments[split];
    if (list === undefined) return undefined;
    let best: number | undefined;
    for (let i = 0; i < list.length; i++) {
      const s = list[i] as ReadSegment;
      const t = s.times[offset - s.start];
      if (t !== undefined && t <= atOrBeforeUs && (best === undefined || t > best)) best = t;
    }
    return best;
  }

  /** The earliest read of any record, µs; undefined when no record was read. */
  firstReadUs(): number | undefined {
    let first: number | undefined;
    for (const list of this.segments) {
      for (const s of list ?? []) {
        const t = s.times[0];
        if (t !== undefined && (first === undefined || t < first)) first = t;
      }
    }
    return first;
  }

  /**
   * Back-pressured µs per task `<vertex>#<subtask>` (its attempts summed), every task that ran
   * listed (0 when never back-pressured); a wait still open counts up to `endUs`.
   */
  backPressuredUsByTask(endUs: number): Map<string, number> {
    const out = new Map<string, number>();
    for (const [attemptId, g] of this.groups) {
      const at = attemptId.lastIndexOf('@');
      const task = at < 0 ? attemptId : attemptId.slice(0, at);
      const open = g.openSinceUs < 0 ? 0 : Math.max(0, endUs - g.openSinceUs);
      out.set(task, (out.get(task) ?? 0) + g.backPressuredUs + open);
    }
    return out;
  }

  private group(attemptId: string, host: string): SimTaskIOMetricGroup {
    let g = this.groups.get(attemptId);
    if (g === undefined) {
      g = new SimTaskIOMetricGroup(host, this.addSegment);
      this.groups.set(attemptId, g);
    }
    return g;
  }
}
