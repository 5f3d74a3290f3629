/**
 * UsageError: bad usage or bad input found by the command line (a flag, a file). The CLI prints
 * it as one line with exit code 2 (program.ts reportError). It lives in a file of its own so that
 * the small helpers the library functions of cli/library/ share with the commands (outDir.ts,
 * jobModuleFiles.ts) do not import the whole program; the library turns it into a SimInputError.
 */

/** Thrown for bad usage or bad input; printed as one line, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
