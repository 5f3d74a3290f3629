/**
 * Generated job shapes for the property suites: a job is plain JSON data
 * ({@link GeneratedJobSpec}) so fast-check can generate and shrink it, and
 * {@link buildGeneratedJob} turns it into a StreamGraph with the public job API.
 *
 * Shapes stay inside what ORACLES.md allows so the reference fold F is well defined: one
 * split-based source of integer records, stateless map/filter/flatMap stages and at most two
 * keyed stages, all picking pure functions by index from the menus of generatedFunctions.ts;
 * keyed state is order-insensitive per key and keyed outputs depend only on the input value; no
 * broadcast edges and no timers. Optionally one `splitLog` (list state) and one `splitOwners`
 * (union state) pass-through stage, whose operator state never reaches the output.
 *
 * Edges: a stage (and the sink) is fed over a forward edge when its parallelism equals its
 * input's and `rebalance` is false, over a rebalance edge otherwise; keyed stages are fed by
 * keyBy; a `splitOwners` stage always over a rebalance edge. Uids are `gen-source`,
 * `gen-<i>-<kind>-<menu name>` for stage i (`gen-<i>-splitLog`, `gen-<i>-splitOwners`),
 * `gen-sink`.
 */
import { splitSource, StreamExecutionEnvironment } from '../../engine/index.ts';
import type { DataStream, SinkDefinition, SplitData, StreamGraph } from '../../engine/index.ts';
import {
  FILTER_MENU, FLAT_MAP_MENU, KEY_MENU, KEYED_MENU, MAP_MENU,
} from './generatedFunctions.ts';
import { splitLog, splitOwners } from './generatedOperatorState.ts';

/** A stateless stage: the function at index `fn` of its kind's menu. */
export interface GeneratedStatelessStage {
  readonly kind: 'map' | 'filter' | 'flatMap';
  readonly fn: number;
  readonly parallelism: number;
  /** Feed this stage over a rebalance edge even when the parallelism is unchanged. */
  readonly rebalance: boolean;
}

/** A keyed stage: keyBy(KEY_MENU[key]) then process(KEYED_MENU[fn]). */
export interface GeneratedKeyedStage {
  readonly kind: 'keyed';
  readonly key: number;
  readonly fn: number;
  readonly parallelism: number;
}

/**
 * A stage with operator state that forwards every record unchanged (generatedOperatorState.ts):
 * `splitLog` keeps list state of the split ids it saw, `splitOwners` union state of the split
 * ids it owns. F treats both as the identity.
 *
 * Edges: `splitLog` is fed like a stateless stage; `splitOwners` always over a rebalance edge,
 * so that its subtasks' inputs end together (each ends when the last upstream subtask ended).
 * Flink aborts every checkpoint while a vertex with union state is partly finished
 * (CHECKPOINT_DECLINED_TASK_CLOSING, DefaultCheckpointPlan#fulfillFinishedTaskStatus); fed
 * forward from a source, such a vertex would stay partly finished from its first source
 * subtask's end to its last's, longer than the liveness bound allows. Over a rebalance edge the
 * window is the skew of one EndOfData's delivery.
 */
export type GeneratedOperatorStateStage =
  | {
    readonly kind: 'splitLog';
    readonly parallelism: number;
    /** Feed this stage over a rebalance edge even when the parallelism is unchanged. */
    readonly rebalance: boolean;
  }
  | { readonly kind: 'splitOwners'; readonly parallelism: number };

export type GeneratedStage = GeneratedStatelessStage | GeneratedKeyedStage | GeneratedOperatorStateStage;

/** A generated job: input records and the job's shape. Plain JSON. */
export interface GeneratedJobSpec {
  /** Records per split; split `i` has id `i`. Integers. */
  readonly records: readonly (readonly number[])[];
  /** Stages in pipeline order, between the source and the sink. */
  readonly stages: readonly GeneratedStage[];
  readonly sourceParallelism: number;
  readonly sinkParallelism: number;
  /** Max parallelism of every operator; at least every parallelism. */
  readonly maxParallelism: number;
}

/** Bounds a valid spec keeps (and the generator draws within). */
export const GENERATED_JOB_LIMITS = Object.freeze({
  maxSplits: 16,
  maxRecordsPerSplit: 1000,
  /** Source values are integers in [-maxAbsValue, maxAbsValue]. */
  maxAbsValue: 1_000_000,
  maxStages: 6,
  maxKeyedStages: 2,
  /** Bounds the fan-out of records (each flatMap multiplies by at most 3). */
  maxFlatMapStages: 2,
  /** At most one `splitLog` (list state) and one `splitOwners` (union state) stage. */
  maxSplitLogStages: 1,
  maxSplitOwnersStages: 1,
  maxParallelism: 16,
  maxMaxParallelism: 32_768,
});

/** A spec outside the allowed shapes. */
export class InvalidGeneratedJobError extends Error {
  override readonly name = 'InvalidGeneratedJobError';
}

/** The menu a stateless stage kind picks from. */
export function menuFor(
  kind: GeneratedStatelessStage['kind'],
): readonly { readonly name: string }[] {
  switch (kind) {
    case 'map': return MAP_MENU;
    case 'filter': return FILTER_MENU;
    case 'flatMap': return FLAT_MAP_MENU;
  }
}

/**
 * Checks a spec against {@link GENERATED_JOB_LIMITS} and the menus.
 * @throws InvalidGeneratedJobError naming the first problem.
 */
export function validateGeneratedJobSpec(spec: GeneratedJobSpec): void {
  const L = GENERATED_JOB_LIMITS;
  const fail = (msg: string): never => {
    throw new InvalidGeneratedJobError(`generated job: ${msg}`);
  };
  const splits = Array.isArray(spec.records) ? spec.records.length : 0;
  if (splits < 1 || splits > L.maxSplits) {
    fail(`records must be 1..${L.maxSplits} splits`);
  }
  spec.records.forEach((split, s) => {
    if (!Array.isArray(split) || split.length > L.maxRecordsPerSplit) {
      fail(`split ${s} must be an array of at most ${L.maxRecordsPerSplit} records`);
    }
    split.forEach((v, o) => {
      if (!Number.isInteger(v) || Math.abs(v) > L.maxAbsValue || Object.is(v, -0)) {
        fail(`record (${s}, ${o}) must be an integer in [-${L.maxAbsValue}, ${L.maxAbsValue}], `
          + `got ${String(v)}`);
      }
    });
  });
  if (!Array.isArray(spec.stages) || spec.stages.length > L.maxStages) {
    fail(`at most ${L.maxStages} stages`);
  }
  const count = (kind: GeneratedStage['kind']): number =>
    spec.stages.filter((st) => st.kind === kind).length;
  if (count('keyed') > L.maxKeyedStages) fail(`at most ${L.maxKeyedStages} keyed stages`);
  if (count('flatMap') > L.maxFlatMapStages) fail(`at most ${L.maxFlatMapStages} flatMap stages`);
  if (count('splitLog') > L.maxSplitLogStages) fail(`at most ${L.maxSplitLogStages} splitLog stage`);
  if (count('splitOwners') > L.maxSplitOwnersStages) {
    fail(`at most ${L.maxSplitOwnersStages} splitOwners stage`);
  }
  const parallelisms = [spec.sourceParallelism, spec.sinkParallelism];
  spec.stages.forEach((st, i) => {
    parallelisms.push(st.parallelism);
    if (st.kind === 'keyed') {
      checkIndex(st.key, KEY_MENU.length, `stage ${i} key`, fail);
      checkIndex(st.fn, KEYED_MENU.length, `stage ${i} keyed function`, fail);
    } else if (st.kind === 'map' || st.kind === 'filter' || st.kind === 'flatMap') {
      checkIndex(st.fn, menuFor(st.kind).length, `stage ${i} ${st.kind} function`, fail);
      if (typeof st.rebalance !== 'boolean') fail(`stage ${i} rebalance must be a boolean`);
    } else if (st.kind === 'splitLog') {
      if (typeof st.rebalance !== 'boolean') fail(`stage ${i} rebalance must be a boolean`);
    } else if (st.kind !== 'splitOwners') {
      fail(`stage ${i} has unknown kind ${String((st as { kind: unknown }).kind)}`);
    }
  });
  for (const p of parallelisms) {
    if (!Number.isInteger(p) || p < 1 || p > L.maxParallelism) {
      fail(`parallelism must be an integer in 1..${L.maxParallelism}, got ${String(p)}`);
    }
  }
  const m = spec.maxParallelism;
  const top = Math.max(...parallelisms);
  if (!Number.isInteger(m) || m < top || m > L.maxMaxParallelism) {
    fail(`maxParallelism must be an integer in ${top}..${L.maxMaxParallelism}, got ${String(m)}`);
  }
}

function checkIndex(i: number, size: number, what: string, fail: (msg: string) => never): void {
  if (!Number.isInteger(i) || i < 0 || i >= size) {
    fail(`${what} index must be in 0..${size - 1}, got ${String(i)}`);
  }
}

/** The splits of a spec: split `i` has id `i` and the spec's records `i`. */
export function generatedSplits(spec: GeneratedJobSpec): SplitData<number>[] {
  return spec.records.map((records, id) => ({ id, records: [...records] }));
}

/** The operator uid of stage `index`. */
export function generatedStageUid(spec: GeneratedJobSpec, index: number): string {
  const st = spec.stages[index];
  if (st === undefined) throw new InvalidGeneratedJobError(`generated job: no stage ${index}`);
  if (st.kind === 'splitLog' || st.kind === 'splitOwners') return `gen-${index}-${st.kind}`;
  const name = st.kind === 'keyed'
    ? `${KEY_MENU[st.key]?.name ?? '?'}-${KEYED_MENU[st.fn]?.name ?? '?'}`
    : (menuFor(st.kind)[st.fn]?.name ?? '?');
  return `gen-${index}-${st.kind}-${name}`;
}

/**
 * Builds the job a spec describes, ending in `sink`.
 * @throws InvalidGeneratedJobError for an invalid spec.
 */
export function buildGeneratedJob(spec: GeneratedJobSpec, sink: SinkDefinition): StreamGraph {
  validateGeneratedJobSpec(spec);
  const env = new StreamExecutionEnvironment({
    jobName: 'generated', parallelism: spec.sourceParallelism,
  });
  buildGeneratedPipeline(env, spec, generatedSplits(spec), sink);
  return env.getStreamGraph();
}

/**
 * Adds the operators of a valid spec to `env`: a source over `splits` (the spec's, or a cut of
 * them), its stages and `sink`, each at the shape's parallelism and max parallelism.
 * @throws InvalidGeneratedJobError for a menu index out of range.
 */
export function buildGeneratedPipeline(
  env: StreamExecutionEnvironment,
  spec: GeneratedJobSpec,
  splits: readonly SplitData<number>[],
  sink: SinkDefinition,
): void {
  const maxParallelism = spec.maxParallelism;
  let stream: DataStream<number> = env.fromSource(splitSource(splits), {
    name: 'gen-source', uid: 'gen-source', parallelism: spec.sourceParallelism, maxParallelism,
  });
  let upstream = spec.sourceParallelism;
  spec.stages.forEach((st, i) => {
    const uid = generatedStageUid(spec, i);
    const options = { name: uid, uid, parallelism: st.parallelism, maxParallelism };
    if (st.kind === 'keyed') {
      stream = stream.keyBy(pick(KEY_MENU, st.key)).process(pick(KEYED_MENU, st.fn), options);
    } else if (st.kind === 'splitOwners') {
      stream = stream.rebalance().passThrough(splitOwners, options);
    } else if (st.kind === 'splitLog') {
      const input = st.rebalance || st.parallelism !== upstream ? stream.rebalance() : stream;
      stream = input.passThrough(splitLog, options);
    } else {
      const input = st.rebalance || st.parallelism !== upstream ? stream.rebalance() : stream;
      if (st.kind === 'map') stream = input.map(pick(MAP_MENU, st.fn), options);
      else if (st.kind === 'filter') stream = input.filter(pick(FILTER_MENU, st.fn), options);
      else stream = input.flatMap(pick(FLAT_MAP_MENU, st.fn), options);
    }
    upstream = st.parallelism;
  });
  const toSink = spec.sinkParallelism === upstream ? stream : stream.rebalance();
  toSink.sinkTo(sink, {
    name: 'gen-sink', uid: 'gen-sink', parallelism: spec.sinkParallelism, maxParallelism,
  });
}

function pick<F>(menu: readonly { readonly fn: F }[], index: number): F {
  const entry = menu[index];
  if (entry === undefined) {
    throw new InvalidGeneratedJobError(`generated job: no menu entry ${index}`);
  }
  return entry.fn;
}
