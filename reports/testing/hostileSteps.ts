/**
 * hostileSteps: sequence steps whose names and texts hold everything that can break a Mermaid
 * sequence diagram (`#` in task names like `v0#0`, `;`, the word `end`, quotes, `%%`, HTML, a
 * leading `wrap:`, `style`/`classDef`, line breaks), with the texts a correct diagram must show.
 */
import type { SequenceStep } from '../mermaidSequence.ts';

/** An unusual participant: `;`, `#`, the word end and quotes in an address. */
export const HOSTILE_PARTICIPANT = 'op;v0#0 "end"';

export const hostileSteps: readonly SequenceStep[] = [
  { kind: 'note', timeUs: 0, over: 'sim', text: 'fault #0; lose "triggerCheckpoint" to v0#0 -- the end\nsecond <b>line</b> & 100% %% no comment' },
  { kind: 'message', timeUs: 1_000, from: 'jobmaster', to: 'taskexecutor@taskmanager-1/0', label: 'triggerCheckpoint; end', reply: false, outcome: 'lost' },
  { kind: 'message', timeUs: 2_000, from: 'taskexecutor@taskmanager-1/0', to: 'jobmaster', label: 'ack "end" #59;', reply: true, outcome: 'delivered' },
  { kind: 'message', timeUs: 3_000, from: 'jobmaster', to: 'taskexecutor@taskmanager-1/250000', label: 'wrap: style: x#1; classDef a fill:#f00;', reply: false, outcome: 'in-flight' },
  { kind: 'note', timeUs: 4_000, over: 'taskexecutor@taskmanager-1/250000', text: 'end' },
  { kind: 'note', timeUs: 4_000, over: HOSTILE_PARTICIPANT, text: 'participant end' },
  { kind: 'message', timeUs: 5_000, from: HOSTILE_PARTICIPANT, to: 'end', label: 'end', reply: true, outcome: 'lost' },
];

/** The title used with {@link hostileSteps}. */
export const HOSTILE_TITLE = 'hostile; #title "end"';

/** Texts the drawn diagram must show exactly (each is one SVG text line). */
export const HOSTILE_TEXTS: readonly string[] = [
  HOSTILE_TITLE,
  'fault #0; lose "triggerCheckpoint" to v0#0 -- the end',
  'second <b>line</b> & 100% %% no comment',
  'triggerCheckpoint; end',
  'ack "end" #59;',
  'wrap: style: x#1; classDef a fill:#f00;',
  'participant end',
  HOSTILE_PARTICIPANT,
  'TaskExecutor taskmanager-1 (boot 250 ms)',
  'end',
];
