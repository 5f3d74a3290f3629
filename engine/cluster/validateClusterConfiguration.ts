/**
 * validateClusterConfiguration: checks a whole {@link ClusterConfiguration} before a cluster
 * boots, so that a bad value is one clear line instead of a hang or an assertion deep inside a
 * run. Times are integer virtual microseconds, counts are integers; only a restart strategy's
 * `attempts` may be infinite (unlimited). Messages never print a non-finite number.
 *
 * @see org.apache.flink.configuration.ConfigOption validation,
 *      org.apache.flink.runtime.heartbeat.HeartbeatServices (timeout above interval),
 *      org.apache.flink.runtime.executiongraph.failover.RestartBackoffTimeStrategyFactoryLoader
 */
import type { ClusterConfiguration, RestartStrategy } from './ClusterConfiguration.ts';
import { InvalidConfigurationError } from './InvalidConfigurationError.ts';

/** Every field of a ClusterConfiguration, in declaration order. */
const FIELDS: readonly (keyof ClusterConfiguration)[] = [
  'slotsPerTaskManager', 'rpcTimeoutUs', 'heartbeatIntervalUs', 'heartbeatTimeoutUs',
  'recordsPerBuffer', 'bufferTimeoutUs', 'exclusiveBuffersPerChannel',
  'floatingBuffersPerPartition', 'recordSizeBytes', 'restartStrategy', 'registrationRetryUs',
  'traceKeyedInputs',
  'jobManagerIoPoolSize',
];

/**
 * Checks `config` completely: every field present, integers where counts and times are meant,
 * `heartbeatTimeoutUs` above `heartbeatIntervalUs`, a restart strategy of a known kind with
 * well-formed fields, and no unknown keys (a misspelt override would otherwise be ignored).
 * @throws InvalidConfigurationError with a one-line message naming the first bad field.
 */
export function validateClusterConfiguration(config: ClusterConfiguration): void {
  if (config === null || typeof config !== 'object') {
    throw new InvalidConfigurationError('configuration',
      `must be an object, got ${describe(config)}`);
  }
  for (const key of Object.keys(config)) {
    if (!(FIELDS as readonly string[]).includes(key)) {
      throw new InvalidConfigurationError(key,
        `is not a configuration field (known: ${FIELDS.join(', ')})`);
    }
  }
  requireInteger(config.slotsPerTaskManager, 'slotsPerTaskManager', 1);
  requireInteger(config.rpcTimeoutUs, 'rpcTimeoutUs', 1, 'µs');
  requireInteger(config.heartbeatIntervalUs, 'heartbeatIntervalUs', 1, 'µs');
  requireInteger(config.heartbeatTimeoutUs, 'heartbeatTimeoutUs', 1, 'µs');
  if (config.heartbeatTimeoutUs <= config.heartbeatIntervalUs) {
    throw new InvalidConfigurationError('heartbeatTimeoutUs',
      `must be above heartbeatIntervalUs (${config.heartbeatIntervalUs} µs), `
      + `got ${config.heartbeatTimeoutUs} µs`);
  }
  requireInteger(config.recordsPerBuffer, 'recordsPerBuffer', 1);
  requireInteger(config.bufferTimeoutUs, 'bufferTimeoutUs', 0, 'µs');
  requireInteger(config.exclusiveBuffersPerChannel, 'exclusiveBuffersPerChannel', 1);
  requireInteger(config.floatingBuffersPerPartition, 'floatingBuffersPerPartition', 0);
  requireInteger(config.recordSizeBytes, 'recordSizeBytes', 1, 'bytes');
  requireInteger(config.registrationRetryUs, 'registrationRetryUs', 1, 'µs');
  if (typeof config.traceKeyedInputs !== 'boolean') {
    throw new InvalidConfigurationError('traceKeyedInputs', `must be a boolean, got ${describe(config.traceKeyedInputs)}`);
  }
  requireInteger(config.jobManagerIoPoolSize, 'jobManagerIoPoolSize', 1);
  validateRestartStrategy(config.restartStrategy);
}

function validateRestartStrategy(s: RestartStrategy): void {
  const kinds = "'none', 'fixed-delay' or 'exponential-delay'";
  if (s === null || typeof s !== 'object') {
    throw new InvalidConfigurationError('restartStrategy',
      `must be an object with kind ${kinds}, got ${describe(s)}`);
  }
  switch (s.kind) {
    case 'none':
      return;
    case 'fixed-delay':
      requireAttempts(s.attempts);
      requireInteger(s.delayUs, 'restartStrategy.delayUs', 0, 'µs');
      return;
    case 'exponential-delay':
      requireAttempts(s.attempts);
      requireInteger(s.initialDelayUs, 'restartStrategy.initialDelayUs', 1, 'µs');
      requireInteger(s.maxDelayUs, 'restartStrategy.maxDelayUs', s.initialDelayUs, 'µs');
      if (typeof s.multiplier !== 'number' || !Number.isFinite(s.multiplier) || s.multiplier < 1) {
        throw new InvalidConfigurationError('restartStrategy.multiplier',
          `must be a finite number >= 1, got ${describe(s.multiplier)}`);
      }
      return;
    default:
      throw new InvalidConfigurationError('restartStrategy.kind',
        `must be ${kinds}, got ${describe((s as { kind: unknown }).kind)}`);
  }
}

/** `attempts`: a non-negative integer, or positive infinity for unlimited restarts. */
function requireAttempts(attempts: number): void {
  if (attempts === Number.POSITIVE_INFINITY) return;
  if (typeof attempts !== 'number' || !Number.isSafeInteger(attempts) || attempts < 0) {
    throw new InvalidConfigurationError('restartStrategy.attempts',
      `must be a non-negative integer (or unlimited), got ${describe(attempts)}`);
  }
}

function requireInteger(value: number, field: string, min: number, unit?: string): void {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min) return;
  const bound = min === 0 ? 'a non-negative integer'
    : min === 1 ? 'a positive integer' : `an integer >= ${min}`;
  const units = unit === undefined ? '' : ` (${unit})`;
  throw new InvalidConfigurationError(field, `must be ${bound}${units}, got ${describe(value)}`);
}

/** A short description of a bad value that never prints a non-finite number. */
function describe(v: unknown): string {
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'a non-finite number';
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}
