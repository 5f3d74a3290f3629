/**
 * MARKS is complete and nothing in it is dead: every mark the engine, the sim and the fault plan
 * record (found in their sources) is in MARKS, every mark in MARKS is recorded somewhere, and
 * docs/scenarios.md lists each. A mark missing here would make a scenario naming it refused; one
 * recorded nowhere would let `markNotReached` pass vacuously.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { MARK_NAMES } from './marks.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.parentPath.includes('testing'))
    .map((e) => join(e.parentPath, e.name));
}

/** Mark names written as literals where a mark is recorded. */
function recordedMarks(): Set<string> {
  const found = new Set<string>();
  const patterns = [
    /\.mark\(\s*'([^']+)'(?!\s*,\s*')/g, // engine: tracer.mark('name', ...)
    /\.mark\(\s*(?:[\w.]+|'[^']+'),\s*'([^']+)'/g, // sim: trace.mark(host, 'name', ...)
    /this\.note\(index,\s*'[^']+',\s*'([^']+)'\)/g, // fault plan: note(index, action, mark)
  ];
  for (const file of [...sources('engine'), ...sources('sim')]) {
    const text = readFileSync(file, 'utf8');
    for (const p of patterns) for (const m of text.matchAll(p)) found.add(m[1] ?? '');
  }
  // Marks named through a value rather than at the call (each checked in its file).
  const indirect: Record<string, [string, RegExp]> = {
    'rpc-delay': ['sim/run/FaultPlan.ts', /f\.type === 'rpc-delay' \|\| f\.type === 'slow-store' \? f\.type/],
    'slow-store': ['sim/run/FaultPlan.ts', /f\.type === 'rpc-delay' \|\| f\.type === 'slow-store' \? f\.type/],
    'message-lost': ['sim/run/FaultPlan.ts', /lose: 'message-lost'/],
    'message-delayed': ['sim/run/FaultPlan.ts', /delay: 'message-delayed'/],
    'message-held': ['sim/run/FaultPlan.ts', /hold: 'message-held'/],
    'async-snapshot-failed': ['sim/run/faultWorldOptions.ts', /ASYNC_SNAPSHOT_FAILED_MARK(: MarkName)? = 'async-snapshot-failed'/],
  };
  for (const [name, [file, re]] of Object.entries(indirect)) {
    if (re.test(readFileSync(join(root, file), 'utf8'))) found.add(name);
  }
  // `trace.mark(host, name)` with a literal host: the first pattern reads the host ('sim',
  // 'store', the sim's pseudo-hosts) as a name; the second pattern has the real one.
  for (const host of ['sim', 'store']) found.delete(host);
  return found;
}

describe('MARKS', () => {
  const recorded = recordedMarks();

  test('holds every mark the engine, the sim and the fault plan record', () => {
    expect([...recorded].filter((m) => !(MARK_NAMES as string[]).includes(m)).sort()).toEqual([]);
  });

  test('holds no mark that nothing records', () => {
    expect(MARK_NAMES.filter((m) => !recorded.has(m))).toEqual([]);
  });

  test('docs/scenarios.md lists every mark', () => {
    const doc = readFileSync(join(root, 'docs/scenarios.md'), 'utf8');
    expect(MARK_NAMES.filter((m) => !doc.includes(`| \`${m}\` |`))).toEqual([]);
  });
});
