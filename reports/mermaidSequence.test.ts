import { describe, expect, test } from 'vitest';
import type { TraceAttrs } from '../engine/api/index.ts';
import type { TraceEvent } from '../sim/Trace.ts';
import {
  MAX_DIAGRAM_CHARS, mermaidMarkdown, mermaidSequence, mermaidText, sequenceStepsOf, type SequenceStep,
} from './mermaidSequence.ts';
import { HOSTILE_TITLE, hostileSteps } from './testing/hostileSteps.ts';
import { describeForTests, lostTriggerWindow } from './testing/lostTriggerWindow.ts';

/** A trace built event by event, with consecutive seq numbers and time in µs. */
function traceOf(...events: [timeUs: number, host: string, type: string, attrs: TraceAttrs][]): TraceEvent[] {
  return events.map(([timeUs, host, type, attrs], seq) => ({ seq, timeUs, host, type, attrs }));
}

const JM = 'jobmaster';
const RM = 'resourcemanager';
const TE1 = 'taskexecutor@taskmanager-1/0';
const TE1B = 'taskexecutor@taskmanager-1/250000';
const TE2 = 'taskexecutor@taskmanager-2/0';

function send(timeUs: number, host: string, id: number, from: string, to: string, method: string, answer = false):
[number, string, string, TraceAttrs] {
  return [timeUs, host, 'rpc.send', { id, from, to, kind: 'trigger', method, answer }];
}

const describeAll = (e: TraceEvent): string => `${e.type} on ${e.host}`;

describe('sequenceStepsOf', () => {
  test('an RPC with its delivery is a message, an answer a reply; deliveries are no notes', () => {
    const steps = sequenceStepsOf(traceOf(
      send(10, 'jobmanager', 1, JM, TE1, 'triggerCheckpoint'),
      [20, 'taskmanager-1', 'rpc.deliver', { id: 1 }],
      send(20, 'taskmanager-1', 2, TE1, JM, 'triggerCheckpoint', true),
      [30, 'jobmanager', 'rpc.deliver', { id: 2 }],
    ), describeAll);
    expect(steps).toEqual([
      { kind: 'message', timeUs: 10, from: JM, to: TE1, label: 'triggerCheckpoint', reply: false, outcome: 'delivered' },
      { kind: 'message', timeUs: 20, from: TE1, to: JM, label: 'triggerCheckpoint', reply: true, outcome: 'delivered' },
    ]);
  });

  test('a dropped RPC is lost with its reason, an injected loss too; an RPC with no outcome is in flight', () => {
    const steps = sequenceStepsOf(traceOf(
      send(10, 'jobmanager', 1, JM, TE1, 'triggerCheckpoint'),
      [10, 'jobmanager', 'rpc.drop', { id: 1, reason: 'message-fault' }],
      send(11, 'jobmanager', 2, JM, TE2, 'confirmCheckpoint'),
      [11, 'jobmanager', 'mark', { name: 'rpc-lost', id: 2, kind: 'notifyComplete', method: 'confirmCheckpoint' }],
      send(12, 'jobmanager', 3, RM, TE2, 'requestHeartbeat'),
    ), () => undefined);
    expect(steps.map((s) => s.kind === 'message' && [s.outcome, s.label])).toEqual([
      ['lost', 'triggerCheckpoint lost: message fault'],
      ['lost', 'confirmCheckpoint lost: injected loss'],
      ['in-flight', 'requestHeartbeat (not delivered in this window)'],
    ]);
  });

  test('the outcome of an RPC sent before the window is an ordinary event, described or not', () => {
    const described: string[] = [];
    const steps = sequenceStepsOf(traceOf(
      [5, 'taskmanager-1', 'rpc.deliver', { id: 7 }],
      [6, 'jobmanager', 'rpc.drop', { id: 8, reason: 'partition' }],
    ), (e) => {
      described.push(e.type);
      return e.type === 'rpc.drop' ? 'message 8 dropped' : undefined;
    });
    expect(described).toEqual(['rpc.deliver', 'rpc.drop']);
    expect(steps).toEqual([{ kind: 'note', timeUs: 6, over: JM, text: 'message 8 dropped' }]);
  });

  test('notes go over the participant of their host, a TaskManager\'s to its current TaskExecutor', () => {
    const steps = sequenceStepsOf(traceOf(
      [1, 'taskmanager-1', 'task.running', {}], // before TE1 acts: the first TE1 of the window
      send(2, 'taskmanager-1', 1, TE1, JM, 'acknowledgeCheckpoint'),
      [3, 'jobmanager', 'checkpoint.completed', { checkpointId: 1 }],
      [3, 'jobmanager', 'rm.taskExecutorRegistered', {}],
      [4, 'sim', 'fault', {}],
      [5, 'store', 'store.end', {}],
      [6, 'txn-store', 'txn.commit', {}],
      [7, 'taskmanager-1', 'host.crash', {}],
      [8, 'taskmanager-1', 'rpc.start', { address: TE1B }], // itself over the new TaskExecutor
      [9, 'taskmanager-1', 'task.deploying', {}],
      [10, 'taskmanager-3', 'host.boot', {}],
      [11, 'elsewhere', 'thing', {}],
      send(12, 'jobmanager', 2, JM, 'taskexecutor@taskmanager-3/5000', 'submitTask'),
      [13, 'taskmanager-3', 'rpc.deliver', { id: 2 }], // a delivery shows the receiver's address
      [14, 'taskmanager-3', 'task.deploying', {}],
    ), describeAll);
    expect(steps.filter((s) => s.kind === 'note').map((s) => s.kind === 'note' && s.over)).toEqual([
      TE1, JM, RM, 'sim', 'store', 'txn-store', TE1, TE1B, TE1B, 'taskexecutor@taskmanager-3/5000', 'elsewhere',
      'taskexecutor@taskmanager-3/5000',
    ]);
  });

  test('a TaskManager whose TaskExecutor the window never names gets one named after the host', () => {
    expect(sequenceStepsOf(traceOf([1, 'taskmanager-4', 'host.crash', {}]), describeAll))
      .toEqual([{ kind: 'note', timeUs: 1, over: 'taskexecutor@taskmanager-4', text: 'host.crash on taskmanager-4' }]);
    expect(mermaidSequence(sequenceStepsOf(traceOf([1, 'taskmanager-4', 'host.crash', {}]), describeAll)))
      .toContain('participant p_taskexecutor_taskmanager_4 as TaskExecutor taskmanager-4');
  });

  test('events that describe leaves out are no steps', () => {
    expect(sequenceStepsOf(traceOf([1, 'jobmanager', 'net.close', {}], [2, 'jobmanager', 'x', {}]),
      (e) => (e.type === 'x' ? '' : undefined))).toEqual([]);
  });

  test('at most maxMessages messages: the last ones, after a step counting what was left out', () => {
    const events: [number, string, string, TraceAttrs][] = [];
    for (let i = 0; i < 100; i++) {
      events.push(send(i * 10, 'jobmanager', i, JM, TE1, `m${i}`));
      events.push([i * 10 + 1, 'taskmanager-1', 'rpc.deliver', { id: i }]);
      events.push([i * 10 + 2, 'taskmanager-1', 'note', { i }]);
    }
    const trace = traceOf(...events);
    const steps = sequenceStepsOf(trace, describeAll);
    expect(steps[0]).toEqual({ kind: 'omitted', messages: 40, notes: 40 });
    const messages = steps.filter((s) => s.kind === 'message');
    expect(messages).toHaveLength(60);
    expect(messages[0]?.kind === 'message' && messages[0].label).toBe('m40');
    expect(steps.at(-1)).toEqual({ kind: 'note', timeUs: 992, over: TE1, text: 'note on taskmanager-1' });
    expect(sequenceStepsOf(trace, describeAll, { maxMessages: 100 })[0]?.kind).toBe('message');
    const three = sequenceStepsOf(trace, describeAll, { maxMessages: 3 });
    expect(three[0]).toEqual({ kind: 'omitted', messages: 97, notes: 97 });
    expect(three.filter((s) => s.kind === 'message')).toHaveLength(3);
  });

  test('maxMessages must be an integer >= 1', () => {
    expect(() => sequenceStepsOf([], describeAll, { maxMessages: 0 })).toThrow(RangeError);
    expect(() => sequenceStepsOf([], describeAll, { maxMessages: 1.5 })).toThrow('maxMessages');
  });

  test('a real run: the lost trigger RPC is a lost message, the trigger to the other task a delivered one', () => {
    const { events } = lostTriggerWindow();
    const steps = sequenceStepsOf(events, describeForTests);
    const messages = steps.filter((s) => s.kind === 'message');
    expect(messages[0]).toMatchObject({
      from: JM, to: 'taskexecutor@taskmanager-2/0', label: 'triggerCheckpoint lost: message fault', outcome: 'lost',
    });
    expect(messages).toContainEqual(expect.objectContaining({ from: JM, to: TE1, label: 'triggerCheckpoint', outcome: 'delivered' }));
    expect(steps).toContainEqual(expect.objectContaining({ kind: 'note', over: 'sim', text: 'fault 0: lose triggerCheckpoint (checkpoint 3)' }));
  });
});

describe('mermaidText', () => {
  test('characters Mermaid reads become entity codes', () => {
    expect(mermaidText('v0#0; 100% <b> & "q"')).toBe('v0#35;0#59; 100#37; #60;b#62; #38; #34;q#34;');
    expect(mermaidText('#59;')).toBe('#35;59#59;');
  });

  test('the words end, style and classDef are neutralised, a leading wrap: too', () => {
    expect(mermaidText('the end, End of backend end-to-end')).toBe('the #101;nd, #69;nd of backend #101;nd-to-#101;nd');
    expect(mermaidText('style x classDef y')).toBe('#115;tyle x #99;lassDef y');
    expect(mermaidText('wrap: a')).toBe('#119;rap: a');
    expect(mermaidText('nowrap:a wrap:')).toBe('#110;owrap:a wrap:');
  });

  test('line breaks become <br/>, control characters spaces, long text is cut', () => {
    expect(mermaidText('a\nb\r\nc\rd\te\u0000')).toBe('a<br/>b<br/>c<br/>d e ');
    const long = mermaidText('x'.repeat(1000));
    expect(long).toHaveLength(400);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('mermaidSequence', () => {
  test('participants first, with readable labels and safe ids, then one line per step', () => {
    const steps: SequenceStep[] = [
      { kind: 'note', timeUs: 0, over: 'sim', text: 'fault 0' },
      { kind: 'message', timeUs: 1, from: TE2, to: JM, label: 'a', reply: false, outcome: 'delivered' },
      { kind: 'message', timeUs: 2, from: JM, to: TE2, label: 'b', reply: true, outcome: 'delivered' },
      { kind: 'message', timeUs: 3, from: JM, to: 'taskexecutor@taskmanager-10/0', label: 'c', reply: false, outcome: 'lost' },
      { kind: 'message', timeUs: 4, from: TE1, to: RM, label: 'd', reply: true, outcome: 'lost' },
      { kind: 'message', timeUs: 5, from: RM, to: TE1, label: 'e', reply: false, outcome: 'in-flight' },
      { kind: 'message', timeUs: 6, from: TE1, to: RM, label: 'f', reply: true, outcome: 'in-flight' },
      { kind: 'note', timeUs: 7, over: 'txn-store', text: 'committed' },
      { kind: 'note', timeUs: 8, over: 'store', text: 'written' },
    ];
    expect(mermaidSequence(steps).split('\n')).toEqual([
      'sequenceDiagram',
      '  participant p_jobmaster as JobMaster',
      '  participant p_resourcemanager as ResourceManager',
      '  participant p_taskexecutor_taskmanager_1_0 as TaskExecutor taskmanager-1',
      '  participant p_taskexecutor_taskmanager_2_0 as TaskExecutor taskmanager-2',
      '  participant p_taskexecutor_taskmanager_10_0 as TaskExecutor taskmanager-10',
      '  participant p_sim as sim',
      '  participant p_store as store',
      '  participant p_txn_store as txn-store',
      '  Note over p_sim: fault 0',
      '  p_taskexecutor_taskmanager_2_0->>p_jobmaster: a',
      '  p_jobmaster-->>p_taskexecutor_taskmanager_2_0: b',
      '  p_jobmaster-xp_taskexecutor_taskmanager_10_0: c',
      '  p_taskexecutor_taskmanager_1_0--xp_resourcemanager: d',
      '  p_resourcemanager-)p_taskexecutor_taskmanager_1_0: e',
      '  p_taskexecutor_taskmanager_1_0--)p_resourcemanager: f',
      '  Note over p_txn_store: committed',
      '  Note over p_store: written',
    ]);
  });

  test('a TaskManager with two TaskExecutor incarnations is a box; title and times', () => {
    const text = mermaidSequence([
      { kind: 'message', timeUs: 1_500, from: JM, to: TE1, label: 'a', reply: false, outcome: 'lost' },
      { kind: 'message', timeUs: 250_000, from: JM, to: TE1B, label: 'b', reply: false, outcome: 'delivered' },
      { kind: 'note', timeUs: 250_001, over: TE2, text: 'n' },
    ], { title: 'checkpoint 3;\nlost', showTimes: true });
    expect(text.split('\n')).toEqual([
      'sequenceDiagram',
      '  title checkpoint 3#59; lost',
      '  participant p_jobmaster as JobMaster',
      '  box AliceBlue taskmanager-1',
      '    participant p_taskexecutor_taskmanager_1_0 as TaskExecutor taskmanager-1 (boot 0 ms)',
      '    participant p_taskexecutor_taskmanager_1_250000 as TaskExecutor taskmanager-1 (boot 250 ms)',
      '  end',
      '  participant p_taskexecutor_taskmanager_2_0 as TaskExecutor taskmanager-2',
      '  p_jobmaster-xp_taskexecutor_taskmanager_1_0: [1.500 ms] a',
      '  p_jobmaster->>p_taskexecutor_taskmanager_1_250000: [250.000 ms] b',
      '  Note over p_taskexecutor_taskmanager_2_0: [250.001 ms] n',
    ]);
  });

  test('the omitted step is a note over all participants', () => {
    const text = mermaidSequence([
      { kind: 'omitted', messages: 40, notes: 1 },
      { kind: 'message', timeUs: 1, from: JM, to: TE1, label: 'a', reply: false, outcome: 'delivered' },
    ]);
    expect(text).toContain('  Note over p_jobmaster,p_taskexecutor_taskmanager_1_0: 40 earlier messages and 1 note left out\n');
    expect(mermaidSequence([{ kind: 'omitted', messages: 1, notes: 0 },
      { kind: 'note', timeUs: 1, over: 'sim', text: 'x' }])).toContain('Note over p_sim: 1 earlier message left out');
  });

  test('no steps: one note saying the window is empty', () => {
    expect(mermaidSequence([])).toBe([
      'sequenceDiagram', '  participant p_window as (this window)', '  Note over p_window: no messages or events in this window',
    ].join('\n'));
  });

  test('hostile names: ids stay identifiers and every # and ; in the text is an entity code', () => {
    const text = mermaidSequence(hostileSteps, { title: HOSTILE_TITLE });
    const lines = text.split('\n');
    for (const line of lines.slice(1)) {
      const m = /^\s*(?:participant (\S+) as |Note over (\S+): |(\S+?)(?:-->>|->>|--x|-x|--\)|-\))(\S+): |title |box AliceBlue |end$)/.exec(line);
      expect(m, line).not.toBeNull();
      for (const id of (m?.slice(1) ?? []).flatMap((g) => g?.split(',') ?? [])) expect(id).toMatch(/^p_[A-Za-z0-9_]+$/);
      const textPart = line.slice(m?.[0].length).replace(/#\d+;/g, '').replaceAll('<br/>', ' ');
      expect(textPart, line).not.toMatch(/[#;%<>&"]|\bend\b/i);
    }
    expect(lines).toContain('  participant p_op_v0_0_end_ as op#59;v0#35;0 #34;#101;nd#34;');
  });

  test('the text stays under the size bound however many and long the steps are', () => {
    const steps: SequenceStep[] = [];
    for (let i = 0; i < 2_000; i++) {
      steps.push({ kind: 'note', timeUs: i, over: `taskexecutor@taskmanager-${i % 7}/0`, text: '#;'.repeat(500) });
      steps.push({ kind: 'message', timeUs: i, from: JM, to: `taskexecutor@taskmanager-${i % 7}/0`, label: `m${i} ${'%'.repeat(500)}`, reply: false, outcome: 'delivered' });
    }
    const text = mermaidSequence([{ kind: 'omitted', messages: 5, notes: 0 }, ...steps]);
    expect(text.length).toBeLessThanOrEqual(MAX_DIAGRAM_CHARS);
    expect(text.length).toBeGreaterThan(MAX_DIAGRAM_CHARS - 4_000); // it keeps what fits
    const m = /: (\d+) earlier messages and (\d+) notes left out/.exec(text);
    const keptMessages = text.split('\n').filter((l) => l.includes('->>')).length;
    const keptNotes = text.split('\n').filter((l) => l.includes('Note over') && !l.includes('left out')).length;
    expect(Number(m?.[1]) + keptMessages).toBe(2_005);
    expect(Number(m?.[2]) + keptNotes).toBe(2_000);
    expect(text.split('\n').at(-1)).toContain(': m1999 ');
  });

  test('a diagram within the bound is written whole', () => {
    const text = mermaidSequence(sequenceStepsOf(lostTriggerWindow().trace, describeForTests));
    expect(text.length).toBeLessThan(MAX_DIAGRAM_CHARS);
    expect(text.split('\n').filter((l) => /->>|-x|-\)/.test(l))).toHaveLength(60);
  });
});

test('mermaidMarkdown wraps the diagram in a mermaid code block, with an optional heading', () => {
  expect(mermaidMarkdown('sequenceDiagram\n  x')).toBe('```mermaid\nsequenceDiagram\n  x\n```\n');
  expect(mermaidMarkdown('sequenceDiagram', 'Run  of\nseed 1')).toBe('# Run of seed 1\n\n```mermaid\nsequenceDiagram\n```\n');
});
