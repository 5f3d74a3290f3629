/**
 * A task's mailbox is checked between records (Flink's MailboxProcessor looks for mail between
 * every two default-action calls, reference 2.2), end to end: a source that spends 10 ms of
 * virtual time per record takes checkpoint triggers, completion and abort notifications when the
 * record in progress ends, not when a batch of records ends; and records processed in one lazy
 * batch (MailboxProcessor) keep their own times, both in what operators see and in when their
 * output leaves.
 */
import { describe, expect, test } from 'vitest';
import type { RpcKind } from '../../engine/api/index.ts';
import {
  collectSink, SourceOperator, splitSource, StreamExecutionEnvironment, type CollectedRecord,
} from '../../engine/index.ts';
import { MiniCluster, type MiniClusterResult } from '../../sim/MiniCluster.ts';
import type { TraceEvent } from '../../sim/Trace.ts';
import { checkpointIdOf, ofType, rpcMessages } from './checkpointTrace.ts';

/** The source's cost per record, µs. */
const SOURCE_COST_US = 10_000;
/** The keyed stage's cost per record plus the sink's (the default 20 µs), µs. */
const CONSUMER_CHAIN_COST_US = 1_000 + 20;
const RECORDS = 60;
const SOURCE_TASK = 'v0#0@0';

interface Output { readonly offset: number; readonly atMs: number }
interface TimerOutput { readonly timerAtMs: number; readonly seen: number }

/**
 * One source subtask reading one split of {@link RECORDS} records at {@link SOURCE_COST_US}
 * each, keyed into a process function that outputs each record's offset with the processing
 * time it sees, into a collecting sink; checkpoints every 55 ms, so triggers fall between the
 * source's records. With `flakyStore`, 30% of the checkpoint files fail to be written, so
 * checkpoints abort too.
 */
function run(o: { seed: string; recordsPerBuffer?: number; flakyStore?: boolean }) {
  const env = new StreamExecutionEnvironment({ jobName: 'slow-source', parallelism: 1 });
  // With a flaky store checkpoints also expire after 100 ms, so that they abort while the
  // source reads even where a trigger waits for a whole batch of records.
  env.enableCheckpointing(55, {
    mode: 'EXACTLY_ONCE', tolerableFailures: 1000, ...(o.flakyStore === true ? { timeoutMs: 100 } : {}),
  });
  const out: CollectedRecord[] = [];
  const records = Array.from({ length: RECORDS }, (_, i) => i);
  env.fromSource(splitSource([{ id: 0, records }]), { name: 'src', uid: 'src', costUs: SOURCE_COST_US })
    .keyBy<number>(() => 0)
    .process<Output>({
      processElement: (offset, ctx, collector) =>
        collector.collect({ offset, atMs: ctx.timerService().currentProcessingTimeMs() }),
    }, { name: 'stamp', uid: 'stamp', costUs: 1_000 })
    .sinkTo(collectSink(out));
  const cluster = new MiniCluster({
    world: {
      seed: o.seed,
      ...(o.flakyStore === true
        ? { objectStore: { latency: { minUs: 500, medianUs: 2_000, maxUs: 10_000 }, failProbability: 0.3 } }
        : {}),
    },
    streamGraph: env.getStreamGraph(),
    // A flusher slower than the job, so buffers leave when full or ahead of a barrier.
    config: { recordsPerBuffer: o.recordsPerBuffer ?? 32, bufferTimeoutUs: 1_000_000 },
  });
  const result = cluster.run();
  expect(result.jobStatus).toBe('FINISHED');
  const outputs = out.map((c) => c.value as Output).sort((a, b) => a.offset - b.offset);
  expect(outputs.map((x) => x.offset)).toEqual(records);
  return { cluster, result, outputs };
}

/** The source's events of `type` (one per checkpoint). */
function sourceEvents(cluster: MiniCluster, type: string): TraceEvent[] {
  return ofType(cluster, type).filter((e) => e.attrs['task'] === SOURCE_TASK);
}

/** Delivery times of the RPC requests of `kind` (to any task). */
function deliveries(cluster: MiniCluster, kind: RpcKind): number[] {
  return rpcMessages(cluster, kind).flatMap((m) => (m.deliver === undefined ? [] : [m.deliver.timeUs]));
}

/**
 * Asserts that each of `handled` (a mail's effect on the source task) came when the record in
 * progress at one of `arrivals` ended: after the arrival, less than one record's cost later.
 */
function expectTakenBetweenRecords(handled: readonly TraceEvent[], arrivals: readonly number[]): void {
  for (const e of handled) {
    const arrival = arrivals.filter((t) => t <= e.timeUs).at(-1);
    expect(arrival, `checkpoint ${checkpointIdOf(e)}: no arrival before ${e.timeUs}`).toBeDefined();
    expect(e.timeUs - (arrival ?? 0), `checkpoint ${checkpointIdOf(e)}`).toBeLessThan(SOURCE_COST_US);
  }
  expect(handled.length).toBeGreaterThan(3);
}

/** The source's position (records read) in each completed checkpoint taken while it read. */
function sourcePositions(result: MiniClusterResult): Map<number, number> {
  const positions = new Map<number, number>();
  for (const c of result.completedCheckpoints) {
    const offset = SourceOperator.decode(c.operators['src']?.['0']?.data)[0];
    if (offset !== undefined) positions.set(c.checkpointId, offset);
  }
  return positions;
}

describe('a source task takes mails between two records (MailboxProcessor, reference 2.2)', () => {
  test('given a source at 10 ms per record, when checkpoints are triggered, then each trigger '
    + 'mail runs when the record in progress ends and the barrier follows exactly the records '
    + 'that started before the trigger came', () => {
    const { cluster, result } = run({ seed: 'trigger' });
    const triggered = sourceEvents(cluster, 'checkpoint.taskTriggered');
    const arrivals = deliveries(cluster, 'trigger');
    expectTakenBetweenRecords(triggered, arrivals);
    expect(arrivals).toHaveLength(triggered.length);
    // The source read back to back from one start: a barrier sent at time e after n records
    // means the records that started before e, hence before the trigger came, are those n.
    const positions = sourcePositions(result);
    expect(positions.size).toBeGreaterThan(3);
    const starts = triggered.flatMap((e) => {
      const n = positions.get(checkpointIdOf(e));
      return n === undefined ? [] : [e.timeUs - n * SOURCE_COST_US];
    });
    expect(new Set(starts).size).toBe(1);
  });

  test('given a source at 10 ms per record, when checkpoints complete, then each completion '
    + 'notification runs when the record in progress ends', () => {
    const { cluster } = run({ seed: 'notify' });
    expectTakenBetweenRecords(sourceEvents(cluster, 'checkpoint.taskNotified'),
      deliveries(cluster, 'notifyComplete'));
    expectTakenBetweenRecords(sourceEvents(cluster, 'checkpoint.taskSubsumed'),
      deliveries(cluster, 'notifyComplete'));
  });

  test('given a source at 10 ms per record and a flaky object store, when checkpoints abort, '
    + 'then each abort notification runs when the record in progress ends', () => {
    const { cluster } = run({ seed: 'abort', flakyStore: true });
    const aborted = sourceEvents(cluster, 'checkpoint.taskNotifiedAborted');
    expectTakenBetweenRecords(aborted, deliveries(cluster, 'notifyAborted'));
    // Aborts came while the source still read (not only once its input had ended).
    const endOfInput = sourceEvents(cluster, 'task.endOfInput')[0] as TraceEvent;
    expect(aborted.filter((e) => e.timeUs < endOfInput.timeUs).length).toBeGreaterThan(3);
  });
});

describe('records of a lazy batch keep their own times (MailboxProcessor)', () => {
  test('given records processed in one batch, then each sees its own processing time, one chain '
    + 'cost after the one before, and a full buffer leaves the source only when the record that '
    + 'fills it has been processed', () => {
    const perBuffer = 4;
    const { cluster, result, outputs } = run({ seed: 'own-times', recordsPerBuffer: perBuffer });
    // Consecutive records of one buffer are processed back to back by the keyed task.
    const gaps = outputs.slice(1).map((x, i) => Math.round((x.atMs - (outputs[i]?.atMs ?? 0)) * 1000));
    expect(gaps.filter((g) => g === CONSUMER_CHAIN_COST_US).length).toBeGreaterThan(RECORDS / 4);
    expect(gaps.every((g) => g >= CONSUMER_CHAIN_COST_US)).toBe(true);
    // The source read record n at start + n·cost (start from any checkpoint's barrier); a record
    // reaches the keyed task with its buffer, which is full (or cut by a barrier) no earlier than
    // the source processed the buffer's last record, so never before the record itself was.
    const trigger = sourceEvents(cluster, 'checkpoint.taskTriggered')[0] as TraceEvent;
    const position = sourcePositions(result).get(checkpointIdOf(trigger)) as number;
    const startUs = trigger.timeUs - position * SOURCE_COST_US;
    for (const x of outputs) {
      expect(x.atMs * 1000, `record ${x.offset}`).toBeGreaterThanOrEqual(startUs + x.offset * SOURCE_COST_US);
    }
  });
});

describe('processing-time timers end a lazy batch (SystemProcessingTimeService puts a mail)', () => {
  test('given a timer due while a buffer\'s records are processed, then its callback runs when '
    + 'the record in progress at the due time ends, before the next record', () => {
    const env = new StreamExecutionEnvironment({ jobName: 'timer', parallelism: 1 });
    const out: CollectedRecord[] = [];
    let seen = 0;
    env.fromSource(splitSource([{ id: 0, records: [0, 1, 2, 3, 4, 5, 6, 7] }]),
      { name: 'src', uid: 'src', costUs: SOURCE_COST_US })
      .keyBy<number>(() => 0)
      .process<Output | TimerOutput>({
        processElement: (offset, ctx, collector) => {
          seen++;
          const nowMs = ctx.timerService().currentProcessingTimeMs();
          // The first record of the second buffer sets a timer 2.5 records' cost ahead.
          if (offset === 4) ctx.timerService().registerProcessingTimeTimer(nowMs + 2.5);
          collector.collect({ offset, atMs: nowMs });
        },
        onTimer: (_timestampMs, ctx, collector) =>
          collector.collect({ timerAtMs: ctx.timerService().currentProcessingTimeMs(), seen }),
      }, { name: 'stamp', uid: 'stamp', costUs: 1_000 })
      .sinkTo(collectSink(out));
    const cluster = new MiniCluster({
      world: { seed: 'timer' }, streamGraph: env.getStreamGraph(),
      config: { recordsPerBuffer: 4, bufferTimeoutUs: 1_000_000 },
    });
    expect(cluster.run().jobStatus).toBe('FINISHED');
    const values = out.map((c) => c.value as Partial<Output & TimerOutput>);
    const at = (offset: number): number => values.find((v) => v.offset === offset)?.atMs ?? NaN;
    const timer = values.find((v) => v.timerAtMs !== undefined);
    expect(timer?.seen).toBe(7);
    // Records 4-6 started before the due time (record 4's time + 2.5 ms), 7 after the callback.
    expect(at(6)).toBeLessThan(at(4) + 2.5);
    expect(Math.round(((timer?.timerAtMs ?? 0) - at(6)) * 1000)).toBe(CONSUMER_CHAIN_COST_US);
    expect(at(7)).toBe(timer?.timerAtMs);
  });
});
