/**
 * The public surface of engine/state: key-group arithmetic, the heap keyed state backend with
 * copy-on-write snapshots and timers, the operator state backend, and the round-robin operator
 * state repartitioner. Internal helpers (the copy-on-write store, the heap, the handle classes)
 * stay unexported.
 */
export { IllegalArgumentError, checkArgument } from './IllegalArgumentError.ts';
export { KeyGroupRange } from './KeyGroupRange.ts';
export {
  DEFAULT_LOWER_BOUND_MAX_PARALLELISM,
  UPPER_BOUND_MAX_PARALLELISM,
  assignKeyToParallelOperator,
  assignToKeyGroup,
  bitMix,
  checkParallelismPreconditions,
  computeDefaultMaxParallelism,
  computeKeyGroupForKeyHash,
  computeKeyGroupRangeForOperatorIndex,
  computeOperatorIndexForKeyGroup,
  javaHashCode,
  murmurHash,
  roundUpToPowerOfTwo,
} from './KeyGroupRangeAssignment.ts';
export type { PartitionKey } from './KeyGroupRangeAssignment.ts';
export type { ListState, MapState, MapStateKey, ValueState } from './State.ts';
export type { StateDescriptor, StateKind } from './StateDescriptor.ts';
export { VOID_NAMESPACE } from './InternalTimer.ts';
export type { InternalTimer } from './InternalTimer.ts';
export { HeapInternalTimerService } from './HeapInternalTimerService.ts';
export type { FiredTimer } from './HeapInternalTimerService.ts';
export { HeapKeyedStateBackend } from './HeapKeyedStateBackend.ts';
export type { HeapKeyedStateBackendOptions } from './HeapKeyedStateBackend.ts';
export { KeyedStateSnapshot, emptyKeyedStateSnapshot } from './KeyedStateSnapshot.ts';
export type { KeyedStateJson, StateKeyType, TimerJson } from './KeyedStateSnapshot.ts';
export type { KeyGroupSnapshotData, StateEntry } from './CopyOnWriteKeyGroupStore.ts';
export { operatorStateHandle } from './OperatorStateHandle.ts';
export type {
  OperatorStateHandle, OperatorStateMode, StateMetaInfo,
} from './OperatorStateHandle.ts';
export { DefaultOperatorStateBackend } from './DefaultOperatorStateBackend.ts';
export type { OperatorStateJson } from './DefaultOperatorStateBackend.ts';
export { RoundRobinOperatorStateRepartitioner } from './RoundRobinOperatorStateRepartitioner.ts';
export { javaHashMapKeyOrder } from './javaHashMapKeyOrder.ts';
