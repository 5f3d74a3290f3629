/**
 * InvalidConfigurationError: a {@link ClusterConfiguration} that no cluster can run with (a
 * non-positive timeout, a heartbeat timeout not above its interval, a malformed restart
 * strategy). Its message is one line that starts with the offending field. The engine throws
 * it before anything boots; the sim converts it to its own input error and the CLI to exit 2.
 *
 * @see org.apache.flink.configuration.IllegalConfigurationException
 */
export class InvalidConfigurationError extends Error {
  override readonly name = 'InvalidConfigurationError';

  /**
   * @param field the configuration field, e.g. `heartbeatTimeoutUs` or `restartStrategy.delayUs`.
   * @param reason what is wrong, e.g. `must be a positive integer (µs), got 0`.
   */
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field} ${reason}`);
  }
}
