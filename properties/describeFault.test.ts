import { describe, expect, test } from 'vitest';
import { FAULT_TYPES, type Fault } from '../sim/run/RunSpec.ts';
import { describeFault, describePoint, describeTrigger } from './describeFault.ts';

describe('describeFault', () => {
  test('protocol points name the checkpoint, the phase and where', () => {
    expect(describePoint({ kind: 'task', checkpoint: 9, phase: 'acked', task: 'v1#0' })).toBe('checkpoint 9 acked on v1#0');
    expect(describePoint({ kind: 'task', checkpoint: 3, phase: 'first-barrier' })).toBe('checkpoint 3 first-barrier on any task');
    expect(describePoint({ kind: 'jobmaster', checkpoint: 2, phase: 'completed' })).toBe('checkpoint 2 completed on the jobmaster');
    expect(describePoint({ kind: 'jobmaster', savepoint: 1, phase: 'completed' })).toBe('savepoint 1 completed on the jobmaster');
    expect(describePoint({ kind: 'task', savepoint: 2, phase: 'sync-done', task: 'v1#0' })).toBe('savepoint 2 sync-done on v1#0');
    expect(describePoint({ kind: 'sink', phase: 'pre-committed', nth: 2 })).toBe('the 2nd sink transaction pre-committed');
    expect(describePoint({ kind: 'restore', checkpoint: 3 })).toBe('the 1st restore from checkpoint 3');
    expect(describePoint({ kind: 'job', status: 'RUNNING', nth: 2 })).toBe('the job RUNNING the 2nd time');
    expect(describePoint({ kind: 'job', status: 'FINISHED' })).toBe('the job FINISHED');
  });

  test('sink points count in English ordinals', () => {
    const nth = (n: number) => describePoint({ kind: 'sink', phase: 'committed', nth: n }).split(' ')[1];
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111].map(nth))
      .toEqual(['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '23rd', '101st', '111th']);
  });

  test('triggers by time and by point', () => {
    expect(describeTrigger({ atMs: 120 })).toBe('at 120 ms');
    expect(describeTrigger({ at: { kind: 'jobmaster', checkpoint: 4, phase: 'triggered' } })).toBe('at checkpoint 4 triggered on the jobmaster');
  });

  test('each fault type says what it does, to what, for how long and when', () => {
    const cases: [Fault, string][] = [
      [{ type: 'crash', host: 'taskmanager-1', when: { at: { kind: 'task', checkpoint: 9, phase: 'acked' } } },
        'crash taskmanager-1 at checkpoint 9 acked on any task'],
      [{ type: 'crash', host: 'taskmanager-2', downMs: 50, when: { atMs: 30 } }, 'crash taskmanager-2 for 50 ms at 30 ms'],
      [{ type: 'global-failure', when: { at: { kind: 'sink', phase: 'committed', nth: 1 } } },
        'global failure at the 1st sink transaction committed'],
      [{ type: 'pause', host: 'taskmanager-1', durationMs: 20, when: { atMs: 5 } }, 'pause taskmanager-1 for 20 ms at 5 ms'],
      [{ type: 'partition', a: 'taskmanager-1', b: 'jobmanager', durationMs: 30, when: { atMs: 7 } },
        'partition taskmanager-1 <-> jobmanager for 30 ms at 7 ms'],
      [{ type: 'partition', a: 'taskmanager-1', b: 'jobmanager', oneWay: true, durationMs: 30, when: { atMs: 7 } },
        'partition taskmanager-1 -> jobmanager (one way) for 30 ms at 7 ms'],
      [{ type: 'slow-task', operator: 'stats', factor: 10, durationMs: 100, when: { atMs: 0 } },
        'slow task of stats (10x) for 100 ms at 0 ms'],
      [{ type: 'coordinator-stall', durationMs: 1500, when: { at: { kind: 'jobmaster', checkpoint: 3, phase: 'triggered' } } },
        'coordinator stall of the first source for 1500 ms at checkpoint 3 triggered on the jobmaster'],
      [{ type: 'coordinator-stall', operator: 'src', durationMs: 20, when: { atMs: 5 } }, 'coordinator stall of src for 20 ms at 5 ms'],
      [{ type: 'rpc-loss', kind: 'ack', probability: 0.5 }, 'rpc-loss of ack RPCs (probability 0.5)'],
      [{ type: 'rpc-delay', kind: 'trigger', latency: { minMs: 1, medianMs: 5, maxMs: 50 } },
        'rpc-delay of trigger RPCs (1/5/50 ms min/median/max)'],
      [{ type: 'store-failure', probability: 0.2 }, 'store-failure (probability 0.2)'],
      [{ type: 'store-unknown-outcome', probability: 1 }, 'store-unknown-outcome (probability 1)'],
      [{ type: 'async-snapshot-failure', probability: 0.5 }, 'async-snapshot-failure (probability 0.5)'],
      [{ type: 'slow-store', factor: 100 }, 'slow-store (100x)'],
      [{ type: 'message', action: 'lose', method: 'confirmCheckpoint', checkpoint: 4, to: 'v1#0', nth: 2,
        when: { at: { kind: 'restore' } } },
      'lose the 2nd confirmCheckpoint of checkpoint 4 to v1#0 armed at the 1st restore'],
      [{ type: 'message', action: 'delay', method: 'acknowledgeCheckpoint', from: 'v0#1', delayMs: 30 },
        'delay the 1st acknowledgeCheckpoint from v0#1 by 30 ms'],
      [{ type: 'message', action: 'hold', method: 'requestHeartbeat', to: 'taskmanager-1' },
        'hold the 1st requestHeartbeat to taskmanager-1 until the heal time'],
      [{ type: 'channel-event', event: 'cancellation', checkpoint: 3, from: 'v1#1', to: 'v2#0', delayMs: 80 },
        'delay the 1st cancellation marker of checkpoint 3 from v1#1 to v2#0 by 80 ms'],
      [{ type: 'channel-event', event: 'barrier', to: 'v1#0', nth: 2, delayMs: 30, jobRun: 2,
        when: { at: { kind: 'jobmaster', checkpoint: 2, phase: 'completed' } } },
      'delay the 2nd barrier of job run 2 to v1#0 by 30 ms armed at checkpoint 2 completed on the jobmaster'],
    ];
    for (const [fault, text] of cases) expect(describeFault(fault)).toBe(text);
    // Every fault type is covered above.
    expect(new Set(cases.map(([f]) => f.type))).toEqual(new Set(FAULT_TYPES));
  });
});

test('a crash or pause naming a task says it is that task\'s host', () => {
  expect(describeFault({ type: 'crash', host: 'v1#0', when: { at: { kind: 'task', checkpoint: 3, phase: 'acked', task: 'v1#0' } } }))
    .toBe('crash the host of v1#0 at checkpoint 3 acked on v1#0');
  expect(describeFault({ type: 'pause', host: 'v0#1', durationMs: 40, when: { atMs: 12 } }))
    .toBe('pause the host of v0#1 for 40 ms at 12 ms');
  expect(describeFault({ type: 'pause', host: 'taskmanager-2', durationMs: 40, when: { atMs: 12 } }))
    .toBe('pause taskmanager-2 for 40 ms at 12 ms');
});
