/**
 * The sim's public API (DESIGN.md: sim/): the World and the pieces the harness configures or
 * inspects.
 */
export { World } from './World.ts';
export type { ChoicesReport, RunResult, StopReason } from './World.ts';
export type { WorldOptions } from './WorldOptions.ts';
export {
  DEFAULT_NETWORK_LATENCY, DEFAULT_RPC_LATENCY, DEFAULT_STORE_LATENCY, validateWorldOptions,
} from './WorldOptions.ts';
export { SimInputError } from './SimInputError.ts';
export { ChoiceSource, validateOverrides, validateDistribution } from './ChoiceSource.ts';
export type { DecisionKind, DecisionRecord, Override } from './ChoiceSource.ts';
export { RandomStreams } from './RandomStreams.ts';
export type { RandomStream } from './RandomStreams.ts';
export { Trace } from './Trace.ts';
export type { TraceEvent } from './Trace.ts';
export { TraceHash } from './TraceHash.ts';
export { EventQueue, QueueEntry } from './EventQueue.ts';
export { SimObjectStore } from './SimObjectStore.ts';
export type { ObjectStoreConfig } from './SimObjectStore.ts';
export { SimTransactionalStore } from './SimTransactionalStore.ts';
export type { CommittedRecord } from './SimTransactionalStore.ts';
export type { RpcConfig } from './RpcNetwork.ts';
