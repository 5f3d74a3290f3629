// ESLint flat config. Besides the usual TypeScript rules it enforces the determinism and
// boundary rules of STYLE.md: engine/ and sim/ never read real time or real randomness, the
// engine never uses promises or async/await, and imports only go one way
// (cli -> bench, reports, scenarios -> properties -> sim -> engine).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const bannedTimeGlobals = [
  'Date', 'performance', 'setTimeout', 'setInterval', 'setImmediate', 'clearTimeout',
  'clearInterval', 'clearImmediate', 'queueMicrotask', 'WeakRef', 'FinalizationRegistry',
  'crypto', 'process',
].map((name) => ({ name, message: `${name} is banned in engine/ and sim/: use the sim's clock, queue and choice source.` }));

const bannedProperties = [
  { object: 'Math', property: 'random', message: 'Math.random is banned: use a named random stream.' },
  { object: 'process', property: 'hrtime', message: 'Real time is banned.' },
  { object: 'process', property: 'nextTick', message: 'Use the sim queue.' },
];

const nodeBuiltins = ['node:*', 'fs', 'path', 'os', 'crypto', 'timers', 'worker_threads', 'child_process'];

export default tseslint.config(
  { ignores: ['dist/**', '**/node_modules/**', 'coverage/**', 'reports/out/**', 'examples/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    files: ['engine/**/*.ts'],
    ignores: ['engine/**/*.test.ts'],
    rules: {
      'no-restricted-globals': ['error', ...bannedTimeGlobals, { name: 'Promise', message: 'No promises in engine/: use CompletableFuture.' }],
      'no-restricted-properties': ['error', ...bannedProperties],
      'no-restricted-syntax': ['error',
        { selector: 'FunctionDeclaration[async=true], FunctionExpression[async=true], ArrowFunctionExpression[async=true]', message: 'No async functions in engine/.' },
        { selector: 'AwaitExpression', message: 'No await in engine/.' },
      ],
      'no-restricted-imports': ['error', { patterns: [
        { group: ['**/sim/**', '**/properties/**', '**/scenarios/**', '**/reports/**', '**/bench/**', '**/cli/**'], message: 'engine/ imports only engine/.' },
        { group: [...nodeBuiltins, 'seedrandom', 'fast-check', 'zx', 'vitest'], message: 'engine/ imports no Node built-ins or libraries.' },
      ] }],
    },
  },
  {
    files: ['sim/**/*.ts'],
    ignores: ['sim/**/*.test.ts'],
    rules: {
      'no-restricted-globals': ['error', ...bannedTimeGlobals],
      'no-restricted-properties': ['error', ...bannedProperties],
      'no-restricted-imports': ['error', { patterns: [
        { group: ['**/properties/**', '**/scenarios/**', '**/reports/**', '**/bench/**', '**/cli/**'], message: 'sim/ may import only engine/index.ts and engine/api/.' },
        { group: ['**/engine/*/**', '!**/engine/api/**', '!**/engine/index.ts'], message: 'sim/ may import only engine/index.ts and engine/api/.' },
        { group: ['fast-check', 'zx'], message: 'sim/ does not use fast-check or zx.' },
      ] }],
    },
  },
  {
    // The one exemption, narrow (as in sim/determinism-guard.test.ts): the user-code guard names
    // Date, performance, crypto and Math.random only to replace them with throwing functions
    // while a user's job code runs; it never calls the real ones on the engine's behalf. The
    // other bans (timers, microtasks, process) still hold for it.
    files: ['sim/jobs/userCodeGuard.ts'],
    rules: {
      'no-restricted-globals': ['error',
        ...bannedTimeGlobals.filter((g) => !['Date', 'performance', 'crypto'].includes(g.name))],
      'no-restricted-properties': ['error',
        ...bannedProperties.filter((p) => !(p.object === 'Math' && p.property === 'random'))],
    },
  },
  {
    files: ['properties/**/*.ts', 'scenarios/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['**/cli/**', '**/bench/**', '**/reports/**'], message: 'Arrows point one way: cli -> bench, reports, scenarios -> properties -> sim -> engine.' },
        { group: ['seedrandom'], message: 'seedrandom is imported in exactly one file of sim/.' },
      ] }],
    },
  },
  {
    files: ['reports/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['**/cli/**', '**/bench/**'], message: 'reports/ reads results and traces only.' },
      ] }],
    },
  },
);
