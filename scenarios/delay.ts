/**
 * `delay(method, delayMs)`: a step action: the matching RPC arrives `delayMs` later; later
 * messages on its link wait behind it (per-link order). Chains like `lose`.
 */
import { MessageFaultBuilder } from './MessageFaultBuilder.ts';

export function delay(method: string, delayMs: number): MessageFaultBuilder {
  return new MessageFaultBuilder({ type: 'message', action: 'delay', method, delayMs });
}
