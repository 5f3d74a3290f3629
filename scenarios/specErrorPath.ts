/**
 * specErrorPath: a RunSpec error message (validateRunSpec, simulate) rewritten with the field
 * paths of the scenario it was compiled from (compileScenario.ts). A step is a fault or an action
 * (`targets`, in step order): `faults[i]` and `actions[j]` become the step `steps[k]` that
 * compiled into them, `...when.at...` -> `steps[k].at...`, `...when.atMs` -> `steps[k].atMs`,
 * `...when` -> `steps[k]`, `...<field>` -> `steps[k].do.<field>`; a fault after the steps' is
 * `config.faults[j]`; `job.selection.to` -> `input.records` when the scenario set its input,
 * other top-level RunSpec fields -> `config.<field>` (`job` stays `job`).
 */
import type { StepTarget } from './compileScenario.ts';

const TOP_LEVEL = [
  'seed', 'parallelism', 'maxParallelism', 'taskManagers', 'slotsPerTaskManager', 'costsMs', 'network',
  'storeLatency', 'heartbeat', 'jobManager', 'checkpoint', 'restartStrategy', 'healTimeMs', 'budgets',
  'overrides', 'mutations',
];

/** The scenario path of RunSpec field `rest` (`.when.at.task`, `.host`) of step `k`. */
function stepPath(k: number, rest: string): string {
  if (rest.startsWith('.when.at.') || rest === '.when.at') return `steps[${k}].at${rest.slice('.when.at'.length)}`;
  if (rest === '.when.atMs') return `steps[${k}].atMs`;
  if (rest === '.when') return `steps[${k}]`;
  return `steps[${k}].do${rest}`;
}

export function specErrorPath(message: string, o: { readonly targets: readonly StepTarget[]; readonly input: boolean }): string {
  const faultSteps: number[] = [];
  const actionSteps: number[] = [];
  o.targets.forEach((t, k) => {
    if ('fault' in t) faultSteps[t.fault] = k;
    else actionSteps[t.action] = k;
  });
  // A path that heads the message is a field of the step; one inside it (`(actions[0])`) names the step.
  let m = message.replace(/\bfaults\[(\d+)\]((?:\.[A-Za-z]+)*)/g, (_all, index: string, rest: string, offset: number) => {
    const i = Number(index);
    const k = faultSteps[i];
    if (k === undefined) return `config.faults[${i - faultSteps.length}]${rest}`;
    return offset === 0 || rest !== '' ? stepPath(k, rest) : `steps[${k}]`;
  });
  m = m.replace(/\bactions\[(\d+)\]((?:\.[A-Za-z]+)*)/g, (all, index: string, rest: string, offset: number) => {
    const k = actionSteps[Number(index)];
    if (k === undefined) return all;
    return offset === 0 || rest !== '' ? stepPath(k, rest) : `steps[${k}]`;
  });
  if (o.input) m = m.replace(/^job\.selection\.to\b/, 'input.records').replace(/^job\.lines\b/, 'input.records');
  const head = /^([A-Za-z]+)/.exec(m)?.[1];
  if (head !== undefined && TOP_LEVEL.includes(head)) m = `config.${m}`;
  if (m.startsWith('run spec: unknown field')) {
    m = m.replace(/^run spec:/, 'config:').replace(/\(fields: [^)]*\)/, `(fields: ${[...TOP_LEVEL, 'faults'].join(', ')})`);
  }
  return m;
}
