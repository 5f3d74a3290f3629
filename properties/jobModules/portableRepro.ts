/**
 * portableRepro: a repro as it is written to a file. A job module's path becomes relative to the
 * file's directory (so the repro and the module can move together, and the repro replays from
 * any working directory), and the module's content hash is recorded (`jobModule.hash`), so that
 * replaying it after the module changed is refused (cli/jobModuleFiles.ts).
 */
import { writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { absoluteModulePath, findJobModule } from '../../sim/jobs/jobModuleRegistry.ts';
import type { Repro } from '../explore/Repro.ts';

/** `repro` ready to write into directory `fileDir`; unchanged unless its job is a module. */
export function portableRepro(repro: Repro, fileDir: string): Repro {
  const job = repro.spec.job;
  if (job.kind !== 'module') return repro;
  const module = findJobModule(job.path, job.export);
  const rel = relative(fileDir, absoluteModulePath(job.path)).split(sep).join('/');
  const path = isAbsolute(rel) || rel.startsWith('../') ? rel : `./${rel}`;
  const { spec, ...rest } = repro;
  return {
    ...rest,
    ...(module === undefined ? {} : { jobModule: { hash: module.hash } }),
    spec: { ...spec, job: { ...job, path } },
  };
}

/** Writes `repro` to the file `path` (pretty JSON), made portable for the file's directory. */
export function writePortableRepro(path: string, repro: Repro): void {
  writeFileSync(path, `${JSON.stringify(portableRepro(repro, dirname(resolve(path))), null, 2)}\n`);
}
