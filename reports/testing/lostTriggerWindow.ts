/**
 * lostTriggerWindow: a window of a real run's trace for the sequence-diagram tests: the catalogue
 * scenario `lost-trigger-rpc-fails-checkpoint` (a lost triggerCheckpoint RPC), from the RPC the
 * first fault lost (its send comes just before the fault) to 30 events after the fault.
 */
import { CATALOGUE } from '../../scenarios/catalogue/index.ts';
import { compileScenario } from '../../scenarios/compileScenario.ts';
import { simulate } from '../../sim/run/simulate.ts';
import type { TraceEvent } from '../../sim/Trace.ts';

/** The window (`events`) and the whole trace (`trace`) of the scenario's run. */
export function lostTriggerWindow(): { readonly events: readonly TraceEvent[]; readonly trace: readonly TraceEvent[] } {
  const scenario = CATALOGUE.find((s) => s.name === 'lost-trigger-rpc-fails-checkpoint');
  if (scenario === undefined) throw new Error('catalogue scenario lost-trigger-rpc-fails-checkpoint is gone');
  const { trace } = simulate(compileScenario(scenario).spec);
  const fault = trace.findIndex((e) => e.type === 'fault');
  if (fault < 0) throw new Error('lost-trigger-rpc-fails-checkpoint fired no fault');
  const lostId = trace[fault]?.attrs['id'];
  const send = trace.findIndex((e) => e.type === 'rpc.send' && e.attrs['id'] === lostId);
  return { events: trace.slice(send >= 0 && send < fault ? send : fault, fault + 31), trace };
}

/** A describer like replay's: faults, checkpoint events and RPC timeouts in a few words. */
export function describeForTests(e: TraceEvent): string | undefined {
  const a = e.attrs;
  if (e.type === 'fault') return `fault ${String(a['index'])}: ${String(a['action'])} ${String(a['method'])} (checkpoint ${String(a['checkpoint'])})`;
  if (e.type === 'rpc.timeout') return `${String(a['method'])} to ${String(a['to'])} timed out`;
  if (e.type.startsWith('checkpoint.')) {
    const task = a['task'] === undefined ? '' : ` ${String(a['task'])}`;
    return `${e.type.slice('checkpoint.'.length)} ${String(a['checkpointId'])}${task}`;
  }
  return undefined;
}
