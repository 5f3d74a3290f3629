// Browser test: the Markdown file `replay --mermaid` writes holds a sequence diagram that Mermaid
// 11 parses and draws in headless Chromium, with the explanation's events as notes and the
// fixture's lost trigger as a lost message. Skipped (one line for the whole run) without Chromium,
// failed instead under CHECKPOINT_SIM_BROWSER_TESTS=required (.ci/run).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { causalWindow } from '../properties/explain/causalWindow.ts';
import { describerOf, explainRun } from '../properties/explain/explainRun.ts';
import fixture from '../properties/explain/fixtures/lostTriggerThenCrash.ts';
import { defaultJudge } from '../properties/explore/defaultJudge.ts';
import { mermaidSequence, sequenceStepsOf } from '../reports/mermaidSequence.ts';
import { skipBrowserTests } from '../reports/testing/browserAvailability.ts';
import { mermaidPageForTests, renderMermaid } from '../reports/testing/renderMermaid.ts';
import { compileScenario } from '../scenarios/compileScenario.ts';
import { simulate } from '../sim/run/simulate.ts';
import { runCli } from './testing/runCli.ts';

describe.skipIf(skipBrowserTests())('replay --mermaid', () => {
  const mermaidPage = mermaidPageForTests();

  test('the file replay writes renders, with the explanation in it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'checkpoint-sim-mermaid-')), 'sub', 'run.md');
    // README's example run (docs/explain.md shows its explanation).
    const r = await runCli('replay', '--seed', '3', '--path', '65', '--mode', 'at-least-once', '--expect', 'exactly-once', '--mermaid', file);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/\nwrote .*run\.md \(\d+ messages, \d+ notes\)\n$/);
    const md = readFileSync(file, 'utf8');
    expect(md).toMatch(/^# replay seed 3 path 65 \(flights, at-least-once, strategy mixed: drawn by pct\): end-to-end-exactly-once: /);
    const diagram = /```mermaid\n([\s\S]*)\n```\n$/.exec(md)?.[1] ?? '';
    expect(diagram.startsWith('sequenceDiagram\n')).toBe(true);
    const rendered = await renderMermaid(mermaidPage(), diagram);
    expect(rendered).toMatchObject({ ok: true, diagramType: 'sequence' });
    const texts = (rendered.ok ? rendered.svgTexts : []).join('\n');
    expect(texts).toContain('restore from checkpoint 3 (4 task(s), global)');
    expect(texts).toContain('cancelTask');
  });

  test('the fixture\'s window draws the lost trigger as lost and the crash\'s failover', async () => {
    const result = simulate(compileScenario(fixture).spec);
    const explanation = explainRun(result, defaultJudge(result, 'exactly-once').violations[0]);
    const steps = sequenceStepsOf(causalWindow(result.trace, explanation), describerOf(result));
    expect(steps.filter((s) => s.kind === 'message').length).toBeLessThanOrEqual(60);
    const text = mermaidSequence(steps, { title: 'fixture' });
    expect(text).toMatch(/p_jobmaster-xp_taskexecutor_taskmanager_\d_0: triggerCheckpoint lost: message fault\n/);
    const rendered = await renderMermaid(mermaidPage(), text);
    expect(rendered).toMatchObject({ ok: true, diagramType: 'sequence' });
    const texts = (rendered.ok ? rendered.svgTexts : []).join('\n');
    for (const t of ['taskmanager-2 crashes', 'restore from checkpoint 2 (4 task(s))', 'checkpoint 3 aborted (TRIGGER_CHECKPOINT_FAILURE)']) {
      expect(texts).toContain(t);
    }
  });
});
