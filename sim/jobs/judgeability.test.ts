import { describe, expect, test } from 'vitest';
import { StreamExecutionEnvironment, collectSink, splitSource } from '../../engine/index.ts';
import type { KeyedProcessFunction, StreamGraph } from '../../engine/index.ts';
import { SimInputError } from '../SimInputError.ts';
import type { JobJudging } from './JobDefinition.ts';
import { checkJudgeable, unjudgeableRefusal } from './judgeability.ts';
import { UserCodeGuard } from './userCodeGuard.ts';

const LABEL = './alerts.ts';
const passOn: KeyedProcessFunction<number, number, number> = { processElement(v, _c, out) { out.collect(v); } };
const withTimer: KeyedProcessFunction<number, number, number> = { ...passOn, onTimer() {} };

/**
 * in -> enrich (map) -> keyBy -> alerts (keyed; `alerts` fn) -> keyBy -> totals (keyed) -> totals-sink,
 * and alerts -> alerts-sink; optionally a broadcast branch in -> broadcast -> fan (map) -> fan-sink.
 */
function job(options: { alerts?: KeyedProcessFunction<number, number, number>; broadcast?: boolean } = {}): StreamGraph {
  const env = new StreamExecutionEnvironment();
  const src = env.fromSource(splitSource([{ id: 0, records: [1, 2] }]), { name: 'input', uid: 'in' });
  const alerts = src.map((v: number) => v, { name: 'enrich', uid: 'enrich' })
    .keyBy((v: number) => v).process(options.alerts ?? passOn, { name: 'alerts', uid: 'alerts' });
  alerts.sinkTo(collectSink([]), { name: 'alerts-sink', uid: 'alerts-sink' });
  alerts.keyBy((v: number) => v % 2).process(passOn, { name: 'totals', uid: 'totals' })
    .sinkTo(collectSink([]), { name: 'totals-sink', uid: 'totals-sink' });
  if (options.broadcast === true) {
    src.broadcast().map((v: number) => v, { name: 'fan', uid: 'fan' })
      .sinkTo(collectSink([]), { name: 'fan-sink', uid: 'fan-sink' });
  }
  return env.getStreamGraph();
}

/** The one-line SimInputError message checkJudgeable refuses with. */
function refusal(graph: StreamGraph, judging: unknown): string {
  try {
    checkJudgeable(graph, judging as JobJudging, LABEL);
  } catch (e) {
    expect(e).toBeInstanceOf(SimInputError);
    const message = (e as Error).message;
    expect(message).not.toMatch(/\n/);
    expect(message.startsWith(`job module ${LABEL}: `)).toBe(true);
    return message;
  }
  throw new Error('expected a refusal');
}

const ALL_OFF_BELOW_ALERTS: JobJudging = {
  state: { alerts: 'off', totals: 'off' },
  output: { 'alerts-sink': 'off', 'totals-sink': 'off' },
};

describe('checkJudgeable', () => {
  test('a job F can fold is accepted with no skips, with or without judging', () => {
    expect([...checkJudgeable(job(), undefined, LABEL)]).toEqual([]);
    expect([...checkJudgeable(job(), {}, LABEL)]).toEqual([]);
    expect([...checkJudgeable(job(), { state: { alerts: 'exact' }, output: { 'alerts-sink': 'identity' } }, LABEL)])
      .toEqual([]);
  });

  test('timers: refused naming the operator and every setting still missing at and below it', () => {
    expect(refusal(job({ alerts: withTimer }), undefined)).toBe(`job module ${LABEL}: operator 'alerts' (uid alerts) `
      + "uses timers (onTimer), which the reference fold cannot judge; set judge.state['alerts'] = 'off', "
      + "judge.output['alerts-sink'] = 'off', judge.state['totals'] = 'off' and judge.output['totals-sink'] = 'off' "
      + 'to run it unjudged');
    // Only what is missing is listed.
    expect(refusal(job({ alerts: withTimer }), { state: { alerts: 'off', totals: 'off' }, output: { 'alerts-sink': 'off' } }))
      .toMatch(/cannot judge; set judge\.output\['totals-sink'\] = 'off' to run it unjudged$/);
    // A comparison or 'identity' is still judging.
    expect(refusal(job({ alerts: withTimer }), { ...ALL_OFF_BELOW_ALERTS, output: { 'alerts-sink': 'identity', 'totals-sink': 'off' } }))
      .toMatch(/set judge\.output\['alerts-sink'\] = 'off' to run it unjudged$/);
  });

  test('timers with everything below off: accepted, and F skips exactly what is unjudged', () => {
    expect([...checkJudgeable(job({ alerts: withTimer }), ALL_OFF_BELOW_ALERTS, LABEL)].sort())
      .toEqual(['alerts', 'alerts-sink', 'enrich', 'totals', 'totals-sink']); // enrich feeds only alerts
    // The guarded graph keeps onTimer visible, so the guard can be applied first.
    const guarded = new UserCodeGuard(LABEL).guardGraph(job({ alerts: withTimer }));
    expect(() => checkJudgeable(guarded, undefined, LABEL)).toThrow(/uses timers \(onTimer\)/);
    expect(() => checkJudgeable(new UserCodeGuard(LABEL).guardGraph(job()), undefined, LABEL)).not.toThrow();
  });

  test('a broadcast edge: refused naming the target and the edge, accepted when its sinks are off', () => {
    expect(refusal(job({ broadcast: true }), ALL_OFF_BELOW_ALERTS)).toBe(`job module ${LABEL}: operator 'fan' (uid fan) `
      + "is fed by a broadcast edge from 'input' (uid in), which the reference fold cannot judge; "
      + "set judge.output['fan-sink'] = 'off' to run it unjudged");
    expect([...checkJudgeable(job({ broadcast: true }), { output: { 'fan-sink': 'off' } }, LABEL)].sort())
      .toEqual(['fan', 'fan-sink']);
  });

  test('both reasons at once are named together', () => {
    const env = new StreamExecutionEnvironment();
    env.fromSource(splitSource([{ id: 0, records: [1] }]), { uid: 'in' }).broadcast()
      .map((v: number) => v, { uid: 'm' }).keyBy((v: number) => v).process(withTimer, { uid: 'k' })
      .sinkTo(collectSink([]), { uid: 's' });
    expect(refusal(env.getStreamGraph(), {})).toContain("operator 'map-1' (uid m) is fed by a broadcast edge");
    const g = env.getStreamGraph();
    // A broadcast edge straight into a keyed operator with timers cannot be built (keyBy must
    // come first), so both reasons on one node need a hand-made graph.
    const k = g.nodes.find((n) => n.uid === 'k')!;
    const both = { ...g, edges: g.edges.map((e) => ({ ...e, partitioner: e.target === k.id ? 'broadcast' as const : 'forward' as const })) };
    expect(refusal(both, { output: { s: 'off' } })).toContain("operator 'keyedProcess-2' (uid k) is fed by a broadcast "
      + "edge from 'map-1' (uid m) and uses timers (onTimer), which the reference fold cannot judge; set judge.state['k'] = 'off' to");
  });

  test('unjudgeableRefusal: a timer found only at run time gets the same one line', () => {
    const e = unjudgeableRefusal(job(), undefined, LABEL, 'alerts', 'uses timers (timerService().registerProcessingTimeTimer)');
    expect(e).toBeInstanceOf(SimInputError);
    expect(e.message).toMatch(/^job module \.\/alerts\.ts: operator 'alerts' \(uid alerts\) uses timers \(timerService\(\)\.registerProcessingTimeTimer\), which the reference fold cannot judge; set judge\.state\['alerts'\] = 'off', /);
    expect(unjudgeableRefusal(job(), undefined, LABEL, 'nope', 'x')).not.toBeInstanceOf(SimInputError);
    expect(unjudgeableRefusal(job(), ALL_OFF_BELOW_ALERTS, LABEL, 'alerts', 'x')).not.toBeInstanceOf(SimInputError);
  });
});

describe('checkJudgeable validates the judging', () => {
  test.each([
    ['not an object', 'strict', "judge must be an object { state?, output? }, got 'strict'"],
    ['an unknown field', { outputs: {} }, 'judge.outputs is not a judging field (known: state, output)'],
    ['state not an object', { state: ['alerts'] }, "judge.state must be an object of keyed operator uid -> 'exact' | 'off', got an array"],
    ['output not an object', { output: 'off' }, "judge.output must be an object of sink uid -> how its output is compared, got 'off'"],
    ['an unknown state uid, close to one', { state: { alert: 'off' } },
      "judge.state['alert']: the job has no operator with uid 'alert' (did you mean 'alerts'?)"],
    ['an unknown state uid', { state: { xyzzy: 'off' } },
      "judge.state['xyzzy']: the job has no operator with uid 'xyzzy' (keyed operators: 'alerts', 'totals')"],
    ['state on a non-keyed operator', { state: { enrich: 'off' } },
      "judge.state['enrich']: operator 'enrich' (uid enrich) is a map operator, not a keyed operator (only keyed state is judged)"],
    ['a bad state value', { state: { alerts: 'of' } }, "judge.state['alerts'] must be 'exact' or 'off', got 'of'"],
    ['an unknown output uid', { output: { 'alert-sink': 'off' } },
      "judge.output['alert-sink']: the job has no operator with uid 'alert-sink' (did you mean 'alerts-sink'?)"],
    ['output on a non-sink', { output: { totals: 'off' } },
      "judge.output['totals']: operator 'totals' (uid totals) is a keyedProcess operator, not a sink (only sinks have output)"],
    ['a bad output name', { output: { 'alerts-sink': 'exact' } },
      "judge.output['alerts-sink'] must be 'identity-and-value', 'identity', 'off' or a comparison { name, project, sequence? }, got 'exact'"],
    ['an output number', { output: { 'alerts-sink': 3 } },
      "judge.output['alerts-sink'] must be a judging name or a comparison { name, project, sequence? }, got 3"],
    ['a comparison without a name', { output: { 'alerts-sink': { project: (v: unknown) => v } } },
      "judge.output['alerts-sink'].name must be a non-empty string, got undefined"],
    ['a comparison whose project is not a function', { output: { 'alerts-sink': { name: 'p', project: 'value' } } },
      "judge.output['alerts-sink'].project must be a function (value) => the part compared, got 'value'"],
    ['a bad sequence', { output: { 'alerts-sink': { name: 'p', project: (v: unknown) => v, sequence: true } } },
      "judge.output['alerts-sink'].sequence must be an object { key, seq } of functions, got true"],
    ['a sequence without seq', { output: { 'alerts-sink': { name: 'p', project: (v: unknown) => v, sequence: { key: String } } } },
      "judge.output['alerts-sink'].sequence.seq must be a function, got undefined"],
  ])('refuses %s in one line', (_what, judging, expected) => {
    expect(refusal(job(), judging)).toBe(`job module ${LABEL}: ${expected}`);
  });

  test('accepts every well-formed judging', () => {
    const judging: JobJudging = {
      state: { alerts: 'exact', totals: 'off' },
      output: {
        'alerts-sink': { name: 'seq per key', project: (v) => v, sequence: { key: String, seq: Number } },
        'totals-sink': 'identity',
      },
    };
    expect(() => checkJudgeable(job(), judging, LABEL)).not.toThrow();
    // Turning a judged operator's state off does not skip it: its outputs are still judged.
    expect([...checkJudgeable(job(), judging, LABEL)]).toEqual([]);
  });
});
