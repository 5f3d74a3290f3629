import { describe, expect, test } from 'vitest';
import type { RpcService } from '../api/Rpc.ts';
import { executionAttemptId, hostId, rpcAddress } from '../api/ids.ts';
import { CompletableFuture } from '../util/CompletableFuture.ts';
import type { TaskDeploymentDescriptor } from '../taskexecutor/TaskDeploymentDescriptor.ts';
import { JobMasterGatewayClient } from './JobMasterGateway.ts';
import { ResourceManagerGatewayClient } from './ResourceManagerGateway.ts';
import {
  CHECKPOINT_RPC_METHODS, RPC_METHODS, rpcCheckpointId, rpcMethodNamed, rpcTask, rpcTaskSide,
} from './RpcMethods.ts';
import { TaskExecutorGatewayClient } from './TaskExecutorGateway.ts';

/** An RpcService that records each call's method and args. */
function recorder(): { rpc: RpcService; calls: { method: string; args: readonly unknown[] }[] } {
  const calls: { method: string; args: readonly unknown[] }[] = [];
  const rpc: RpcService = {
    startEndpoint: () => {},
    stopEndpoint: () => {},
    tell: (_from, _to, _kind, method, args) => { calls.push({ method, args }); },
    ask: <R>(_from: unknown, _to: unknown, _kind: unknown, method: string, args: readonly unknown[]) => {
      calls.push({ method, args });
      return new CompletableFuture<R>();
    },
  };
  return { rpc, calls };
}

const a = executionAttemptId('v1#0@2');

describe('RpcMethods', () => {
  // Every gateway method, called as the engine calls it: what each message says about the
  // checkpoint and the task is read from the real argument order.
  const { rpc, calls } = recorder();
  const self = rpcAddress('self');
  const jm = new JobMasterGatewayClient(rpc, self, rpcAddress('jobmaster'), 10);
  const te = new TaskExecutorGatewayClient(rpc, self, rpcAddress('te'), 10);
  const rm = new ResourceManagerGatewayClient(rpc, self, rpcAddress('rm'), 10);
  jm.updateTaskExecutionState({ attemptId: a, state: 'RUNNING' });
  jm.offerSlots([]);
  jm.heartbeatFromTaskManager(self, []);
  jm.sendOperatorEventToCoordinator(a, 'uid', {});
  jm.acknowledgeCheckpoint({ attemptId: a, checkpointId: 7, subtaskState: null });
  jm.declineCheckpoint({ attemptId: a, checkpointId: 8, reason: 'CHECKPOINT_DECLINED_TASK_NOT_READY' });
  te.submitTask({ attemptId: a } as TaskDeploymentDescriptor);
  te.cancelTask(a);
  te.requestSlot(0, 'alloc', self);
  te.freeSlot(0, 'alloc');
  te.disconnectJobManager(self, 'cause');
  te.disconnectResourceManager('cause');
  te.requestHeartbeat(self);
  te.sendOperatorEventToTask(a, 'uid', {});
  te.triggerCheckpoint(a, 3, 100, { isSavepoint: false } as never);
  te.confirmCheckpoint(a, 4, 100, 2);
  te.abortCheckpoint(a, 5, 4, 100);
  rm.registerTaskExecutor(self, hostId('taskmanager-1'), 0, []);
  rm.declareRequiredSlots(self, 2);
  rm.notifySlotFree(self, 0, 'alloc');

  test('RPC_METHODS lists exactly the methods the gateways send', () => {
    expect([...new Set(calls.map((c) => c.method))].sort()).toEqual([...RPC_METHODS].sort());
  });

  test('the checkpoint id is read from the five checkpoint RPCs and no other', () => {
    const ids = Object.fromEntries(calls.map((c) => [c.method, rpcCheckpointId(c.method, c.args)]));
    expect(Object.entries(ids).filter(([, id]) => id !== undefined)).toEqual([
      ['acknowledgeCheckpoint', 7], ['declineCheckpoint', 8], ['triggerCheckpoint', 3], ['confirmCheckpoint', 4],
      ['abortCheckpoint', 5],
    ]);
    expect([...CHECKPOINT_RPC_METHODS].sort()).toEqual(Object.keys(ids).filter((m) => ids[m] !== undefined).sort());
  });

  test('the task is the sender of calls to the JobMaster and the receiver of calls naming an attempt', () => {
    const tasks = calls.flatMap((c) => {
      const t = rpcTask(c.method, c.args);
      expect(t?.side).toBe(rpcTaskSide(c.method));
      return t === undefined ? [] : [`${c.method} ${t.side} ${t.attempt}`];
    });
    expect(tasks).toEqual([
      'updateTaskExecutionState from v1#0@2', 'sendOperatorEventToCoordinator from v1#0@2',
      'acknowledgeCheckpoint from v1#0@2', 'declineCheckpoint from v1#0@2', 'submitTask to v1#0@2',
      'cancelTask to v1#0@2', 'sendOperatorEventToTask to v1#0@2', 'triggerCheckpoint to v1#0@2',
      'confirmCheckpoint to v1#0@2', 'abortCheckpoint to v1#0@2',
    ]);
    // An answer carries no arguments and names nothing.
    expect(rpcTask('acknowledgeCheckpoint', [])).toBeUndefined();
    expect(rpcCheckpointId('triggerCheckpoint', [])).toBeUndefined();
  });

  test('notifyCheckpointComplete is confirmCheckpoint; unknown names are none', () => {
    expect(rpcMethodNamed('notifyCheckpointComplete')).toBe('confirmCheckpoint');
    expect(rpcMethodNamed('triggerCheckpoint')).toBe('triggerCheckpoint');
    expect(rpcMethodNamed('notifyComplete')).toBeUndefined();
  });
});
