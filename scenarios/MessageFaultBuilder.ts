/**
 * MessageFaultBuilder: what `lose`, `delay` and `hold` return: a message fault (Scenario.ts
 * MessageFault) that chains filters. Each call returns a new builder (a builder never changes,
 * so one can be shared). Its data is what `toJSON()` returns, so JSON.stringify of a scenario
 * gives the plain fault of its file form; defineScenario turns every builder into that data.
 *
 * - `.of(checkpointId)`: only RPCs about that checkpoint;
 * - `.from(x)` / `.to(y)`: sending / receiving host (`jobmanager`, `taskmanager-2`) or task (`v1#0`);
 * - `.nth(n)`: the n-th matching RPC (from 1), counted from when the step's point is reached.
 */
import type { MessageFault } from './Scenario.ts';

/** The fields in the contract's order, so the data prints as a hand-written fault would. */
const ORDER = ['type', 'action', 'method', 'checkpoint', 'from', 'to', 'jobRun', 'nth', 'delayMs', 'durationMs'] as const;

export class MessageFaultBuilder {
  readonly #fault: MessageFault;

  constructor(fault: MessageFault) {
    const out: Record<string, unknown> = {};
    for (const k of ORDER) if (fault[k] !== undefined) out[k] = fault[k];
    this.#fault = out as unknown as MessageFault;
  }

  of(checkpointId: number): MessageFaultBuilder {
    return new MessageFaultBuilder({ ...this.#fault, checkpoint: checkpointId });
  }

  from(sender: string): MessageFaultBuilder {
    return new MessageFaultBuilder({ ...this.#fault, from: sender });
  }

  to(receiver: string): MessageFaultBuilder {
    return new MessageFaultBuilder({ ...this.#fault, to: receiver });
  }

  nth(n: number): MessageFaultBuilder {
    return new MessageFaultBuilder({ ...this.#fault, nth: n });
  }

  /** The plain fault data (what a scenario file holds). */
  toJSON(): MessageFault {
    return { ...this.#fault };
  }
}
