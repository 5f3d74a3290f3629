import { describe, expect, test } from 'vitest';
import type { RunResult } from '../../sim/run/RunResult.ts';
import { RUN_SPEC_VERSION, type RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import type { GeneratedStage } from '../../sim/workloads/generatedJob.ts';
import type { TraceEvent } from '../../sim/Trace.ts';
import { judgeRun } from './judgeRun.ts';
import { OPERATOR_STATE_RESTORED, operatorState } from './operatorState.ts';

const values = (n: number, from: number): number[] => Array.from({ length: n }, (_x, i) => from + i);

function spec(stages: GeneratedStage[], extra: Partial<RunSpec> = {}): RunSpec {
  return {
    version: RUN_SPEC_VERSION,
    seed: 'opstate',
    job: { kind: 'generated', spec: {
      records: [values(12, 0), values(8, 100), values(6, 200), values(10, 300), values(5, 400)],
      stages, sourceParallelism: 2, sinkParallelism: 2, maxParallelism: 8,
    } },
    parallelism: {},
    costsMs: { 'gen-source': 10 },
    checkpoint: { mode: 'aligned', intervalMs: 40 },
    restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
    faults: [{ type: 'crash', host: 'taskmanager-1', when: { atMs: 150 }, downMs: 20 }],
    healTimeMs: 300,
    budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 },
    overrides: [],
    mutations: [],
    ...extra,
  };
}

const BOTH: GeneratedStage[] = [
  { kind: 'splitLog', parallelism: 2, rebalance: true },
  { kind: 'map', fn: 0, parallelism: 2, rebalance: false },
  { kind: 'splitOwners', parallelism: 2 },
];

/** `result` with every restore event of `operator` rewritten by `edit` (a broken restore). */
function tamper(result: RunResult, operator: string,
  edit: (restored: Record<string, { mode: string; elements: unknown[] }>, holds: Record<string, unknown[]>, e: TraceEvent) => void): RunResult {
  let edited = 0;
  const trace = result.trace.map((e) => {
    if (e.type !== OPERATOR_STATE_RESTORED || e.attrs['operator'] !== operator) return e;
    const restored = JSON.parse(String(e.attrs['restored'])) as Record<string, { mode: string; elements: unknown[] }>;
    const holds = JSON.parse(String(e.attrs['holds'])) as Record<string, unknown[]>;
    edit(restored, holds, e);
    edited++;
    return { ...e, attrs: { ...e.attrs, restored: JSON.stringify(restored), holds: JSON.stringify(holds) } };
  });
  expect(edited).toBeGreaterThan(0);
  return { ...result, trace };
}

const kinds = (r: RunResult): unknown[] =>
  operatorState(r).violations.map((v) => (v.details as { kind: string }).kind);

describe('operator-state oracle', () => {
  const correct = simulate(spec(BOTH));

  test('a failover restores both operators: every restore judged, none violated', () => {
    expect(correct.jobStatus).toBe('FINISHED');
    expect(correct.restores).toBeGreaterThan(0);
    const events = correct.trace.filter((e) => e.type === OPERATOR_STATE_RESTORED);
    expect(new Set(events.map((e) => e.attrs['operator']))).toEqual(new Set(['gen-0-splitLog', 'gen-2-splitOwners']));
    // The union reached every subtask whole (the restored state is more than the subtask's own).
    const union = events.filter((e) => e.attrs['operator'] === 'gen-2-splitOwners')
      .map((e) => (JSON.parse(String(e.attrs['restored'])) as Record<string, { elements: unknown[] }>)['split-owners']?.elements.length);
    expect(new Set(union).size).toBe(1);
    expect(union[0]).toBeGreaterThan(1);
    const verdict = operatorState(correct);
    expect(verdict.violations).toEqual([]);
    expect(verdict.judgement).toEqual({ judged: true, restores: events.length });
    const run = judgeRun(correct);
    expect(run.oracles).toContain('operator-state');
    expect(run.operatorState.judged).toBe(true);
    expect(run.ok).toBe(true);
  });

  test('a list element lost in the restore is reported with the checkpoint, operator and element', () => {
    let dropped: unknown;
    const broken = tamper(correct, 'gen-0-splitLog', (restored, holds, e) => {
      if (e.attrs['subtask'] !== 0 || dropped !== undefined) return;
      dropped = restored['splits-seen']?.elements.pop();
      holds['splits-seen']?.pop();
    });
    const [v] = operatorState(broken).violations;
    expect(v?.property).toBe('operator-state');
    expect(v?.summary).toMatch(/list state splits-seen of gen-0-splitLog after the restore from checkpoint \d+ \(parallelism 2\): 1 element\(s\) missing, 0 extra/);
    expect(v?.details).toMatchObject({ kind: 'list-elements-differ', operator: 'gen-0-splitLog', missing: [String(dropped)], extra: [] });
    expect(judgeRun(broken).ok).toBe(false);
  });

  test('a list element restored twice is reported as extra', () => {
    const broken = tamper(correct, 'gen-0-splitLog', (restored, holds) => {
      restored['splits-seen']?.elements.push(4);
      holds['splits-seen']?.push(4);
    });
    expect(kinds(broken)).toContain('list-elements-differ');
    expect(operatorState(broken).violations[0]?.details).toMatchObject({ extra: ['4', '4'] });
  });

  test('a subtask that got only part of the union, or kept an entry twice, is reported', () => {
    const partial = tamper(correct, 'gen-2-splitOwners', (restored, _holds, e) => {
      if (e.attrs['subtask'] === 1) restored['split-owners']?.elements.shift();
    });
    expect(kinds(partial)).toEqual(['union-not-whole']);
    const twice = tamper(correct, 'gen-2-splitOwners', (_restored, holds, e) => {
      const kept = holds['split-owners'];
      if (e.attrs['subtask'] === 0 && kept !== undefined && kept.length > 0) kept.push(kept[0]);
    });
    expect(kinds(twice)).toEqual(['kept-total-differs']);
    const mode = tamper(correct, 'gen-2-splitOwners', (restored) => {
      const s = restored['split-owners'];
      if (s !== undefined) s.mode = 'SPLIT_DISTRIBUTE';
    });
    expect(kinds(mode)).toContain('mode-differs');
  });

  test('restores that cover only some subtasks are judged for extras, not for what the others hold', () => {
    const first = correct.trace.find((e) => e.type === OPERATOR_STATE_RESTORED && e.attrs['operator'] === 'gen-0-splitLog');
    const onlyOne = { ...correct, trace: correct.trace.filter((e) => e.type !== OPERATOR_STATE_RESTORED || e === first) };
    expect(operatorState(onlyOne).violations).toEqual([]);
    const extra = tamper(onlyOne, 'gen-0-splitLog', (restored, holds) => {
      restored['splits-seen']?.elements.push(99);
      holds['splits-seen']?.push(99);
    });
    expect(operatorState(extra).violations[0]?.details).toMatchObject({ complete: false, extra: ['99'], missing: [] });
  });

  test('a regional failover of a forward-only job restores one subtask: judged, no violation', () => {
    const r = simulate(spec([{ kind: 'splitLog', parallelism: 2, rebalance: false }],
      { taskManagers: 2, slotsPerTaskManager: 1 }));
    const events = r.trace.filter((e) => e.type === OPERATOR_STATE_RESTORED);
    expect(events.length).toBe(1);
    expect(operatorState(r)).toEqual({ violations: [], judgement: { judged: true, restores: 1 } });
  });

  test('no restore, or no operator with operator state: unjudged, never a pass', () => {
    const calm = simulate(spec(BOTH, { faults: [] }));
    expect(operatorState(calm).judgement).toMatchObject({ judged: false, reason: 'no-restore' });
    expect(judgeRun(calm).operatorState).toMatchObject({ judged: false, reason: 'no-restore' });
    const plain = simulate(spec([{ kind: 'map', fn: 0, parallelism: 2, rebalance: false }], { faults: [] }));
    expect(judgeRun(plain).oracles).not.toContain('operator-state');
    expect(judgeRun(plain).operatorState).toMatchObject({ judged: false, reason: 'no-operator-state' });
  });

  test('a restore from a checkpoint the run does not list is unjudged', () => {
    const unknown = { ...correct, checkpoints: { ...correct.checkpoints, completed: [] } };
    expect(operatorState(unknown).judgement).toMatchObject({ judged: false, reason: 'checkpoint-unknown' });
  });
});
