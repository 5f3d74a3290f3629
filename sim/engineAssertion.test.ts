import { describe, expect, test } from 'vitest';
import { AssertionError } from '../engine/api/index.ts';
import { describeEngineAssertion, isEngineAssertion } from './engineAssertion.ts';
import { HarnessAssertionError } from './harnessAssert.ts';

/** The project's root as a path and as a file URL (this file lies in sim/). */
const ROOT_URL = new URL('../', import.meta.url).href;
const ROOT = decodeURIComponent(new URL(ROOT_URL).pathname);

/** An AssertionError whose stack is `frames` (V8's format). */
function withStack(frames: readonly string[]): AssertionError {
  const e = new AssertionError('broken');
  Object.defineProperty(e, 'stack', { value: ['AssertionError: broken', ...frames.map((f) => `    at ${f}`)].join('\n') });
  return e;
}

describe('engine assertions', () => {
  test('are AssertionErrors other than the sim\'s own HarnessAssertionError', () => {
    expect(isEngineAssertion(new AssertionError('engine'))).toBe(true);
    expect(isEngineAssertion(new HarnessAssertionError('sim'))).toBe(false);
    expect(isEngineAssertion(new Error('plain'))).toBe(false);
    expect(isEngineAssertion('a string')).toBe(false);
  });

  test('are located at the first engine frame outside assert.ts, relative to the project', () => {
    const a = describeEngineAssertion(withStack([
      `assert (${ROOT_URL}engine/util/assert.ts:22:11)`,
      `unreachable (${ROOT}engine/util/assert.ts:30:3)`,
      `Object.check (${ROOT}cli/some.test.ts:5:7)`,
      `${ROOT_URL}engine/io/InputGate.ts:120:9`,
      `SimExecutor.fire (${ROOT}sim/SimExecutor.ts:221:7)`,
      'process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
      `Object.lib (${ROOT}node_modules/fast-check/lib/check.js:1:1)`,
      'Other.outside (/elsewhere/engine/x.ts:1:1)',
    ]));
    expect(a).toEqual({
      message: 'broken',
      location: 'engine/io/InputGate.ts:120',
      stack: [
        'at assert (engine/util/assert.ts:22:11)',
        'at unreachable (engine/util/assert.ts:30:3)',
        'at Object.check (cli/some.test.ts:5:7)',
        'at engine/io/InputGate.ts:120:9',
        'at SimExecutor.fire (sim/SimExecutor.ts:221:7)',
      ],
    });
  });

  test('have no location when no frame of the stack lies in the engine', () => {
    const a = describeEngineAssertion(withStack([
      `assert (${ROOT}engine/util/assert.ts:22:11)`, `check (${ROOT}sim/run/x.ts:1:2)`,
    ]));
    expect(a.location).toBeUndefined();
    expect(describeEngineAssertion(withStack([])).location).toBeUndefined();
  });
});
