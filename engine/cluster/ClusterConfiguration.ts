/**
 * Cluster-wide settings in virtual microseconds: the simulated cluster's timing and cost model.
 * {@link validateClusterConfiguration} checks a configuration before a cluster boots. The
 * defaults are scaled to the simulated world (milliseconds, not Flink's production seconds) so
 * that a lost TaskManager is noticed within tens of milliseconds and the flights job at
 * parallelism 4 spans about 2 virtual seconds.
 *
 * @see org.apache.flink.configuration.{HeartbeatManagerOptions, RestartStrategyOptions,
 *      NettyShuffleEnvironmentOptions, ExecutionOptions}
 */

export { InvalidConfigurationError } from './InvalidConfigurationError.ts';
export { validateClusterConfiguration } from './validateClusterConfiguration.ts';

/** Flink's restart strategies. Delays in µs. */
export type RestartStrategy =
  | { readonly kind: 'none' }
  | { readonly kind: 'fixed-delay'; readonly attempts: number; readonly delayUs: number }
  | {
      readonly kind: 'exponential-delay';
      readonly initialDelayUs: number;
      readonly maxDelayUs: number;
      readonly multiplier: number;
      /** Attempts before giving up; Infinity for unlimited. */
      readonly attempts: number;
    };

export interface ClusterConfiguration {
  readonly slotsPerTaskManager: number;
  /** Timeout of RPCs that expect an answer (Flink's akka.ask.timeout), µs. */
  readonly rpcTimeoutUs: number;
  readonly heartbeatIntervalUs: number;
  readonly heartbeatTimeoutUs: number;
  /** Records per network buffer before it is flushed. */
  readonly recordsPerBuffer: number;
  /** Output flusher interval (execution.buffer-timeout), µs; 0 flushes every record. */
  readonly bufferTimeoutUs: number;
  /** Exclusive buffers (credit) per input channel. */
  readonly exclusiveBuffersPerChannel: number;
  /** Buffers in a result partition's pool beyond one per subpartition. */
  readonly floatingBuffersPerPartition: number;
  /** Bytes per record, for sizes in traces and statistics. */
  readonly recordSizeBytes: number;
  readonly restartStrategy: RestartStrategy;
  /** Delay before a TaskExecutor retries its registration at the ResourceManager, µs. */
  readonly registrationRetryUs: number;
  /**
   * Keyed operators trace, at each snapshot, which records they processed since the previous one
   * (KeyedInputLog.ts): the at-least-once oracle's evidence of what a restore read again. Not a
   * Flink setting; off by default, as it adds about one record identity per keyed record to the
   * trace.
   */
  readonly traceKeyedInputs: boolean;
  /**
   * Threads of the JobMaster's ioExecutor (Flink's `cluster.io-pool.size`): acks, declines,
   * discards and checkpoint storage work run there, each submitted on its own.
   */
  readonly jobManagerIoPoolSize: number;
}

/** The defaults (see the file comment). */
export const DEFAULT_CLUSTER_CONFIGURATION: ClusterConfiguration = {
  slotsPerTaskManager: 2,
  rpcTimeoutUs: 20_000,
  heartbeatIntervalUs: 5_000,
  heartbeatTimeoutUs: 25_000,
  recordsPerBuffer: 32,
  bufferTimeoutUs: 2_000,
  exclusiveBuffersPerChannel: 2,
  floatingBuffersPerPartition: 8,
  recordSizeBytes: 64,
  restartStrategy: { kind: 'fixed-delay', attempts: Number.POSITIVE_INFINITY, delayUs: 10_000 },
  registrationRetryUs: 5_000,
  traceKeyedInputs: false,
  jobManagerIoPoolSize: 4,
};
