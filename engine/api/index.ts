/** The engine's ports (DESIGN.md: engine/api). The sim implements them; the engine uses them. */
export * from './ChoicePoints.ts';
export * from './Clock.ts';
export * from './DataNetwork.ts';
export * from './EngineEnv.ts';
export * from './Executor.ts';
export * from './ids.ts';
export * from './MetricGroups.ts';
export * from './ObjectStore.ts';
export * from './Rpc.ts';
export * from './Tracer.ts';
export * from './TransactionalStore.ts';
export { CompletableFuture, CancellationError } from '../util/CompletableFuture.ts';
export { assert, AssertionError } from '../util/assert.ts';
