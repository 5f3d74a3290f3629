/**
 * causeChain through the operator coordinator's threads: the SourceCoordinator works on its own
 * coordinator thread, reached from the JobMaster main thread and answering through it, so a
 * chain crosses main -> coordinator thread -> main. Each hop must carry the cause (a task keeps
 * the cause it was queued under), or the chain would stop short at a root.
 */
import { describe, expect, test } from 'vitest';
import { RUN_SPEC_VERSION, type RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import type { TraceEvent } from '../../sim/Trace.ts';
import { causeChain } from './causeChain.ts';
import { EventIndex } from './EventIndex.ts';

/** Flights 0..200 at parallelism 2, a checkpoint every 20 ms, no faults. */
const SPEC: RunSpec = {
  version: RUN_SPEC_VERSION,
  seed: 'coordinator-causes',
  job: { kind: 'flights', selection: { from: 0, to: 200 } },
  parallelism: 2,
  checkpoint: { mode: 'aligned', intervalMs: 20 },
  faults: [],
  healTimeMs: 100,
  budgets: { maxEvents: 2_000_000, maxTimeMs: 20_000 },
  overrides: [],
  mutations: [],
};

/** `type` or `type method` for RPC events, the chain from `start` back. */
function chainOf(index: EventIndex, start: TraceEvent): string[] {
  return causeChain(index, start).map(({ event: e }) => {
    const method = e.type.startsWith('rpc.') ? index.send(e.attrs.id)?.attrs.method : undefined;
    return method === undefined ? e.type : `${e.type} ${String(method)}`;
  });
}

describe('causeChain through the coordinator thread', () => {
  const result = simulate(SPEC);
  const index = new EventIndex(result.trace);

  test('a split sent to a reader goes back through the main thread and the coordinator thread to the reader\'s request', () => {
    const send = index.ofType('rpc.send').find((e) => e.attrs.method === 'sendOperatorEventToTask');
    expect(send).toBeDefined();
    const chain = chainOf(index, send as TraceEvent);
    // The send (main), the assignment (coordinator thread), the request's delivery to the
    // JobMaster (main) and its send by the reader's task.
    expect(chain.slice(0, 4)).toEqual([
      'rpc.send sendOperatorEventToTask', 'source.split-assigned',
      'rpc.deliver sendOperatorEventToCoordinator', 'rpc.send sendOperatorEventToCoordinator',
    ]);
  });

  test('the coordinators\' part of a checkpoint goes back through the snapshot on the coordinator thread to the trigger', () => {
    const snapshotted = index.ofType('checkpoint.coordinatorsSnapshotted')[0];
    expect(snapshotted).toBeDefined();
    const chain = chainOf(index, snapshotted as TraceEvent);
    expect(chain[0]).toBe('checkpoint.coordinatorsSnapshotted');
    expect(chain).toContain('source.coordinator-checkpoint');
    expect(chain.at(-1)).toBe('checkpoint.triggered');
  });
});

describe('causeChain of an expiry behind a busy coordinator thread', () => {
  test('a checkpoint that expired while its coordinator snapshot waited for a coordinator stall goes back to the stall', () => {
    const stalled = simulate({
      ...SPEC, checkpoint: { mode: 'aligned', intervalMs: 20, timeoutMs: 60, tolerableFailures: 10 }, healTimeMs: 400,
      faults: [{ type: 'coordinator-stall', when: { at: { kind: 'jobmaster', checkpoint: 2, phase: 'triggered' } }, durationMs: 100 }],
    });
    const stalledIndex = new EventIndex(stalled.trace);
    const expired = stalledIndex.ofType('checkpoint.aborted').find((e) => e.attrs.checkpointId === 2);
    expect(expired?.attrs.reason).toBe('CHECKPOINT_EXPIRED');
    const chain = causeChain(stalledIndex, expired as TraceEvent);
    expect(chain.map((s) => s.event.type)).toEqual(['checkpoint.aborted', 'fault']);
    expect(chain[1]?.event.attrs).toMatchObject({ type: 'coordinator-stall', action: 'stall' });
    expect(chain[1]?.inferred).toBe('checkpoint 2 waited for a busy coordinator thread');
  });
});
