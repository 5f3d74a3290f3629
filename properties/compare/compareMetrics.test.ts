/** COMPARE_METRICS: one row per numeric RunMetrics field, each explained in docs/compare.md. */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { COMPARE_FORMAT_VERSION } from './CompareReport.ts';
import { COMPARE_METRICS } from './compareMetrics.ts';

describe('COMPARE_METRICS', () => {
  test('keys and labels are distinct', () => {
    expect(new Set(COMPARE_METRICS.map((m) => m.key)).size).toBe(COMPARE_METRICS.length);
    expect(new Set(COMPARE_METRICS.map((m) => m.label)).size).toBe(COMPARE_METRICS.length);
  });

  test('docs/compare.md defines every metric by its label, with its unit', () => {
    const doc = readFileSync(new URL('../../docs/compare.md', import.meta.url), 'utf8');
    for (const m of COMPARE_METRICS) {
      const at = doc.indexOf(`**${m.label}**`);
      expect(at, m.label).toBeGreaterThan(0);
      // The unit follows the label in its bullet, before the next bullet.
      const bullet = doc.slice(at, doc.indexOf('\n- ', at) === -1 ? undefined : doc.indexOf('\n- ', at));
      expect(bullet, m.label).toContain(`(${m.unit})`);
    }
  });

  test('the docs give compare.json\'s format version and say why the paired figure is the one to read', () => {
    const doc = readFileSync(new URL('../../docs/compare.md', import.meta.url), 'utf8');
    expect(doc).toContain(`\`checkpoint-sim-compare\` version ${COMPARE_FORMAT_VERSION}`);
    expect(doc).toContain('## Paired per seed index: the figure to read');
    expect(doc).toMatch(/median of each mode can land on a\s+different seed index/);
    const page = readFileSync(new URL('../../docs/report-page.md', import.meta.url), 'utf8');
    expect(page).toMatch(/To compare two modes, read the paired figure, not the distance between the two ticks/);
    expect(page).toContain('Dots only, for a correctness count');
  });
});
