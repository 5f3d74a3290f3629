#!/usr/bin/env tsx
/**
 * `npm run schemas`: writes every JSON Schema of scripts/schemaFiles.ts into schemas/ (run it
 * after changing a schema; a test fails until the files match).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SCHEMA_FILES, schemaText } from './schemaFiles.ts';

const root = join(import.meta.dirname, '..');
for (const entry of SCHEMA_FILES) {
  const path = join(root, entry.file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, schemaText(entry));
  console.log(`wrote ${entry.file}`);
}
