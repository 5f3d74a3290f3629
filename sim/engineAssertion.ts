/**
 * engineAssertion: tells an engine assertion from a harness one, and says where in the engine it
 * was thrown (DESIGN.md: an assertion inside the engine is a counterexample, which shrinks and
 * replays; one inside the sim or the harness is a harness failure).
 *
 * The rule is the error's class, that is, who wrote the failed check: an AssertionError is the
 * engine's unless it is a HarnessAssertionError, which only the sim's checks of its own
 * bookkeeping throw (sim/harnessAssert.ts says which checks those are). Two rules that look
 * simpler are wrong here:
 *
 * - "which code was running" (an engine task, or the sim's bookkeeping): engine code runs inside
 *   sim actions (a crash breaks connections and peers react at once; the cluster decodes each
 *   completed checkpoint in a trace subscription), and sim code runs inside engine tasks (every
 *   call through the EngineEnv), so it names whoever was at the bottom of the stack, not whoever
 *   found the broken state;
 * - "which file threw" (the first stack frame): a port's contract is checked in sim/ (a send
 *   without credit fails in SimDataNetwork), yet breaking it is the engine's bug; and a stack's
 *   text depends on the runtime, source maps and where the code lies.
 *
 * The stack only says where: the first frame under engine/ that is not engine/util/assert.ts, as
 * `<path>:<line>` relative to the project. The path is the file that ran: `engine/...ts` under
 * tsx and vitest, `dist/engine/...js` from the compiled command line (built without source
 * maps), so a location is stable between runs of the same code, not between the two.
 */
import { AssertionError } from '../engine/api/index.ts';
import { HarnessAssertionError } from './harnessAssert.ts';

/** What an engine assertion said and where it was thrown. */
export interface EngineAssertionReport {
  readonly message: string;
  /**
   * `<path>:<line>` of the first stack frame under engine/ outside engine/util/assert.ts, the
   * path relative to the project; undefined when the stack has no such frame.
   */
  readonly location: string | undefined;
  /** The stack's frames inside the project, innermost first, paths relative to the project. */
  readonly stack: readonly string[];
}

/** The folder this file's code root lies in: the project, or the project's `dist/`. */
const CODE_ROOT = filePath(new URL('../', import.meta.url).href);
const COMPILED = CODE_ROOT.endsWith('/dist/');
const PROJECT_ROOT = COMPILED ? CODE_ROOT.slice(0, -'dist/'.length) : CODE_ROOT;
const ENGINE = COMPILED ? 'dist/engine/' : 'engine/';
const ASSERT_FILE = `${ENGINE}util/assert.`;

/** True for an AssertionError of the engine (see the file comment), false for anything else. */
export function isEngineAssertion(e: unknown): e is AssertionError {
  return e instanceof AssertionError && !(e instanceof HarnessAssertionError);
}

/** The message, location and project frames of `e` (see {@link EngineAssertionReport}). */
export function describeEngineAssertion(e: AssertionError): EngineAssertionReport {
  const frames = projectFrames(e.stack ?? '');
  const thrower = frames.find((f) => f.path.startsWith(ENGINE) && !f.path.startsWith(ASSERT_FILE));
  return {
    message: e.message,
    location: thrower === undefined ? undefined : `${thrower.path}:${thrower.line}`,
    stack: frames.map((f) => f.text),
  };
}

interface Frame {
  /** Relative to the project. */
  readonly path: string;
  readonly line: number;
  /** `at <function> (<path>:<line>:<column>)`, or without the function. */
  readonly text: string;
}

/** V8's `    at fn (file:line:col)` or `    at file:line:col`, file a path or a file URL. */
const FRAME = /^\s*at (?:(.+?) \()?((?:file:\/\/)?[^\s()]+):(\d+):(\d+)\)?\s*$/;

/** A match of {@link FRAME}: the line, the function (if named), file, line and column. */
type Match = [string, string | undefined, string, string, string];

/** The frames of `stack` in files of the project (not node internals or node_modules). */
function projectFrames(stack: string): Frame[] {
  const out: Frame[] = [];
  for (const lineText of stack.split('\n')) {
    const m = FRAME.exec(lineText);
    if (m === null) continue;
    const [, fn, file, line, column] = m as unknown as Match;
    const abs = filePath(file);
    if (!abs.startsWith(PROJECT_ROOT) || abs.includes('/node_modules/')) continue;
    const path = abs.slice(PROJECT_ROOT.length);
    const where = `${path}:${line}:${column}`;
    const text = fn === undefined ? `at ${where}` : `at ${fn} (${where})`;
    out.push({ path, line: Number(line), text });
  }
  return out;
}

/** A file URL or path as a path. */
function filePath(file: string): string {
  return file.startsWith('file://') ? decodeURIComponent(new URL(file).pathname) : file;
}
