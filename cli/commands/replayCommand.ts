/**
 * `checkpoint-sim replay <repro.json>` and `checkpoint-sim replay --seed S --path P` (with the
 * explore flags): run the same run again and print the trace hash, whether it is the one
 * recorded, whether the property still fails, and the trace excerpt before the violation.
 * Exit codes: 1 the property still fails, 0 it holds now, 2 bad input.
 */
import { readFileSync } from 'node:fs';
import { defaultJudge } from '../../properties/explore/defaultJudge.ts';
import { expectationOf } from '../../properties/explore/explore.ts';
import { replayRepro, replaySpec, regenerateSpec, type ReplayOutcome } from '../../properties/explore/replay.ts';
import { parseRepro, ReproFormatError } from '../../properties/explore/Repro.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { UsageError, type Io } from '../program.ts';
import { parseExploreFlags, type ExploreFlags } from './exploreCommand.ts';

const deps = { simulate: (spec: Parameters<typeof simulate>[0]) => simulate(spec), judge: defaultJudge };

/** Replays a repro file. @throws UsageError for an unreadable or malformed file. */
export function replayFile(path: string, io: Io): number {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new UsageError(`cannot read repro file ${path}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`repro file ${path} is not valid JSON`);
  }
  let repro;
  try {
    repro = parseRepro(parsed);
  } catch (e) {
    if (e instanceof ReproFormatError) throw new UsageError(`${path}: ${e.message}`);
    throw e;
  }
  const outcome = replayRepro(repro, deps);
  io.out(`replay ${path}: recorded property ${repro.property}\n`);
  return printOutcome(outcome, io);
}

/** Regenerates and replays the run at fast-check seed and path. */
export function replaySeedPath(flags: ExploreFlags & { path?: string }, io: Io): number {
  if (flags.seed === undefined || flags.path === undefined) throw new UsageError('replay needs a repro file, or --seed and --path');
  if (!/^\d+(:\d+)*$/.test(flags.path)) throw new UsageError(`--path must look like 3:0:1, got '${flags.path}'`);
  const s = parseExploreFlags(flags);
  const mode = s.modes[0];
  if (mode === undefined || s.modes.length !== 1) throw new UsageError('replay --seed --path needs exactly one --mode');
  const spec = regenerateSpec({
    job: s.job, mode, mutants: s.mutants, seed: s.seed, path: flags.path,
    ...(s.maxRecords === undefined ? {} : { maxRecords: s.maxRecords }),
    ...(s.maxParallelism === undefined ? {} : { maxParallelism: s.maxParallelism }),
  });
  const outcome = replaySpec(spec, s.expect ?? expectationOf(mode), deps);
  io.out(`replay seed ${s.seed} path ${flags.path} (${s.job}, ${mode})\n`);
  return printOutcome(outcome, io);
}

function printOutcome(o: ReplayOutcome, io: Io): number {
  const same = o.sameTraceHash === undefined ? '' : o.sameTraceHash ? ' (same as recorded)' : ' (DIFFERENT from the recorded hash)';
  io.out(`trace hash ${o.traceHash}${same}\n`);
  if (o.violation === undefined) {
    io.out('the property holds now\n');
  } else {
    io.out(`the property still fails: ${o.violation.property}: ${o.violation.summary}\n`);
  }
  io.out('trace excerpt:\n');
  for (const e of o.excerpt) io.out(`  ${(e.timeUs / 1000).toFixed(3)} ms ${e.host} ${e.type} ${JSON.stringify(e.attrs)}\n`);
  return o.stillFails ? 1 : 0;
}
