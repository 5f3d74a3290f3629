import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { NODE_FLAGS } from './nodeFlags.ts';

const root = new URL('..', import.meta.url);

describe('NODE_FLAGS', () => {
  test('the shebang of cli/main.ts passes exactly NODE_FLAGS', () => {
    const first = readFileSync(new URL('cli/main.ts', root), 'utf8').split('\n')[0];
    expect(first).toBe(`#!/usr/bin/env -S node ${NODE_FLAGS.join(' ')}`);
  });

  test('package.json runs start and bench with exactly NODE_FLAGS', () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
      scripts: Record<string, string>;
    };
    for (const script of ['start', 'bench']) {
      expect(pkg.scripts[script]).toBe(`node ${NODE_FLAGS.join(' ')} dist/cli/main.js ${script}`);
    }
  });
});
