import { describe, expect, test } from 'vitest';
import type { OperatorCoordinator } from './OperatorCoordinator.ts';
import { RecreateOnResetOperatorCoordinator } from './RecreateOnResetOperatorCoordinator.ts';

/** A provider of coordinators that log their calls as `<n> <call>` (n: which one, from 1). */
function provider() {
  const log: string[] = [];
  let made = 0;
  const make = (): OperatorCoordinator => {
    const n = ++made;
    const note = (s: string) => log.push(`${n} ${s}`);
    return {
      start: () => note('start'),
      close: () => note('close'),
      handleEventFromOperator: (s) => note(`event ${s}`),
      checkpointCoordinator: (id) => note(`checkpoint ${id}`),
      notifyCheckpointComplete: (id) => note(`complete ${id}`),
      notifyCheckpointAborted: (id) => note(`aborted ${id}`),
      resetToCheckpoint: (id, state) => note(`reset ${id} ${String(state)}`),
      subtaskReset: (s, id) => note(`subtaskReset ${s} ${id}`),
      executionAttemptFailed: (s) => note(`failed ${s}`),
      executionAttemptReady: (s) => note(`ready ${s}`),
    };
  };
  return { log, make };
}

describe('RecreateOnResetOperatorCoordinator', () => {
  test('a reset closes the current coordinator and resets and starts a new one, which takes every later call', () => {
    const p = provider();
    const c = new RecreateOnResetOperatorCoordinator(p.make);
    c.start();
    c.handleEventFromOperator(0, 0, 'e');
    c.resetToCheckpoint(3, 'state 3');
    c.notifyCheckpointComplete(4);
    c.subtaskReset(1, 4);
    expect(p.log).toEqual(['1 start', '1 event 0', '1 close', '2 reset 3 state 3', '2 start', '2 complete 4', '2 subtaskReset 1 4']);
    expect(() => c.start()).toThrow(/already started/);
  });

  test('a reset before the start (a restore at submission) starts nothing; the start later starts the new one', () => {
    const p = provider();
    const c = new RecreateOnResetOperatorCoordinator(p.make);
    c.resetToCheckpoint(2, 'state 2');
    c.start();
    expect(p.log).toEqual(['1 close', '2 reset 2 state 2', '2 start']);
  });

  test('after close a reset creates no coordinator', () => {
    const p = provider();
    const c = new RecreateOnResetOperatorCoordinator(p.make);
    c.start();
    c.close();
    c.resetToCheckpoint(1, undefined);
    expect(p.log).toEqual(['1 start', '1 close', '1 close']);
  });
});
