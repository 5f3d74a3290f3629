/**
 * InvalidJobError: an impossible job definition (bad parallelism, a cycle, no sink, duplicate
 * split ids, a bad split count). Its message is one line; the CLI maps it to exit code 2.
 *
 * @see org.apache.flink.api.common.InvalidProgramException
 */
export class InvalidJobError extends Error {
  override readonly name = 'InvalidJobError';
}
