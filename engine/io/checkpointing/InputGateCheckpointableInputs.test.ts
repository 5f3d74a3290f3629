import { describe, expect, test } from 'vitest';
import type { CheckpointBarrier } from '../../checkpoint/CheckpointBarrier.ts';
import type { StreamRecord } from '../../streaming/api/StreamRecord.ts';
import { TestingIoWorld } from '../../testing/TestingIoWorld.ts';
import { InputGate } from '../InputGate.ts';
import { ResultPartition } from '../ResultPartition.ts';
import { createBarrierHandler } from './createBarrierHandler.ts';
import { InputGateCheckpointableInputs } from './InputGateCheckpointableInputs.ts';
import { TestingCheckpointableTask } from './testing/TestingCheckpointableTask.ts';
import { barrierOf } from './testing/TestingInputProcessor.ts';

const rec = (split: number, offset: number): StreamRecord =>
  ({ value: offset, split, offset, tag: '' });

/** Two producers `p0`, `p1` feeding one gate of a consumer with an aligned handler. */
function setup() {
  const world = new TestingIoWorld();
  const partitions = [0, 1].map((i) => {
    const p = new ResultPartition({
      env: world.producerEnv, partitionId: `p${i}`, numSubpartitions: 1,
      executor: world.producerExecutor, recordsPerBuffer: 1, bufferTimeoutUs: 0,
      recordSizeBytes: 8, poolSize: 16, onError: (e) => { throw e; },
    });
    p.setup();
    return p;
  });
  const gate = new InputGate({
    env: world.consumerEnv, executor: world.consumerExecutor, gateIndex: 0,
    channels: partitions.map((_, i) => ({
      partitionId: `p${i}`, subpartition: 0, producerHost: world.producerHost,
    })),
    exclusiveCredit: 4,
    onError: (e) => { throw e; },
  });
  gate.setup();
  world.runAll();
  const log: string[] = [];
  const task = new TestingCheckpointableTask(log);
  const inputs = new InputGateCheckpointableInputs([gate]);
  const handler = createBarrierHandler('EXACTLY_ONCE', {
    task, inputs, taskName: 'sink (1/1)#0', tracer: world.consumerEnv.tracer,
    bugs: world.consumerEnv.bugs, checkpointsAfterTasksFinish: true,
  });
  world.consumerEnv.invariants.register('handler', () => handler.checkInvariants());
  /** Polls like a task: records go to the log, events to the handler. */
  const process = (): void => {
    for (let b = gate.pollNext(); b !== undefined; b = gate.pollNext()) {
      const channel = { gate: 0, channel: b.channel };
      if (b.buffer.kind === 'data') {
        for (const r of b.buffer.records) log.push(`record ${r.split}:${r.offset}`);
        gate.recycle(b.channel);
        continue;
      }
      const e = b.buffer.event;
      if (e.type === 'barrier') handler.processBarrier(e.barrier, channel, false);
      else if (e.type === 'cancel-checkpoint') {
        handler.processCancellationBarrier(e.checkpointId, channel);
      }
      else if (e.type === 'end-of-partition') handler.processEndOfPartition(channel);
    }
  };
  const [p0, p1] = partitions as [ResultPartition, ResultPartition];
  return { world, gate, inputs, handler, task, log, process, p0, p1 };
}

const barrier = (id: number): { type: 'barrier'; barrier: CheckpointBarrier } =>
  ({ type: 'barrier', barrier: barrierOf(id) });

describe('InputGateCheckpointableInputs with a real InputGate', () => {
  test('records behind a barrier wait for the alignment, then flow after the trigger', () => {
    const { world, inputs, handler, task, log, process, p0, p1 } = setup();
    expect(inputs.getNumberOfInputChannels()).toBe(2);
    p0.emitRecord(rec(0, 0), 0);
    p0.broadcastEvent(barrier(1));
    p0.emitRecord(rec(0, 1), 0);
    p1.emitRecord(rec(1, 0), 0);
    world.runAll();
    process();
    // Channel 0 is held by the network after its barrier; its record 0:1 stays upstream.
    expect(log).toEqual(['record 0:0', 'record 1:0']);
    expect(inputs.isBlocked({ gate: 0, channel: 0 })).toBe(true);
    expect(handler.isCheckpointPending()).toBe(true);
    p1.broadcastEvent(barrier(1));
    p1.emitRecord(rec(1, 1), 0);
    world.runAll();
    process();
    expect(task.triggered).toEqual([1]);
    expect(inputs.isBlocked({ gate: 0, channel: 0 })).toBe(false);
    world.runAll();
    process();
    expect(log.slice(0, 3)).toEqual(['record 0:0', 'record 1:0', 'trigger 1']);
    expect(log.slice(3).sort()).toEqual(['record 0:1', 'record 1:1']);
  });

  test('an EndOfPartition completes the alignment, and the gate finishes', () => {
    const { world, gate, handler, task, process, p0, p1 } = setup();
    p0.broadcastEvent(barrier(1));
    world.runAll();
    process();
    p1.finish();
    world.runAll();
    process();
    expect(task.triggered).toEqual([1]);
    p0.finish();
    world.runAll();
    process();
    expect(gate.isFinished()).toBe(true);
    expect(handler.isCheckpointPending()).toBe(false);
  });

  test('rejects duplicate gate indexes and unknown gates', () => {
    const { gate, inputs } = setup();
    expect(() => new InputGateCheckpointableInputs([gate, gate])).toThrow(/duplicate gate/);
    expect(() => inputs.resumeConsumption({ gate: 3, channel: 0 })).toThrow(/no input gate 3/);
  });
});
