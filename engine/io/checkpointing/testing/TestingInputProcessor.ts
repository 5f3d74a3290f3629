/**
 * Drives a barrier handler the way a task's input processor does: each step is one buffer the
 * network hands out on a channel of gate 0 (or a given gate), passed on to the handler, after
 * which the handler's invariants are checked.
 *
 * Invariants: every delivery goes through TestingCheckpointableInputs first, so it respects
 * blocking and finished channels.
 */
import type { PlantedBugs } from '../../../api/EngineEnv.ts';
import type { CheckpointBarrier } from '../../../checkpoint/CheckpointBarrier.ts';
import { isBlockingBarrier } from '../../../checkpoint/CheckpointBarrier.ts';
import { TestingTracer } from '../../../testing/TestingTracer.ts';
import type { ChannelInfo } from '../ChannelInfo.ts';
import type { CheckpointBarrierHandler } from '../CheckpointBarrierHandler.ts';
import type { CheckpointingMode } from '../createBarrierHandler.ts';
import { createBarrierHandler } from '../createBarrierHandler.ts';
import { TestingCheckpointableInputs } from './TestingCheckpointableInputs.ts';
import { TestingCheckpointableTask } from './TestingCheckpointableTask.ts';

/** Options of {@link TestingInputProcessor}. */
export interface TestingInputProcessorOptions {
  /** Channels per gate; default one gate. */
  readonly gateSizes: readonly number[];
  readonly checkpointsAfterTasksFinish?: boolean;
  readonly bugs?: readonly string[];
}

type Alignment = CheckpointBarrier['options']['alignment'];

/** A checkpoint barrier with `alignment` (ALIGNED by default). */
export function barrierOf(id: number, alignment: Alignment = 'ALIGNED'): CheckpointBarrier {
  return {
    id, timestampUs: id * 1000,
    options: { snapshotType: 'CHECKPOINT', alignment, alignedCheckpointTimeoutUs: 0 },
  };
}

export class TestingInputProcessor {
  readonly log: string[] = [];
  readonly task = new TestingCheckpointableTask(this.log);
  readonly inputs: TestingCheckpointableInputs;
  readonly tracer = new TestingTracer();
  readonly handler: CheckpointBarrierHandler;
  private readonly alignment: Alignment;

  constructor(mode: CheckpointingMode, options: TestingInputProcessorOptions) {
    this.inputs = new TestingCheckpointableInputs(options.gateSizes, this.log);
    const bugs = new Set(options.bugs ?? []);
    const planted: PlantedBugs = { has: (id) => bugs.has(id) };
    this.alignment = mode === 'EXACTLY_ONCE' ? 'ALIGNED' : 'AT_LEAST_ONCE';
    this.handler = createBarrierHandler(mode, {
      task: this.task, inputs: this.inputs, taskName: 'map (1/1)#0', tracer: this.tracer,
      bugs: planted, checkpointsAfterTasksFinish: options.checkpointsAfterTasksFinish ?? true,
    });
  }

  /** Barrier `id` (in the mode's alignment) arrives on `channel` of gate `gate`. */
  barrier(id: number, channel: number, gate = 0): void {
    this.barrierWith(barrierOf(id, this.alignment), { gate, channel });
  }

  /** `barrier` arrives on `info` from the network. */
  barrierWith(barrier: CheckpointBarrier, info: ChannelInfo): void {
    this.inputs.deliverBarrier(info, isBlockingBarrier(barrier));
    this.handler.processBarrier(barrier, info, false);
    this.handler.checkInvariants();
  }

  /** The task made up barrier `id` on a trigger RPC, for `channel` (never blocked). */
  rpcBarrier(id: number, channel: number, gate = 0): void {
    this.handler.processBarrier(barrierOf(id, this.alignment), { gate, channel }, true);
    this.handler.checkInvariants();
  }

  /** A CancelCheckpointMarker for `id` arrives on `channel`. */
  cancel(id: number, channel: number, gate = 0): void {
    this.inputs.deliverOther({ gate, channel });
    this.handler.processCancellationBarrier(id, { gate, channel });
    this.handler.checkInvariants();
  }

  /** EndOfPartition arrives on `channel`. */
  endOfPartition(channel: number, gate = 0): void {
    this.inputs.deliverEndOfPartition({ gate, channel });
    this.handler.processEndOfPartition({ gate, channel });
    this.handler.checkInvariants();
  }

  /** A record arrives on `channel` (fails if the channel is blocked). */
  data(channel: number, gate = 0): void {
    this.inputs.deliverOther({ gate, channel });
  }
}
