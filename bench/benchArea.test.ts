import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { BENCH_AREAS, isBenchArea } from './runBench.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('bench areas', () => {
  test('isBenchArea knows exactly the areas runBench runs', () => {
    for (const area of BENCH_AREAS) expect(isBenchArea(area)).toBe(true);
    for (const s of ['', 'kernels', 'Engine', 'all']) expect(isBenchArea(s)).toBe(false);
  });

  test('benchArea refuses an unknown area with one line and exit code 2', () => {
    const child = spawnSync(process.execPath, ['--import', 'tsx', 'bench/benchArea.ts', 'nope'], {
      cwd: root, encoding: 'utf8',
    });
    expect(child.status).toBe(2);
    expect(child.stdout).toBe('');
    expect(child.stderr).toBe('benchArea: unknown area "nope"\n');
  });
});
