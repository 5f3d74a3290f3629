import { describe, expect, test } from 'vitest';
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { Executor } from '../api/Executor.ts';
import type { CompletableFuture } from '../util/CompletableFuture.ts';
import type { OperatorCoordinator } from './OperatorCoordinator.ts';
import { OperatorCoordinatorHolder } from './OperatorCoordinatorHolder.ts';

/** A coordinator that records the notifications it gets and snapshots at once. */
function recordingCoordinator() {
  const calls: string[] = [];
  const coordinator: OperatorCoordinator = {
    start: () => undefined,
    close: () => undefined,
    handleEventFromOperator: () => undefined,
    checkpointCoordinator: (id, result) => { calls.push(`checkpoint ${id}`); result.complete('state'); },
    notifyCheckpointComplete: (id) => calls.push(`complete ${id}`),
    notifyCheckpointAborted: (id) => calls.push(`aborted ${id}`),
    resetToCheckpoint: (id) => calls.push(`reset ${id}`),
    subtaskReset: () => undefined,
    executionAttemptFailed: () => undefined,
    executionAttemptReady: () => undefined,
  };
  return { coordinator, calls };
}

function holder() {
  const { coordinator, calls } = recordingCoordinator();
  const events: string[] = [];
  const env = {
    tracer: { event: (type: string) => events.push(type), mark: () => undefined },
    invariants: { register: () => undefined },
  } as unknown as EngineEnv;
  const h = new OperatorCoordinatorHolder(env, {} as Executor, 'v0', 'src', coordinator, {
    gateway: () => { throw new Error('no gateways in this test'); },
    failSubtask: () => undefined,
  }, 2);
  return { h, calls, events };
}

describe('OperatorCoordinatorHolder: notifications for unknown checkpoints (isUnknownCheckpointId)', () => {
  test('an abort for a checkpoint whose trigger never reached the coordinator is ignored', () => {
    const { h, calls, events } = holder();
    h.checkpointCoordinator(2);
    // Checkpoint 3 was aborted (say by a failover) before its coordinator step ran.
    expect(() => h.notifyCheckpointAborted(3)).not.toThrow();
    h.notifyCheckpointAborted(2);
    expect(calls).toEqual(['checkpoint 2', 'aborted 2']);
    expect(events).toContain('coordinator.unknownCheckpointNotification');
  });

  test('after a reset to an older checkpoint, notifications above it are ignored; later ones pass', () => {
    const { h, calls } = holder();
    h.checkpointCoordinator(5);
    h.resetToCheckpoint(3, 'restored');
    h.notifyCheckpointComplete(5);
    h.notifyCheckpointAborted(4);
    h.checkpointCoordinator(6);
    h.notifyCheckpointComplete(6);
    expect(calls).toEqual(['checkpoint 5', 'reset 3', 'checkpoint 6', 'complete 6']);
  });

  test('the coordinator checkpoint completes with its state', () => {
    const { h } = holder();
    const f: CompletableFuture<unknown> = h.checkpointCoordinator(1);
    expect(f.isDone()).toBe(true);
  });
});
