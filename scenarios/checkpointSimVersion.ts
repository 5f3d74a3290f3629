/**
 * checkpointSimVersion: the version in checkpoint-sim's package.json (what a repro records),
 * found by walking up from this file, so it works from the sources and from the build (dist/).
 */
import { existsSync, readFileSync } from 'node:fs';

let cached: string | undefined;

export function checkpointSimVersion(): string {
  if (cached !== undefined) return cached;
  let dir = new URL('.', import.meta.url);
  for (let depth = 0; depth < 6; depth++) {
    const file = new URL('package.json', dir);
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'checkpoint-sim' && typeof pkg.version === 'string') return (cached = pkg.version);
    }
    dir = new URL('..', dir);
  }
  return (cached = 'unknown');
}
