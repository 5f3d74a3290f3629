/**
 * jobSchema: the RunSpec's `job` (which job runs) as a zod schema. The schema checks each job's
 * own fields and bounds; what needs two fields (`selection.to` at least `selection.from`) or the
 * generated job's shape rules (validateGeneratedJobSpec: at most 16 splits, 6 stages, 2 keyed
 * ones, menu indices, parallelisms) is checked after parsing, in validateRunSpec.
 */
import { z } from 'zod';
import { FLIGHTS_FILE_SIZE } from '../../workloads/flights.ts';
import { GENERATED_JOB_LIMITS } from '../../workloads/generatedJob.ts';
import { WORDCOUNT_TEXT } from '../../workloads/wordcount.ts';
import { intField } from './specFields.ts';

const splits = (what: string): z.ZodNumber => intField(1, 10_000)
  .meta({ description: `How many splits ${what} is cut into (1..10000).` });

const flightsJob = z.strictObject({
  kind: z.literal('flights'),
  selection: z.strictObject({
    from: intField(0, FLIGHTS_FILE_SIZE).meta({ description: 'First record (index into flights-20k.json).' }),
    to: intField(0, FLIGHTS_FILE_SIZE).meta({ description: 'End of the records, exclusive; at least `from`.' }),
  }).meta({ description: `The records from..to (exclusive) of the flights data, 0..${FLIGHTS_FILE_SIZE}.` }),
  splits: splits('the selection (default 16)').exactOptional(),
}).meta({
  title: 'flights job',
  description: 'The real flights data keyed by origin airport, through a two-phase-commit sink. '
    + 'Operators flights-source, airport-stats, flights-sink.',
});

const wordcountJob = z.strictObject({
  kind: z.literal('wordcount'),
  lines: intField(1, WORDCOUNT_TEXT.length)
    .meta({ description: `The first lines of the built-in text (1..${WORDCOUNT_TEXT.length}, default all).` })
    .exactOptional(),
  splits: splits('the text (default 4)').exactOptional(),
}).meta({
  title: 'wordcount job',
  description: 'The built-in text. Operators wordcount-source, wordcount-tokenize, wordcount-count, wordcount-sink.',
});

const L = GENERATED_JOB_LIMITS;
const stageParallelism = intField(1).meta({ description: `Parallelism (1..${L.maxParallelism}).` });
const menuIndex = (menu: string): z.ZodNumber => intField(0).meta({ description: `Index into the ${menu} menu.` });

const statelessStage = <K extends 'map' | 'filter' | 'flatMap'>(kind: K) => z.strictObject({
  kind: z.literal(kind),
  fn: menuIndex(`${kind} function`),
  parallelism: stageParallelism,
  rebalance: z.boolean().meta({ description: 'Feed the stage over a rebalance edge even at equal parallelism.' }),
});

/** A generated job shape (sim/workloads/generatedJob.ts); its limits are checked after parsing. */
export const generatedJobSpecSchema = z.strictObject({
  records: z.array(z.array(intField(-L.maxAbsValue, L.maxAbsValue)))
    .meta({ description: `Integer records per split (1..${L.maxSplits} splits of at most ${L.maxRecordsPerSplit}).` }),
  stages: z.array(z.discriminatedUnion('kind', [
    statelessStage('map'), statelessStage('filter'), statelessStage('flatMap'),
    z.strictObject({
      kind: z.literal('keyed'),
      key: menuIndex('key selector'),
      fn: menuIndex('keyed function'),
      parallelism: stageParallelism,
    }),
    z.strictObject({
      kind: z.literal('splitLog'),
      parallelism: stageParallelism,
      rebalance: z.boolean().meta({ description: 'Feed the stage over a rebalance edge even at equal parallelism.' }),
    }).meta({ description: 'Forwards every record; keeps list state of the split ids each subtask saw.' }),
    z.strictObject({
      kind: z.literal('splitOwners'),
      parallelism: stageParallelism,
    }).meta({
      description: 'Forwards every record (always fed over a rebalance edge); keeps union state of the split ids '
        + 'each subtask owns (owner % parallelism === subtask index).',
    }),
  ])).meta({
    description: `Stages between source and sink (at most ${L.maxStages}, at most ${L.maxKeyedStages} keyed, `
      + `${L.maxFlatMapStages} flatMap, ${L.maxSplitLogStages} splitLog, ${L.maxSplitOwnersStages} splitOwners).`,
  }),
  sourceParallelism: stageParallelism,
  sinkParallelism: stageParallelism,
  maxParallelism: intField(1, L.maxMaxParallelism).meta({ description: 'Max parallelism of every operator.' }),
});

/**
 * A user's job module: a TypeScript or JavaScript file exporting a JobDefinition (docs/jobs.md).
 * `path` is relative to the file that names it (a spec, repro or scenario file), or to the
 * working directory for a spec given in code; `export` names the export (default: the default
 * export, or the module's only JobDefinition); `size` is the input's size (a generator's
 * argument, or the first `size` records of fixed splits).
 */
const moduleJob = z.strictObject({
  kind: z.literal('module'),
  path: z.string().min(1).meta({ description: 'The module file, relative to the file that names it (.ts, .mts, .js or .mjs).' }),
  export: z.string().min(1).meta({ description: 'The export holding the JobDefinition (default: the default export, or the only one).' })
    .exactOptional(),
  size: intField(0, 10_000_000).meta({ description: 'Input size: the generator\'s argument, or the first size records of fixed splits (default: all, or the generator\'s default).' })
    .exactOptional(),
}).meta({
  title: 'job module',
  description: 'A job module of your own: a file exporting a JobDefinition built with the job API.',
});

/** Which job runs: flights, wordcount, a generated shape or a job module. */
export const jobSpecSchema = z.discriminatedUnion('kind', [
  flightsJob,
  wordcountJob,
  z.strictObject({ kind: z.literal('generated'), spec: generatedJobSpecSchema }).meta({
    title: 'generated job',
    description: 'A generated job shape with inline records. Operators gen-source, gen-<i>-<kind>-<name> '
      + '(gen-<i>-splitLog, gen-<i>-splitOwners), gen-sink.',
  }),
  moduleJob,
]).meta({ description: 'Which job runs.' });
