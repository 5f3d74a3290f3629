/**
 * The JSON Schema files the project ships (in schemas/), each emitted from its zod schema with
 * zod's `z.toJSONSchema`, so that editors complete and check RunSpec, repro and scenario files.
 * `npm run schemas` (scripts/emitSchemas.ts) writes them; scripts/schemaFiles.test.ts fails when
 * a checked-in file differs from what its schema emits.
 *
 * To ship another schema, add it to {@link SCHEMA_FILES}.
 */
import { z } from 'zod';
import { reproSchema } from '../properties/explore/Repro.ts';
import { RUN_SPEC_VERSION, runSpecSchema } from '../sim/run/runSpecSchema.ts';
import { scenarioSchema } from '../scenarios/scenarioSchema.ts';

/** One shipped schema file. */
export interface SchemaFile {
  /** Path from the repository root. */
  readonly file: string;
  /** The schema's `$id`: a name, not a URL anything is fetched from. */
  readonly id: string;
  readonly schema: z.ZodType;
}

export const SCHEMA_FILES: readonly SchemaFile[] = [
  { file: 'schemas/runspec.schema.json', id: `urn:checkpoint-sim:runspec:v${RUN_SPEC_VERSION}`, schema: runSpecSchema },
  { file: 'schemas/repro.schema.json', id: `urn:checkpoint-sim:repro:v${RUN_SPEC_VERSION}`, schema: reproSchema },
  { file: 'schemas/scenario.schema.json', id: `urn:checkpoint-sim:scenario:v${RUN_SPEC_VERSION}`, schema: scenarioSchema },
];

/**
 * The text of `entry`'s file: JSON Schema draft-07 (what editors support most widely), every
 * block inline (named definitions come out as __schemaN, which helps no reader), two-space
 * indented, ending in a newline.
 */
export function schemaText(entry: SchemaFile): string {
  const { $schema, ...rest } = z.toJSONSchema(entry.schema, { target: 'draft-07', unrepresentable: 'throw' });
  return `${JSON.stringify({ $schema, $id: entry.id, ...rest }, null, 2)}\n`;
}
