/**
 * replay's explanation flags: `--fork N` replays explore's restore fan-out fork (the regenerated
 * run plus a global failure when checkpoint N completes), `--events` prints every event with its
 * seq and cause, and bad values are one-line errors (exit 2).
 */
import { describe, expect, test } from 'vitest';
import { expectOneLine, runCli } from './testing/runCli.ts';

// A run explore draws with this mutant (seed 5, the swarm strategy, its 43rd run: path 42; re-found
// when the merge of issue 19's branches moved the schedules): it holds; its fork at checkpoint 2 fails.
const PATH = '42';
const RUN = ['replay', '--seed', '5', '--path', PATH, '--mode', 'aligned', '--job', 'wordcount', '--strategy', 'swarm',
  '--mutant', 'sink-commits-only-notified'];

describe('replay --fork', () => {
  test('the main run holds; its fork at checkpoint 2 fails, and the fork\'s global failure fired', async () => {
    const main = await runCli(...RUN);
    expect(main.code).toBe(0);
    const fork = await runCli(...RUN, '--fork', '2');
    expect(fork.code).toBe(1);
    expect(fork.stdout).toContain(`replay seed 5 path ${PATH} fork 2 (wordcount, aligned, strategy swarm)\n`);
    // The planted sink commits only the notified checkpoint's transaction: checkpoint 15's notification
    // commits 15's, and checkpoint 14, subsumed by 15, is never notified, so its records are never committed.
    expect(fork.stdout).toContain('the property still fails: end-to-end-exactly-once');
    expect(fork.stdout).toContain('the transaction of checkpoint 14 on sink subtask 0, pre-committed and never committed');
    expect(fork.stdout).toContain('checkpoint 14 aborted (CHECKPOINT_SUBSUMED)');
    const json = JSON.parse((await runCli(...RUN, '--fork', '2', '--json')).stdout) as {
      fork: number; stillFails: boolean; unfiredFaults: unknown[]; explanation: { faultsFired: number };
    };
    expect(json.fork).toBe(2);
    expect(json.stillFails).toBe(true);
    expect(json.unfiredFaults).toEqual([]);
    expect(json.explanation.faultsFired).toBeGreaterThan(0);
  });

  test('a fork whose checkpoint never completes says its failure never fired', async () => {
    // Explore's third run of seed 5 (mixed strategy) has not completed checkpoint 2 by the heal time.
    const r = await runCli('replay', '--seed', '5', '--path', '2', '--mode', 'aligned', '--job', 'wordcount', '--fork', '2');
    expect(r.stdout).toContain('the fork\'s global failure never fired: checkpoint 2 did not complete before the heal time in this run\n');
  });

  test.each([['0'], ['x'], ['1.5']])('--fork %s is bad input', async (n) => {
    const r = await runCli(...RUN, '--fork', n);
    expect(r.code).toBe(2);
    expectOneLine(r.stderr, `--fork must be a checkpoint id (an integer >= 1), got '${n}'`);
  });

  test('a repro file fixes the fork: replay <file> --fork is refused', async () => {
    const r = await runCli('replay', 'any.json', '--fork', '2');
    expect(r.code).toBe(2);
    expectOneLine(r.stderr, 'replay <file> takes no --fork; the repro file fixes it');
  });
});

describe('replay --events', () => {
  test('prints every event with its seq and, where it has one, its cause', async () => {
    const r = await runCli('replay', '--seed', '3', '--path', '0', '--mode', 'at-least-once', '--events');
    const lines = r.stdout.split('\n');
    const header = lines.findIndex((l) => /^every event \(\d+\):$/.test(l));
    expect(header).toBeGreaterThan(0);
    const count = Number(/\((\d+)\)/.exec(lines[header] ?? '')?.[1]);
    const events = lines.slice(header + 1, header + 1 + count);
    expect(events[0]).toMatch(/^#0 +0\.000 ms {2}\S+ +host\.boot \{"incarnation":1\}$/);
    // In seq order (executor tasks take seqs too, so stored events may skip some).
    const seqs = events.map((l) => Number(/^#(\d+) /.exec(l)?.[1]));
    expect(seqs.every((n, i) => Number.isInteger(n) && (i === 0 || n > (seqs[i - 1] as number)))).toBe(true);
    const caused = events.filter((l) => / {2}<- #\d+$/.test(l));
    expect(caused.length).toBeGreaterThan(count / 2);
    // A cause is always an earlier event.
    for (const l of caused) {
      const [, seq, cause] = /^#(\d+) .* <- #(\d+)$/.exec(l) ?? [];
      expect(Number(cause)).toBeLessThan(Number(seq));
    }
  });
});

describe('replay --mermaid', () => {
  test('writes a Markdown file with one mermaid sequence diagram, and refuses a directory or an empty name', async () => {
    const { mkdtempSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'checkpoint-sim-mermaid-'));
    const file = join(dir, 'x.md');
    const r = await runCli(...RUN, '--fork', '2', '--mermaid', file);
    expect(r.code).toBe(1);
    const md = readFileSync(file, 'utf8');
    expect(md.match(/```mermaid\nsequenceDiagram\n/g)).toHaveLength(1);
    expect(md).toContain('fork 2');
    const asDir = await runCli(...RUN, '--mermaid', dir);
    expect(asDir.code).toBe(2);
    expectOneLine(asDir.stderr, 'is a directory');
    const empty = await runCli(...RUN, '--mermaid', ' ');
    expect(empty.code).toBe(2);
    expectOneLine(empty.stderr, '--mermaid: the file name is empty');
  });
});
