import { describe, expect, test } from 'vitest';
import { regenerateSpec } from '../properties/explore/replay.ts';
import { CATALOGUE } from '../scenarios/catalogue/index.ts';
import { compileScenario } from '../scenarios/compileScenario.ts';
import type { RunSpec } from '../sim/run/RunSpec.ts';
import { simulate } from '../sim/run/simulate.ts';
import type { TraceEvent } from '../sim/Trace.ts';
import { chromeTrace, type ChromeTraceEvent, type ChromeTraceFile } from './chromeTrace.ts';
import { validateChromeTrace } from './testing/validateChromeTrace.ts';

const scenario = (name: string): RunSpec => {
  const s = CATALOGUE.find((x) => x.name === name);
  if (s === undefined) throw new Error(`no scenario ${name}`);
  return compileScenario(s).spec;
};

// A catalogue scenario (a lost trigger RPC: a dropped RPC, an aborted checkpoint) and explore's
// runs: flights with two TaskManager crashes and restores, and a generated job whose stages have
// different parallelism (rescaling edges), in both checkpointing modes.
const RUNS: [string, () => RunSpec][] = [
  ['scenario lost-trigger-rpc-fails-checkpoint', () => scenario('lost-trigger-rpc-fails-checkpoint')],
  ['explore flights aligned seed 1 path 10 (crashes)', () => regenerateSpec({ job: 'flights', mode: 'aligned', strategy: 'swarm', mutants: [], seed: 1, path: '10' }).spec],
  ['explore generated at-least-once seed 1 path 6', () => regenerateSpec({ job: 'generated', mode: 'at-least-once', strategy: 'swarm', mutants: [], seed: 1, path: '6' }).spec],
];

/** Thread and process names by pid/tid, from the M events. */
function names(f: ChromeTraceFile): { thread: (e: ChromeTraceEvent) => string; proc: (e: ChromeTraceEvent) => string } {
  const threads = new Map<string, string>();
  const procs = new Map<number, string>();
  for (const e of f.traceEvents) {
    const name = String((e.args as { name?: unknown } | undefined)?.name);
    if (e.ph === 'M' && e.name === 'thread_name') threads.set(`${e.pid}/${e.tid}`, name);
    if (e.ph === 'M' && e.name === 'process_name') procs.set(e.pid, name);
  }
  return { thread: (e) => threads.get(`${e.pid}/${e.tid}`) ?? '?', proc: (e) => procs.get(e.pid) ?? '?' };
}

const ofType = (trace: readonly TraceEvent[], type: string): TraceEvent[] => trace.filter((e) => e.type === type);

describe.each(RUNS)('the Chrome trace of %s', (_name, spec) => {
  const result = simulate(spec(), { traceTasks: true });
  const file = chromeTrace(result.trace, { seed: result.spec.seed, mode: result.spec.checkpoint.mode, traceHash: result.traceHash });
  const events = file.traceEvents;
  const n = names(file);

  test('passes the structural check of the Trace Event Format', () => {
    expect(validateChromeTrace(JSON.parse(JSON.stringify(file)))).toEqual([]);
  });

  test('has one async slice per triggered checkpoint, on the JobMaster, closed with its outcome', () => {
    const triggered = ofType(result.trace, 'checkpoint.triggered').map((e) => `checkpoint ${String(e.attrs['checkpointId'])}`);
    expect(triggered.length).toBeGreaterThan(0);
    const begins = events.filter((e) => e.ph === 'b' && e.cat === 'checkpoint');
    expect(begins.map((e) => e.id)).toEqual(triggered);
    expect(new Set(begins.map(n.proc))).toEqual(new Set(['JobMaster (jobmanager)']));
    const statuses = events.filter((e) => e.ph === 'e' && e.cat === 'checkpoint').map((e) => (e.args as { status: string }).status);
    expect(statuses.filter((s) => s === 'COMPLETED')).toHaveLength(ofType(result.trace, 'checkpoint.completed').length);
  });

  test('has one flow per delivered RPC, from the sending task to the handler, and an instant per dropped one', () => {
    const delivered = ofType(result.trace, 'rpc.deliver').map((e) => e.attrs['id']);
    const starts = events.filter((e) => e.ph === 's' && e.cat === 'rpc');
    expect(starts.map((e) => e.id).sort((a, b) => Number(a) - Number(b))).toEqual(delivered.sort((a, b) => Number(a) - Number(b)));
    expect(events.filter((e) => e.ph === 'f' && e.cat === 'rpc')).toHaveLength(delivered.length);
    // Handlers run on the endpoint's main thread (of its incarnation).
    const ends = events.filter((e) => e.ph === 'f' && e.cat === 'rpc');
    const onMain = ends.filter((e) => n.thread(e).endsWith('/main')).length;
    expect(onMain).toBeGreaterThan(0.95 * ends.length);
    // Each arrow ends in the task that handled it (its label is the method, or rpc.answer for an
    // answer), or at the arrival when no handler ran (a late answer, a crash before it ran).
    const ns = (us: number): number => Math.round(us * 1000);
    const slices = events.filter((e) => e.ph === 'X');
    for (const f of ends) {
      const at = slices.find((x) => x.pid === f.pid && x.tid === f.tid
        && ns(x.ts ?? 0) <= ns(f.ts ?? 0) && ns(f.ts ?? 0) < ns(x.ts ?? 0) + ns(x.dur ?? 0));
      const want = f.name.endsWith(' (answer)') ? 'rpc.answer' : f.name;
      expect(at?.name === want || at?.name === 'rpc.deliver', `${f.name} ends in ${at?.name}`).toBe(true);
    }
    const drops = ofType(result.trace, 'rpc.drop').length;
    expect(events.filter((e) => e.ph === 'i' && e.name.startsWith('rpc dropped: '))).toHaveLength(drops);
  });

  test('draws barriers from a producer mailbox to each consumer mailbox that aligned', () => {
    const flows = events.filter((e) => e.cat === 'barrier');
    expect(flows.length).toBeGreaterThan(0);
    for (const e of flows) expect(n.thread(e)).toMatch(/^mailbox\/v\d+#\d+@\d+$/);
  });

  test('puts faults as global instants and the JobMaster and ResourceManager in processes of their own', () => {
    expect(events.filter((e) => e.ph === 'i' && e.s === 'g' && e.name.startsWith('fault '))).toHaveLength(ofType(result.trace, 'fault').length);
    const main = (t: string): string[] => [...new Set(events.filter((e) => e.ph === 'X' && n.thread(e) === t).map(n.proc))];
    expect(main('jobmaster/main')).toEqual(['JobMaster (jobmanager)']);
    expect(main('resourcemanager/main')).toEqual(['ResourceManager (jobmanager)']);
    expect(main('taskexecutor/main').every((p) => p.startsWith('TaskManager taskmanager-'))).toBe(true);
  });

  test('draws tasks as slices of their virtual duration holding the events they recorded', () => {
    const slices = events.filter((e) => e.ph === 'X' && e.cat === 'task');
    // Mailbox actions that pay for records take virtual time.
    expect(slices.some((e) => n.thread(e).startsWith('mailbox/') && (e.dur ?? 0) >= 1)).toBe(true);
    const holding = (type: string): string[] => [...new Set(slices
      .filter((e) => ((e.args as { events?: string[] } | undefined)?.events ?? []).some((x) => x.startsWith(`${type} `)))
      .map(n.thread))];
    expect(holding('checkpoint.triggered')).toEqual(['jobmaster/checkpoint-timer']);
    expect(holding('checkpoint.barrierSent').every((t) => t.startsWith('mailbox/'))).toBe(true);
  });

  test('is deterministic: two runs of the spec give the same JSON, byte for byte', () => {
    const again = simulate(spec(), { traceTasks: true });
    const meta = { seed: again.spec.seed, mode: again.spec.checkpoint.mode, traceHash: again.traceHash };
    expect(JSON.stringify(chromeTrace(again.trace, meta))).toBe(JSON.stringify(file));
  });
});

describe('the Chrome trace of a run with crashes', () => {
  const result = simulate(RUNS[1]?.[1]() as RunSpec, { traceTasks: true });
  const file = chromeTrace(result.trace);

  test('ends the states of the attempts a crash took down there', () => {
    const crashes = ofType(result.trace, 'host.crash').length;
    expect(crashes).toBeGreaterThan(0);
    const ended = file.traceEvents.filter((e) => e.ph === 'X' && (e.args as { ended?: string } | undefined)?.ended === 'host crashed');
    expect(ended.length).toBeGreaterThanOrEqual(crashes);
  });
});

describe('chromeTrace of partial traces', () => {
  const result = simulate(scenario('lost-trigger-rpc-fails-checkpoint'), { traceTasks: true });

  test('a checkpoint neither completed nor aborted by the end closes there as unfinished', () => {
    const cut = result.trace.findIndex((e) => e.type === 'checkpoint.triggered');
    const file = chromeTrace(result.trace.slice(0, cut + 1));
    expect(validateChromeTrace(file)).toEqual([]);
    const ends = file.traceEvents.filter((e) => e.ph === 'e' && e.cat === 'checkpoint');
    expect(ends.map((e) => e.args)).toEqual([{ status: 'unfinished' }]);
  });

  test('a trace without executor tasks still gives a valid file with a flow per delivered RPC', () => {
    const plain = simulate(scenario('lost-trigger-rpc-fails-checkpoint'));
    const file = chromeTrace(plain.trace);
    expect(validateChromeTrace(file)).toEqual([]);
    expect(file.traceEvents.filter((e) => e.ph === 's' && e.cat === 'rpc')).toHaveLength(ofType(plain.trace, 'rpc.deliver').length);
  });

  test('maxEvents cuts a long run and says where, still valid', () => {
    const file = chromeTrace(result.trace, {}, { maxEvents: 1000 });
    expect(validateChromeTrace(file)).toEqual([]);
    const truncated = file.otherData['truncated'] as { afterRunEvent: number; atMs: number; runEventsLeftOut: number };
    expect(truncated.afterRunEvent + truncated.runEventsLeftOut).toBe(result.trace.length);
    expect(file.traceEvents.length).toBeLessThan(1200);
    expect(chromeTrace(result.trace).otherData['truncated']).toBeUndefined();
  });

  test('otherData carries the meta given and the counts drawn', () => {
    const file = chromeTrace(result.trace, { seed: 7, path: '3:1', mode: 'aligned', job: 'flights', traceHash: result.traceHash });
    expect(file.displayTimeUnit).toBe('ms');
    expect(file.otherData).toMatchObject({
      seed: 7, path: '3:1', mode: 'aligned', job: 'flights', traceHash: result.traceHash,
      checkpoints: result.checkpoints.triggered, rpcFlows: ofType(result.trace, 'rpc.deliver').length,
    });
  });
});
