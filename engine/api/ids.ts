/**
 * Branded identifier types shared by the engine and the sim. A brand keeps a host id from being
 * passed where a checkpoint id is expected; the values stay plain strings and numbers so they
 * serialise into traces and RunSpecs unchanged.
 */

declare const brand: unique symbol;
/** A value of type `T` tagged with the name `B`; erased at run time. */
export type Brand<T, B extends string> = T & { readonly [brand]: B };

/** A simulated process: `jobmanager` or `taskmanager-<n>`. */
export type HostId = Brand<string, 'HostId'>;
/** An RPC endpoint address, e.g. `jobmaster`, `resourcemanager`, `taskexecutor@taskmanager-1`. */
export type RpcAddress = Brand<string, 'RpcAddress'>;
/** A checkpoint id handed out by CheckpointIDCounter; starts at 1, never reused. */
export type CheckpointId = Brand<number, 'CheckpointId'>;
/** Flink's ExecutionAttemptID, rendered `<vertex>#<subtask>@<attempt>`. */
export type ExecutionAttemptId = Brand<string, 'ExecutionAttemptId'>;

export const hostId = (s: string): HostId => s as HostId;
export const rpcAddress = (s: string): RpcAddress => s as RpcAddress;
export const checkpointId = (n: number): CheckpointId => n as CheckpointId;
export const executionAttemptId = (s: string): ExecutionAttemptId => s as ExecutionAttemptId;
