/**
 * specErrorPath: a RunSpec error message (validateRunSpec, simulate) rewritten with the field
 * paths of the scenario it was compiled from (compileScenario.ts): `faults[i].when.at...` ->
 * `steps[i].at...`, `faults[i].when.atMs` -> `steps[i].atMs`, `faults[i].when` -> `steps[i]`,
 * `faults[i].<field>` -> `steps[i].do.<field>`, `faults[steps + j]` -> `config.faults[j]`,
 * `job.selection.to` -> `input.records` when the scenario set its input, other top-level
 * RunSpec fields -> `config.<field>` (`job` stays `job`).
 */
const TOP_LEVEL = [
  'seed', 'parallelism', 'maxParallelism', 'taskManagers', 'slotsPerTaskManager', 'costsMs', 'network',
  'storeLatency', 'heartbeat', 'jobManager', 'checkpoint', 'restartStrategy', 'healTimeMs', 'budgets',
  'overrides', 'mutations',
];

export function specErrorPath(message: string, o: { readonly steps: number; readonly input: boolean }): string {
  let m = message.replace(/\bfaults\[(\d+)\]((?:\.[A-Za-z]+)*)/g, (_all, index: string, rest: string) => {
    const i = Number(index);
    if (i >= o.steps) return `config.faults[${i - o.steps}]${rest}`;
    if (rest.startsWith('.when.at.') || rest === '.when.at') return `steps[${i}].at${rest.slice('.when.at'.length)}`;
    if (rest === '.when.atMs') return `steps[${i}].atMs`;
    if (rest === '.when') return `steps[${i}]`;
    return `steps[${i}].do${rest}`;
  });
  if (o.input) m = m.replace(/^job\.selection\.to\b/, 'input.records').replace(/^job\.lines\b/, 'input.records');
  const head = /^([A-Za-z]+)/.exec(m)?.[1];
  if (head !== undefined && TOP_LEVEL.includes(head)) m = `config.${m}`;
  if (m.startsWith('run spec: unknown field')) {
    m = m.replace(/^run spec:/, 'config:').replace(/\(fields: [^)]*\)/, `(fields: ${[...TOP_LEVEL, 'faults'].join(', ')})`);
  }
  return m;
}
