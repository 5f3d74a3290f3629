// Browser test: Mermaid 11 itself parses and draws the diagrams mermaidSequence writes, in
// headless Chromium. Skipped (with one line for the whole run) when no Chromium is found, failed
// instead under CHECKPOINT_SIM_BROWSER_TESTS=required (.ci/run).
import { describe, expect, test } from 'vitest';
import { MAX_DIAGRAM_CHARS, mermaidSequence, sequenceStepsOf } from './mermaidSequence.ts';
import { skipBrowserTests } from './testing/browserAvailability.ts';
import { HOSTILE_TEXTS, HOSTILE_TITLE, hostileSteps } from './testing/hostileSteps.ts';
import { describeForTests, lostTriggerWindow } from './testing/lostTriggerWindow.ts';
import { mermaidPageForTests, renderMermaid } from './testing/renderMermaid.ts';

describe.skipIf(skipBrowserTests())('mermaid renders the sequence diagrams', () => {
  const mermaidPage = mermaidPageForTests();

  test('a real run\'s window: the lost trigger, the trigger delivered and the fault', async () => {
    const text = mermaidSequence(sequenceStepsOf(lostTriggerWindow().events, describeForTests), { title: 'lost trigger' });
    expect(text).toMatch(/-xp_taskexecutor_taskmanager_2_0: triggerCheckpoint lost: message fault\n/);
    const r = await renderMermaid(mermaidPage(), text);
    expect(r).toMatchObject({ ok: true, diagramType: 'sequence' });
    const texts = r.ok ? r.svgTexts : [];
    for (const t of ['lost trigger', 'JobMaster', 'TaskExecutor taskmanager-1', 'triggerCheckpoint lost: message fault',
      'fault 0: lose triggerCheckpoint (checkpoint 3)', 'triggerSent 3 v0#1@0']) expect(texts).toContain(t);
  });

  test('hostile names and texts are drawn as written', async () => {
    const r = await renderMermaid(mermaidPage(), mermaidSequence(hostileSteps, { title: HOSTILE_TITLE }));
    expect(r).toMatchObject({ ok: true, diagramType: 'sequence' });
    for (const t of HOSTILE_TEXTS) expect(r.ok ? r.svgTexts : [], t).toContain(t);
  });

  test('the largest diagram (a whole run, capped) parses and renders', async () => {
    const text = mermaidSequence(sequenceStepsOf(lostTriggerWindow().trace, (e) => `${e.type} ${JSON.stringify(e.attrs)}`));
    expect(text.length).toBeLessThanOrEqual(MAX_DIAGRAM_CHARS);
    const r = await renderMermaid(mermaidPage(), text);
    expect(r).toMatchObject({ ok: true, diagramType: 'sequence' });
    expect((r.ok ? r.svgTexts : []).join('\n')).not.toMatch(/maximum text size/i);
    expect(r.ok ? r.svgTexts : []).toContainEqual(expect.stringMatching(/^\d+ earlier messages and \d+ notes left out$/));
  });

  test('the check can fail: a broken diagram, and text written without escaping', async () => {
    const good = mermaidSequence(hostileSteps);
    const broken = await renderMermaid(mermaidPage(), `${good}\n  end`);
    expect(broken.ok).toBe(false);
    expect(broken.ok ? '' : broken.error).toMatch(/parse error/i);
    // Unescaped, `#` starts a comment and `;` ends the statement: the text is cut short.
    const raw = await renderMermaid(mermaidPage(), 'sequenceDiagram\n  participant a as A\n  Note over a: v0#0; lost\n');
    expect(raw).toMatchObject({ ok: true, diagramType: 'sequence' });
    expect(raw.ok ? raw.svgTexts : []).not.toContain('v0#0; lost');
    // Over Mermaid's maxTextSize the "diagram" is an error message, which the content check sees.
    const huge = await renderMermaid(mermaidPage(), `sequenceDiagram\n  participant a as A\n${'  Note over a: x\n'.repeat(4_000)}`);
    expect(huge).toMatchObject({ ok: true });
    expect(huge.ok && huge.diagramType).not.toBe('sequence');
    expect((huge.ok ? huge.svgTexts : []).join('\n')).toMatch(/maximum text size/i);
  });
});
