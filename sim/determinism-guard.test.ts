/**
 * The determinism guard (STYLE.md "Determinism"): scans the source text of engine/ and sim/
 * (test files and testing/ fakes excluded) for real time, real randomness, promises in the
 * engine, and imports across the boundaries. ESLint checks the same; this test keeps the rules
 * even if the lint config drifts.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'testing' && name !== 'node_modules') out.push(...sources(p));
    } else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) {
      out.push(p);
    }
  }
  return out;
}

/** Source text without comments and string contents, so prose may mention banned words. */
function code(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '')
    .replace(/'(?:[^'\\\n]|\\.)*'/g, "''")
    .replace(/`(?:[^`\\]|\\.)*`/g, '``');
}

const BANNED: [string, RegExp][] = [
  ['Date', /\bDate\b/], ['Math.random', /\bMath\s*\.\s*random\b/], ['performance', /\bperformance\s*\./],
  ['setTimeout', /\bsetTimeout\b/], ['setInterval', /\bsetInterval\b/], ['setImmediate', /\bsetImmediate\b/],
  ['queueMicrotask', /\bqueueMicrotask\b/], ['process.nextTick', /\bprocess\s*\.\s*nextTick\b/],
  ['process.hrtime', /\bprocess\s*\.\s*hrtime\b/], ['WeakRef', /\bWeakRef\b/],
  ['FinalizationRegistry', /\bFinalizationRegistry\b/], ['crypto', /\bcrypto\b/],
];
/**
 * The one exemption, narrow: sim/jobs/userCodeGuard.ts names Date, Math.random, performance and
 * crypto only to replace them with throwing functions while a user's job code runs (and put them
 * back after); it never calls the real ones on the engine's behalf. Every other rule (timers,
 * microtasks, process, imports) still applies to it.
 */
const EXEMPT: Readonly<Record<string, readonly string[]>> = {
  'sim/jobs/userCodeGuard.ts': ['Date', 'Math.random', 'performance', 'crypto'],
};

const ENGINE_ONLY: [string, RegExp][] = [['async', /\basync\s/], ['await', /\bawait\s/], ['Promise', /\bPromise\b/]];

const SIM_BANNED_BUILTINS = [
  'node:timers', 'node:timers/promises', 'node:crypto', 'node:perf_hooks', 'node:worker_threads',
  'node:child_process', 'node:process',
];

function imports(text: string): string[] {
  return [...text.matchAll(/(?:import|export)[^'"`;]*?from\s*'([^']+)'|import\s*\(\s*'([^']+)'\s*\)/g)]
    .map((m) => m[1] ?? m[2] ?? '');
}

test('engine/ and sim/ use no real time, real randomness, or (in engine/) promises', () => {
  const problems: string[] = [];
  for (const area of ['engine', 'sim']) {
    for (const file of sources(join(ROOT, area))) {
      const text = code(readFileSync(file, 'utf8'));
      const rules = area === 'engine' ? [...BANNED, ...ENGINE_ONLY] : BANNED;
      const exempt = EXEMPT[relative(ROOT, file)] ?? [];
      for (const [name, re] of rules) {
        if (re.test(text) && !exempt.includes(name)) problems.push(`${relative(ROOT, file)}: ${name}`);
      }
    }
  }
  expect(problems).toEqual([]);
});

test('seedrandom is imported in exactly one file of sim/, and nowhere in engine/', () => {
  const users = [...sources(join(ROOT, 'sim')), ...sources(join(ROOT, 'engine'))]
    .filter((f) => imports(readFileSync(f, 'utf8')).includes('seedrandom'))
    .map((f) => relative(ROOT, f));
  expect(users).toEqual(['sim/RandomStreams.ts']);
});

test('imports respect the boundaries', () => {
  const problems: string[] = [];
  for (const file of sources(join(ROOT, 'engine'))) {
    for (const spec of imports(readFileSync(file, 'utf8'))) {
      const target = spec.startsWith('.') ? relative(ROOT, join(file, '..', spec)) : spec;
      if (!target.startsWith('engine/')) problems.push(`${relative(ROOT, file)} imports ${spec}`);
    }
  }
  for (const file of sources(join(ROOT, 'sim'))) {
    for (const spec of imports(readFileSync(file, 'utf8'))) {
      if (spec === 'seedrandom') continue;
      // The RunSpec schema: zod parses data and reads no clock and no randomness.
      if (spec === 'zod') continue;
      // Data loading (sim/workloads) may read files; clocks, timers and randomness stay banned.
      if (spec.startsWith('node:') && !SIM_BANNED_BUILTINS.includes(spec)) continue;
      const target = spec.startsWith('.') ? relative(ROOT, join(file, '..', spec)) : spec;
      const ok = target.startsWith('sim/') || target === 'engine/index.ts' || /^engine\/api\/[^/]+\.ts$/.test(target);
      if (!ok) problems.push(`${relative(ROOT, file)} imports ${spec}`);
    }
  }
  expect(problems).toEqual([]);
});
