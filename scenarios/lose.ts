/**
 * `lose(method)`: a step action: the n-th (default first) RPC of `method` (an engine RPC method,
 * Flink's name: `confirmCheckpoint`, `acknowledgeCheckpoint`, ...) that matches the builder's
 * filters is lost. Chain `.of(checkpoint)`, `.from(x)`, `.to(y)`, `.nth(n)` (MessageFaultBuilder.ts).
 */
import { MessageFaultBuilder } from './MessageFaultBuilder.ts';

export function lose(method: string): MessageFaultBuilder {
  return new MessageFaultBuilder({ type: 'message', action: 'lose', method });
}
