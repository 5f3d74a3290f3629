/**
 * The files of the consumer project packedPackage.test.ts installs checkpoint-sim into: a vitest
 * config and test file as a user would write them, importing only from 'checkpoint-sim', and a
 * type-check file with one tsconfig per module resolution a user's project may use.
 *
 * The test file writes the trace hash of {@link CONSUMER_SPEC} to `out/trace-hash.txt`, so the
 * test can compare the compiled package's run with the sources' run of the same spec.
 */
import { RUN_SPEC_VERSION, type RunSpec } from '../../sim/run/RunSpec.ts';

/**
 * Flights 0..300 (the data comes from the installed vega-datasets) at parallelism 2, a checkpoint
 * every 20 ms, TaskManager 1 crashing when checkpoint 2 completes: a restore, about 200 ms of wall
 * time.
 */
export const CONSUMER_SPEC: RunSpec = {
  version: RUN_SPEC_VERSION,
  seed: 'consumer',
  job: { kind: 'flights', selection: { from: 0, to: 300 } },
  parallelism: 2,
  checkpoint: { mode: 'aligned', intervalMs: 20 },
  faults: [{
    type: 'crash', host: 'taskmanager-1', downMs: 40,
    when: { at: { kind: 'jobmaster', checkpoint: 2, phase: 'completed' } },
  }],
  healTimeMs: 400,
  budgets: { maxEvents: 2_000_000, maxTimeMs: 20_000 },
  overrides: [],
  mutations: [],
};

/** The spec as TypeScript source, its version written as the package's constant. */
const specSource = JSON.stringify({ ...CONSUMER_SPEC, version: '@VERSION@' }, null, 2)
  .replace('"@VERSION@"', 'RUN_SPEC_VERSION');

/** The consumer's scenario that fails on purpose, and the repro file its failure writes. */
export const FAILING_SCENARIO = 'restored-from-the-aborted-checkpoint';
export const FAILING_REPRO = `reports/out/repro-scenario-${FAILING_SCENARIO}.json`;

/** What the consumer's vitest must report per test title: its status, and what a failure says. */
export const CONSUMER_TESTS: Readonly<Record<string, { status: 'passed' | 'failed'; failureMessage?: readonly RegExp[] }>> = {
  'simulate runs the flights job and the oracles pass it': { status: 'passed' },
  'a malformed spec is a SimInputError naming the field': { status: 'passed' },
  'a job written with the job API runs on a MiniCluster, exactly once across a crash': { status: 'passed' },
  'a scenario that holds passes, its one step fired': { status: 'passed' },
  // Fails on purpose: what a user sees when a scenario fails.
  [FAILING_SCENARIO]: {
    status: 'failed',
    failureMessage: [
      new RegExp(`scenario ${FAILING_SCENARIO} failed: expect\\.restoredFrom\\(3\\) failed at \\d+(\\.\\d+)? ms`),
      /events around it:\n +\d+(\.\d+)? ms jobmanager checkpoint\.restored /,
      new RegExp(`replay: npx checkpoint-sim replay ${FAILING_REPRO.replace(/[.]/g, '\\.')}`),
    ],
  },
  // README "Write a scenario" and "Use it from your own tests", their examples as written there.
  'crash-after-sink-ack-then-lost-notification': { status: 'passed' },
  'a crash after checkpoint 2 restores once and stays exactly-once': { status: 'passed' },
  'my-crash-during-alignment': { status: 'passed' },
};

const scenarioTest = `import { expect, test } from 'vitest';
import { checkpoint, crash, defineScenario, expect as scenarioExpect, runScenario } from 'checkpoint-sim';

/** TaskManager 1 crashes when checkpoint 3's first barrier reaches v1#0: 3 aborts, 2 restores. */
const crashDuringAlignment = (name: string, restoredFrom: number) => defineScenario({
  name,
  protects: 'a TaskManager lost during alignment aborts that checkpoint and restores the one before',
  steps: [{ at: checkpoint(3).firstBarrierOn('v1#0'), do: crash('taskmanager-1') }],
  expect: [
    scenarioExpect.checkpointAborted(3),
    scenarioExpect.restoredFrom(restoredFrom),
    scenarioExpect.jobStatus('FINISHED'),
  ],
});

test('a scenario that holds passes, its one step fired', () => {
  const result = runScenario(crashDuringAlignment('crash-during-alignment', 2));
  expect(result.passed, result.failure?.message).toBe(true);
  expect([result.stepsFired, result.stepsTotal]).toEqual([1, 1]);
});

test('${FAILING_SCENARIO}', () => {
  const result = runScenario(crashDuringAlignment('${FAILING_SCENARIO}', 3));
  expect(result.passed, result.failure?.message).toBe(true);
});
`;

const consumerTest = `import { mkdirSync, writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import {
  MiniCluster, RUN_SPEC_VERSION, SimInputError, StreamExecutionEnvironment, consecutiveSplits,
  judgeRun, simulate, splitSource, twoPhaseCommitSink, validateRunSpec,
  type KeyedProcessFunction, type RunSpec,
} from 'checkpoint-sim';

const spec: RunSpec = ${specSource};

test('simulate runs the flights job and the oracles pass it', () => {
  const result = simulate(spec);
  expect(result.jobStatus).toBe('FINISHED');
  expect(result.restores).toBe(1);
  expect(result.unfiredFaults).toEqual([]);
  expect(result.committed).toHaveLength(300);
  const verdict = judgeRun(result);
  expect(verdict.violations).toEqual([]);
  expect(verdict.ok).toBe(true);
  expect(simulate(spec).traceHash).toBe(result.traceHash);
  mkdirSync('out', { recursive: true });
  writeFileSync('out/trace-hash.txt', result.traceHash);
});

test('a malformed spec is a SimInputError naming the field', () => {
  expect(() => validateRunSpec({ ...spec, parallelism: 0 })).toThrow(SimInputError);
  expect(() => validateRunSpec({ ...spec, parallelism: 0 })).toThrow(/parallelism/);
});

test('a job written with the job API runs on a MiniCluster, exactly once across a crash', () => {
  const lines = ['to be or not to be', 'that is the question'];
  const count: KeyedProcessFunction<string, string, { word: string; n: number }> = {
    processElement(word, ctx, out) {
      const n = (ctx.getState<number>({ kind: 'value', name: 'n' }).value() ?? 0) + 1;
      ctx.getState<number>({ kind: 'value', name: 'n' }).update(n);
      out.collect({ word, n });
    },
  };
  const env = new StreamExecutionEnvironment({ jobName: 'wordcount', parallelism: 2 });
  env.enableCheckpointing(10, { mode: 'EXACTLY_ONCE' });
  env.fromSource(splitSource(consecutiveSplits(lines, 2)), { name: 'lines' })
    .flatMap<string>((line, out) => line.split(' ').forEach((w) => out.collect(w)))
    .keyBy<string>((w) => w)
    .process(count, { name: 'count', uid: 'count' })
    .sinkTo(twoPhaseCommitSink('words'));
  const cluster = new MiniCluster({ world: { seed: 'my-seed' }, streamGraph: env.getStreamGraph() });
  cluster.world.at(5_000, 'crash', () => cluster.world.crash('taskmanager-1'));
  cluster.world.at(20_000, 'restart', () => cluster.world.restart('taskmanager-1'));
  const result = cluster.run();
  expect(result.jobStatus).toBe('FINISHED');
  const words = result.committed.map((c) => c.record.value as { word: string; n: number });
  expect(words.filter((w) => w.word === 'be').map((w) => w.n).sort()).toEqual([1, 2]);
  expect(words).toHaveLength(10);
});
`;

/**
 * Type-checked, never run: it uses the declarations so that a declaration that resolved to
 * nothing (an \`any\`) fails the check: each @ts-expect-error must find its error.
 */
const typesCheck = `import {
  PLANTED_BUG_IDS, RUN_SPEC_VERSION, SimInputError, checkpoint, crash, defineScenario, expandRunSpec,
  expect as scenarioExpect, judgeRun, runScenario, simulate, validateRunSpec, type ExpandedRunSpec,
  type Fault, type RunResult, type RunSpec, type RunVerdict, type Scenario, type ScenarioResult,
  type TraceEvent,
} from 'checkpoint-sim';

const spec: RunSpec = ${specSource};
validateRunSpec(spec);
const expanded: ExpandedRunSpec = expandRunSpec(spec);
const result: RunResult = simulate(spec, { checkInvariants: true });
const hash: string = result.traceHash;
const events: readonly TraceEvent[] = result.trace;
const verdict: RunVerdict = judgeRun(result, { expect: 'exactly-once', skip: ['liveness'] });
const ok: boolean = verdict.ok;
const fault: Fault = { type: 'crash', host: 'taskmanager-1', when: { atMs: 10 }, downMs: 5 };
const bugs: readonly string[] = PLANTED_BUG_IDS;
const error: Error = new SimInputError('x');

const scenario: Scenario = defineScenario({
  name: 'typed', protects: 'the declarations',
  steps: [{ at: checkpoint(3).firstBarrierOn('v1#0'), do: crash('taskmanager-1') }],
  expect: [scenarioExpect.restoredFrom(2), scenarioExpect.at(checkpoint(3).triggered(), scenarioExpect.checkpointsCompleted({ exactly: 2 }))],
});
const scenarioResult: ScenarioResult = runScenario(scenario, { outDir: 'out' });
const passed: boolean = scenarioResult.passed;
const message: string | undefined = scenarioResult.failure?.message;

// @ts-expect-error: checkpoint ids are numbers
checkpoint('3');
// @ts-expect-error: no such expectation builder
scenarioExpect.noSuchExpectation(1);
// @ts-expect-error: a RunSpec's version is a number
const wrongVersion: RunSpec = { ...spec, version: 'three' };
// @ts-expect-error: the promise is exactly-once or at-least-once
judgeRun(result, { expect: 'exactly-twice' });
// @ts-expect-error: a RunResult has no such field
void result.noSuchField;

export { expanded, hash, events, ok, fault, bugs, error, wrongVersion, passed, message };
`;

/**
 * A tsconfig checking types-check.ts. Under `bundler` every declaration is checked
 * (skipLibCheck off: a declaration that imports what is not there fails); under `node16`, which
 * resolves the declarations' relative imports as `bundler` does and differs in how it enters the
 * package (the `exports` conditions), the entry and the @ts-expect-error lines are the check, and
 * the libraries' declarations are not read twice (seconds on two cores).
 */
const tsconfig = (module: string, moduleResolution: string, skipLibCheck: boolean): string => `${JSON.stringify({
  compilerOptions: {
    target: 'ES2022', lib: ['ES2022'], module, moduleResolution, types: ['node'], strict: true,
    noEmit: true, skipLibCheck,
  },
  files: ['types-check.ts'],
}, null, 2)}\n`;

/** The README sections whose examples the consumer project runs as they are written there. */
export const README_SECTIONS = ['## Write a scenario', '## Use it from your own tests'];

/**
 * The TypeScript examples of README's {@link README_SECTIONS}, in order.
 * @throws Error when a section or its examples are missing.
 */
export function readmeExamples(readme: string): string[] {
  return README_SECTIONS.flatMap((title) => {
    const start = readme.indexOf(`\n${title}\n`);
    const end = start < 0 ? -1 : readme.indexOf('\n## ', start + 1);
    const section = start < 0 ? '' : readme.slice(start, end < 0 ? undefined : end);
    const blocks = [...section.matchAll(/\n```ts\n([\s\S]*?)\n```\n/g)].map((m) => `${m[1] ?? ''}\n`);
    if (blocks.length === 0) throw new Error(`README.md: no \`\`\`ts example under "${title}"`);
    return blocks;
  });
}

/** Every file of the consumer project, by path relative to it; `readme` is README.md's text. */
export const consumerFiles = (readme: string): Readonly<Record<string, string>> => ({
  ...Object.fromEntries(readmeExamples(readme).map((text, i) => [`test/readme${i + 1}.test.ts`, text])),
  'test/scenario.test.ts': scenarioTest,
  'vitest.config.ts': `import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { include: ['test/**/*.test.ts'], testTimeout: 60_000 } });
`,
  'test/checkpointSim.test.ts': consumerTest,
  'types-check.ts': typesCheck,
  'tsconfig.bundler.json': tsconfig('preserve', 'bundler', false),
  'tsconfig.node16.json': tsconfig('node16', 'node16', true),
});
