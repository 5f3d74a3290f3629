/**
 * The RPC methods the engine's gateways send (Flink's names), and what a message of each says
 * about the checkpoint protocol: which checkpoint it is about and which task attempt it names.
 * The sim's targeted message faults read messages through these functions only, so the
 * knowledge of each gateway's argument order stays next to the gateways (RpcMethods.test.ts
 * calls every gateway method and checks the answers against what it passed).
 *
 * @see org.apache.flink.runtime.jobmaster.JobMasterGateway,
 *      org.apache.flink.runtime.taskexecutor.TaskExecutorGateway,
 *      org.apache.flink.runtime.resourcemanager.ResourceManagerGateway
 */

/** Every RPC method a gateway of the engine sends, by gateway. */
export const RPC_METHODS = [
  // JobMasterGateway (TaskExecutor -> JobMaster)
  'updateTaskExecutionState', 'offerSlots', 'heartbeatFromTaskManager', 'sendOperatorEventToCoordinator',
  'acknowledgeCheckpoint', 'declineCheckpoint',
  // TaskExecutorGateway (JobMaster or ResourceManager -> TaskExecutor)
  'submitTask', 'cancelTask', 'requestSlot', 'freeSlot', 'disconnectJobManager', 'disconnectResourceManager',
  'requestHeartbeat', 'sendOperatorEventToTask', 'triggerCheckpoint', 'confirmCheckpoint', 'abortCheckpoint',
  // ResourceManagerGateway (TaskExecutor or JobMaster -> ResourceManager)
  'registerTaskExecutor', 'declareRequiredSlots', 'notifySlotFree',
] as const;
export type RpcMethod = (typeof RPC_METHODS)[number];

/**
 * Other names people use for a method: Flink's task-side name of the completion notification
 * (`notifyCheckpointComplete`) is `confirmCheckpoint` on TaskExecutorGateway.
 */
export const RPC_METHOD_ALIASES: Readonly<Record<string, RpcMethod>> = {
  notifyCheckpointComplete: 'confirmCheckpoint',
};

/** `name` as an RPC method (an alias resolved), or undefined when the engine sends no such RPC. */
export function rpcMethodNamed(name: string): RpcMethod | undefined {
  if ((RPC_METHODS as readonly string[]).includes(name)) return name as RpcMethod;
  return RPC_METHOD_ALIASES[name];
}

/** The methods whose messages are about one checkpoint ({@link rpcCheckpointId}). */
export const CHECKPOINT_RPC_METHODS: readonly RpcMethod[] = [
  'triggerCheckpoint', 'acknowledgeCheckpoint', 'declineCheckpoint', 'confirmCheckpoint', 'abortCheckpoint',
];

/**
 * Which task a message of `method` names ({@link rpcTask}): `from` the sending task, `to` the
 * receiving task, undefined none.
 */
export function rpcTaskSide(method: string): RpcTask['side'] | undefined {
  switch (method) {
    case 'acknowledgeCheckpoint':
    case 'declineCheckpoint':
    case 'updateTaskExecutionState':
    case 'sendOperatorEventToCoordinator':
      return 'from';
    case 'submitTask':
    case 'cancelTask':
    case 'triggerCheckpoint':
    case 'confirmCheckpoint':
    case 'abortCheckpoint':
    case 'sendOperatorEventToTask':
      return 'to';
    default:
      return undefined;
  }
}

/** The task attempt a message names, and whether it is the sending or the receiving task. */
export interface RpcTask {
  readonly side: 'from' | 'to';
  /** The ExecutionAttemptID, `<vertex>#<subtask>@<attempt>`. */
  readonly attempt: string;
}

const field = (v: unknown, name: string): unknown =>
  (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[name] : undefined);

/**
 * The checkpoint id a message of `method` with `args` is about: the trigger, confirmation and
 * abort of a checkpoint, and a task's ack or decline of it. Undefined for every other method
 * (and for answers, whose args are empty).
 */
export function rpcCheckpointId(method: string, args: readonly unknown[]): number | undefined {
  let id: unknown;
  switch (method) {
    case 'triggerCheckpoint':
    case 'confirmCheckpoint':
    case 'abortCheckpoint':
      id = args[1];
      break;
    case 'acknowledgeCheckpoint':
    case 'declineCheckpoint':
      id = field(args[0], 'checkpointId');
      break;
    default:
      return undefined;
  }
  return typeof id === 'number' ? id : undefined;
}

/**
 * The task attempt a message names: the sending task of a task's call to the JobMaster
 * (acknowledgeCheckpoint, declineCheckpoint, updateTaskExecutionState,
 * sendOperatorEventToCoordinator), the receiving task of a JobMaster call naming an
 * ExecutionAttemptID (submitTask, cancelTask, triggerCheckpoint, confirmCheckpoint,
 * abortCheckpoint, sendOperatorEventToTask). Undefined for a message that names no task
 * (heartbeats, slots, registration) and for answers.
 */
export function rpcTask(method: string, args: readonly unknown[]): RpcTask | undefined {
  const side = rpcTaskSide(method);
  if (side === undefined) return undefined;
  // The record-carrying methods name the attempt in their record, the others as first argument.
  const record = method === 'acknowledgeCheckpoint' || method === 'declineCheckpoint'
    || method === 'updateTaskExecutionState' || method === 'submitTask';
  const attempt = record ? field(args[0], 'attemptId') : args[0];
  return typeof attempt === 'string' ? { side, attempt } : undefined;
}
