import { describe, expect, test } from 'vitest';
import { runCli } from './testing/runCli.ts';

// Issue 14: replay prints Flink's checkpoint statistics as a table, and --json carries them.
describe('replay prints the checkpoint statistics', () => {
  const argv = ['replay', '--seed', '3', '--path', '0', '--mode', 'aligned', '--max-records', '40'] as const;

  test('as a table: one line per checkpoint with status, end-to-end, acks, sizes and the largest parts', async () => {
    const r = await runCli(...argv);
    const lines = r.stdout.split('\n');
    const title = lines.findIndex((l) => l.startsWith('checkpoint statistics: '));
    expect(title, r.stdout).toBeGreaterThanOrEqual(0);
    expect(lines[title + 1]).toMatch(/^ {2}id +type +status +end-to-end ms +acked +checkpointed B +full B .*max start delay ms$/);
    const completed = lines.slice(title + 2).filter((l) => /^ {2}\d+ +(?:checkpoint|savepoint|sync savepoint) +COMPLETED /.test(l));
    expect(completed.length).toBeGreaterThan(0);
    // acked n/n and a non-zero checkpointed size on every completed line.
    for (const l of completed) {
      const [, acked, total, size] = /(\d+)\/(\d+) +(\d+)/.exec(l) ?? [];
      expect(acked, l).toBe(total);
      expect(Number(size), l).toBeGreaterThan(0);
    }
  });

  test('--json includes checkpointStats in ms, consistent with the table', async () => {
    const r = await runCli(...argv, '--json');
    const out = JSON.parse(r.stdout) as { checkpointStats: { checkpoints: { id: number; status: string; endToEndMs: number; subtasks: unknown[] }[] } };
    const done = out.checkpointStats.checkpoints.filter((c) => c.status === 'COMPLETED');
    expect(done.length).toBeGreaterThan(0);
    for (const c of done) {
      expect(c.endToEndMs).toBeGreaterThan(0);
      expect(c.subtasks.length).toBeGreaterThan(0);
    }
  });
});
