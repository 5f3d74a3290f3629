/**
 * The `checkpoint-sim` bin runs as a program in a checkout, as the README's `npx checkpoint-sim`
 * commands need: the build leaves dist/cli/main.js executable (tsc writes it without the execute
 * bit; npm sets it only when it installs a package, not in the package's own checkout).
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { version: string; bin: Record<string, string> };
const bin = `${root}${pkg.bin['checkpoint-sim'] ?? ''}`;

describe('the checkpoint-sim bin in a checkout', () => {
  test('is executable after the build (npm ci builds it; else run npm run build)', () => {
    expect(() => accessSync(bin, constants.X_OK)).not.toThrow();
  });

  test('runs by its own shebang', () => {
    expect(execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim()).toBe(pkg.version);
  });
});
