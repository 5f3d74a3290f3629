/**
 * CheckpointableInputs over a task's InputGates: gate `g` of a ChannelInfo is the gate whose
 * `gateIndex` is `g`.
 *
 * @see org.apache.flink.streaming.runtime.io.checkpointing.CheckpointedInputGate
 *
 * Invariants: gate indexes are distinct; the channel count is fixed at construction.
 */
import { assert } from '../../util/assert.ts';
import type { InputGate } from '../InputGate.ts';
import type { ChannelInfo } from './ChannelInfo.ts';
import type { CheckpointableInputs } from './CheckpointableInputs.ts';

/** The part of InputGate the adapter uses. */
export type CheckpointableGate =
  Pick<InputGate, 'gateIndex' | 'numberOfChannels' | 'resumeConsumption' | 'isBlocked'>;

export class InputGateCheckpointableInputs implements CheckpointableInputs {
  private readonly gates = new Map<number, CheckpointableGate>();
  private readonly numberOfChannels: number;

  /** @throws AssertionError if two gates share a gate index. */
  constructor(gates: readonly CheckpointableGate[]) {
    let channels = 0;
    for (const gate of gates) {
      assert(!this.gates.has(gate.gateIndex), () => `duplicate gate index ${gate.gateIndex}`);
      this.gates.set(gate.gateIndex, gate);
      channels += gate.numberOfChannels;
    }
    this.numberOfChannels = channels;
  }

  getNumberOfInputChannels(): number {
    return this.numberOfChannels;
  }

  resumeConsumption(channel: ChannelInfo): void {
    this.gate(channel).resumeConsumption(channel.channel);
  }

  isBlocked(channel: ChannelInfo): boolean {
    return this.gate(channel).isBlocked(channel.channel);
  }

  private gate(channel: ChannelInfo): CheckpointableGate {
    const gate = this.gates.get(channel.gate);
    assert(gate !== undefined, () => `no input gate ${channel.gate}`);
    return gate;
  }
}
