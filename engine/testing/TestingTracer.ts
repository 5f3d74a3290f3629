/**
 * A Tracer for unit tests that keeps every event and mark in memory.
 *
 * Invariants: events and marks are kept in the order recorded.
 */
import { NO_EVENT, type EventRef, type TraceAttrs, type Tracer } from '../api/Tracer.ts';

/** One recorded event or mark. */
export interface TracedEvent {
  readonly type: string;
  readonly attrs: TraceAttrs;
}

export class TestingTracer implements Tracer {
  readonly events: TracedEvent[] = [];
  readonly marks: TracedEvent[] = [];

  /** Returns the event's index in {@link events}. */
  event(type: string, attrs: TraceAttrs = {}): EventRef {
    this.events.push({ type, attrs });
    return this.events.length - 1;
  }

  causedBy(): void {}

  current(): EventRef {
    return NO_EVENT;
  }

  mark(name: string, attrs: TraceAttrs = {}): void {
    this.marks.push({ type: name, attrs });
  }

  /** The events of `type`, in order. */
  eventsOf(type: string): TracedEvent[] {
    return this.events.filter((e) => e.type === type);
  }

  /** True when mark `name` was recorded. */
  hasMark(name: string): boolean {
    return this.marks.some((m) => m.type === name);
  }
}
