/**
 * formatExplanation: an Explanation (explainRun.ts) as timeline lines for a terminal, one event
 * per line: virtual ms, host, which chain it is on, what happened in words.
 *
 *     why it failed (cause chain from the restore before attempt 1 of sink subtask 0, ...):
 *        48.492 ms  sim           why 3      fault 0 loses triggerCheckpoint RPC to v0#0@0 (...)
 *        68.492 ms  jobmanager    why 3      checkpoint 3 aborted (TRIGGER_CHECKPOINT_FAILURE): ...
 *       113.166 ms  taskmanager-2 cause      taskmanager-2 crashes
 */
import type { Explanation, ExplanationStep } from './explainRun.ts';

/** The chain column: `cause`, `why 3` (why the restore did not use checkpoint 3), or both. */
function chainLabel(s: ExplanationStep): string {
  const why = s.whyCheckpoints === undefined ? undefined : `why ${s.whyCheckpoints.join(',')}`;
  const cause = s.chains.includes('cause') ? 'cause' : undefined;
  return [cause, why].filter((x) => x !== undefined).join('+');
}

/**
 * The explanation's lines, each prefixed by `indent`: a heading, the merged timeline, what each
 * restore went back to and why, and the fault line.
 */
export function formatExplanation(e: Explanation, indent = '  '): string[] {
  const lines: string[] = [];
  // The same reason once, with how many it stands for ("3 restores of the run").
  const counts = new Map<string, number>();
  for (const a of e.anchors) counts.set(a.why, (counts.get(a.why) ?? 0) + 1);
  const anchors = [...counts].map(([why, n]) => (n === 1 ? why : `${why} (${n})`)).join('; ');
  const what = e.violated ? 'why it failed' : 'what the run went through';
  lines.push(anchors === '' ? `${what}: no failure, restore or fault to start from` : `${what} (from ${anchors}):`);
  const hostWidth = Math.max(4, ...e.steps.map((s) => s.host.length));
  const seqWidth = Math.max(2, ...e.steps.map((s) => String(s.seq).length + 1));
  const labels = e.steps.map((s) => chainLabel(s));
  const labelWidth = Math.max(5, ...labels.map((l) => l.length));
  e.steps.forEach((s, i) => {
    const time = `${s.timeMs.toFixed(3)} ms`.padStart(12);
    const inferred = s.inferred === undefined ? '' : `  [inferred: ${s.inferred}]`;
    lines.push(`${indent}${`#${s.seq}`.padEnd(seqWidth)} ${time}  ${s.host.padEnd(hostWidth)}  ${(labels[i] as string).padEnd(labelWidth)}  ${s.text}${inferred}`);
  });
  for (const r of e.restores) {
    const to = r.checkpointId < 0 ? 'no checkpoint (none had completed)' : `checkpoint ${r.checkpointId}`;
    const newer = r.newer.length === 0 ? 'no newer checkpoint had been triggered'
      : r.newer.map((n) => `checkpoint ${n.checkpointId} ${n.outcome}`).join(', ');
    lines.push(`${indent}the restore went back to ${to}: ${newer}`);
  }
  if (e.reachedFaults.length > 0) lines.push(`${indent}root fault(s): ${e.reachedFaults.map((i) => `fault ${i}`).join(', ')}`);
  if (e.plantedBugs.length > 0) {
    lines.push(`${indent}planted bug(s) switched on: ${e.plantedBugs.join(', ')}: the engine's own bug may be the cause the trace cannot show (docs/planted-bugs.md)`);
  }
  if (e.noFault !== undefined) lines.push(`${indent}${e.noFault}`);
  return lines;
}
