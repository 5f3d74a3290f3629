/**
 * The environment for a child process of a test (npm, or a consumer project's vitest and tsc):
 * the caller's, without what the calling vitest set for its own workers (VITEST*, TEST,
 * NODE_ENV=test, NODE_OPTIONS, colour forcing), so the child starts as from a plain shell, and
 * with NO_COLOR, so its output can be read by tests.
 */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('VITEST') || k === 'TEST' || k === 'NODE_ENV' || k === 'FORCE_COLOR' || k === 'NODE_OPTIONS') continue;
    env[k] = v;
  }
  env['NO_COLOR'] = '1';
  return env;
}
