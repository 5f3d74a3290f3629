/**
 * InputEndTracker: which of a task's input channels have ended their data (EndOfData) or their
 * partition (EndOfPartition), and with which StopMode. A task's data ends when every channel has
 * said EndOfData (an EndOfPartition without one counts, as for an upstream that finished on
 * restore); it drains only when every channel's EndOfData said DRAIN, else it stops with
 * NO_DRAIN, as SingleInputGate.hasReceivedEndOfData decides (DRAINED or STOPPED).
 *
 * @see org.apache.flink.runtime.io.network.partition.consumer.SingleInputGate (hasReceivedEndOfData),
 *      org.apache.flink.streaming.runtime.io.AbstractStreamTaskNetworkInput
 * Invariants: every channel named is `gate/channel` of the task's gates; sets only grow.
 */
import type { StopMode } from '../../checkpoint/CheckpointBarrier.ts';
import type { InputGate } from '../../io/InputGate.ts';

/** A channel of a task's input: its gate's index and the channel's index in that gate. */
export interface ChannelRef {
  readonly gate: number;
  readonly channel: number;
}

export class InputEndTracker {
  private readonly endOfData = new Set<string>();
  private readonly stopped = new Set<string>();
  private readonly endOfPartition = new Set<string>();
  private readonly total: number;

  constructor(private readonly gates: readonly InputGate[]) {
    this.total = gates.reduce((n, g) => n + g.numberOfChannels, 0);
  }

  /**
   * EndOfData arrived on `ch` with `mode`. @returns the mode the task's data ends with when
   * every channel has now ended its data, else undefined.
   */
  endOfDataOn(ch: ChannelRef, mode: StopMode): StopMode | undefined {
    this.endOfData.add(key(ch));
    if (mode === 'NO_DRAIN') this.stopped.add(key(ch));
    if (this.endOfData.size !== this.total) return undefined;
    return this.stopped.size > 0 ? 'NO_DRAIN' : 'DRAIN';
  }

  /** EndOfPartition arrived on `ch` (its data ended too, if it had not said so). */
  endOfPartitionOn(ch: ChannelRef): void {
    this.endOfData.add(key(ch));
    this.endOfPartition.add(key(ch));
  }

  /** Channels that have not delivered EndOfPartition, gate by gate. */
  openChannels(): ChannelRef[] {
    const out: ChannelRef[] = [];
    this.gates.forEach((g, gi) => {
      for (let c = 0; c < g.numberOfChannels; c++) if (!this.endOfPartition.has(`${gi}/${c}`)) out.push({ gate: gi, channel: c });
    });
    return out;
  }
}

const key = (ch: ChannelRef): string => `${ch.gate}/${ch.channel}`;
