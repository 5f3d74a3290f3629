/**
 * A StreamOperatorContext for unit tests over a {@link TestingOperatorEnv}: the mailbox and the
 * processing-time service run on the env's manually stepped mailbox executor, events to the
 * coordinator are recorded, and `failTask` records the error. Also a collecting Output.
 */
import type { StreamRecord } from '../../api/StreamRecord.ts';
import type {
  OperatorEventGateway, Output, ProcessingTimeService, StreamOperatorContext,
} from '../StreamOperator.ts';
import { createTestingOperatorEnv, type TestingOperatorEnv } from './TestingOperatorEnv.ts';

/** Records the events an operator sends to its coordinator. */
export class TestingOperatorEventGateway implements OperatorEventGateway {
  readonly sent: unknown[] = [];

  sendEventToCoordinator(event: unknown): void {
    this.sent.push(event);
  }
}

/** Collects emitted records. */
export class TestingOutput implements Output {
  readonly records: StreamRecord[] = [];

  collect(record: StreamRecord): void {
    this.records.push(record);
  }

  /** The values emitted, in order. */
  values(): unknown[] {
    return this.records.map((r) => r.value);
  }
}

/** The context plus handles on its fakes. */
export interface TestingOperatorContext extends StreamOperatorContext {
  readonly env: TestingOperatorEnv;
  readonly gateway: TestingOperatorEventGateway;
  readonly failures: Error[];
}

/** A context for subtask `subtaskIndex` of `parallelism`; defaults: 0 of 1, max 128, attempt 0. */
export function createTestingOperatorContext(options: {
  readonly env?: TestingOperatorEnv;
  readonly subtaskIndex?: number;
  readonly parallelism?: number;
  readonly maxParallelism?: number;
  readonly attemptNumber?: number;
  /** The checkpoint the task restores from (absent: a fresh start). */
  readonly restoredCheckpointId?: number;
} = {}): TestingOperatorContext {
  const env = options.env ?? createTestingOperatorEnv();
  const scheduler = env.scheduler;
  const subtaskIndex = options.subtaskIndex ?? 0;
  const processingTime: ProcessingTimeService = {
    nowUs: () => scheduler.nowUs(),
    registerTimer: (timeUs, label, callback) =>
      env.mailbox.schedule(label, Math.max(0, timeUs - scheduler.nowUs()), callback),
  };
  const gateway = new TestingOperatorEventGateway();
  const failures: Error[] = [];
  return {
    env,
    taskName: `v0#${subtaskIndex}`,
    subtaskIndex,
    parallelism: options.parallelism ?? 1,
    maxParallelism: options.maxParallelism ?? 128,
    attemptNumber: options.attemptNumber ?? 0,
    ...(options.restoredCheckpointId === undefined ? {} : { restoredCheckpointId: options.restoredCheckpointId }),
    mailbox: env.mailbox,
    metrics: env.metrics.taskIO(`v0#${subtaskIndex}@${options.attemptNumber ?? 0}`),
    processingTime,
    eventGateway: gateway,
    failTask: (e) => {
      failures.push(e);
    },
    gateway,
    failures,
  };
}
