import { describe, expect, test } from 'vitest';
import {
  DEFAULT_CLUSTER_CONFIGURATION, InvalidConfigurationError, validateClusterConfiguration,
  type ClusterConfiguration,
} from './ClusterConfiguration.ts';

/** The message for `overrides` on the defaults, or undefined if they are valid. */
function problem(overrides: Record<string, unknown>): string | undefined {
  const config = { ...DEFAULT_CLUSTER_CONFIGURATION, ...overrides } as ClusterConfiguration;
  try {
    validateClusterConfiguration(config);
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidConfigurationError);
    const message = (e as Error).message;
    expect(message).not.toMatch(/\n|Infinity|NaN/);
    return message;
  }
}

describe('validateClusterConfiguration', () => {
  test('accepts the defaults and other sane values', () => {
    expect(problem({})).toBeUndefined();
    expect(problem({ bufferTimeoutUs: 0, floatingBuffersPerPartition: 0, restartStrategy: { kind: 'none' } }))
      .toBeUndefined();
    expect(problem({ restartStrategy: { kind: 'fixed-delay', attempts: 0, delayUs: 0 } })).toBeUndefined();
    expect(problem({
      restartStrategy: {
        kind: 'exponential-delay', initialDelayUs: 1_000, maxDelayUs: 1_000, multiplier: 1,
        attempts: Number.POSITIVE_INFINITY,
      },
    })).toBeUndefined();
  });

  test.each([
    [{ slotsPerTaskManager: 0 }, 'slotsPerTaskManager must be a positive integer, got 0'],
    [{ slotsPerTaskManager: 1.5 }, 'slotsPerTaskManager must be a positive integer, got 1.5'],
    [{ rpcTimeoutUs: 0 }, 'rpcTimeoutUs must be a positive integer (µs), got 0'],
    [{ rpcTimeoutUs: Number.NaN }, 'rpcTimeoutUs must be a positive integer (µs), got a non-finite number'],
    [{ heartbeatIntervalUs: -1 }, 'heartbeatIntervalUs must be a positive integer (µs), got -1'],
    [{ heartbeatTimeoutUs: Number.POSITIVE_INFINITY },
      'heartbeatTimeoutUs must be a positive integer (µs), got a non-finite number'],
    [{ heartbeatTimeoutUs: 5_000 }, 'heartbeatTimeoutUs must be above heartbeatIntervalUs (5000 µs), got 5000 µs'],
    [{ recordsPerBuffer: 0 }, 'recordsPerBuffer must be a positive integer, got 0'],
    [{ bufferTimeoutUs: -1 }, 'bufferTimeoutUs must be a non-negative integer (µs), got -1'],
    [{ exclusiveBuffersPerChannel: 0 }, 'exclusiveBuffersPerChannel must be a positive integer, got 0'],
    [{ floatingBuffersPerPartition: -1 }, 'floatingBuffersPerPartition must be a non-negative integer, got -1'],
    [{ recordSizeBytes: 0 }, 'recordSizeBytes must be a positive integer (bytes), got 0'],
    [{ registrationRetryUs: 0 }, 'registrationRetryUs must be a positive integer (µs), got 0'],
    [{ registrationRetryUs: '5' }, 'registrationRetryUs must be a positive integer (µs), got "5"'],
    [{ rpcTimeoutUs: undefined }, 'rpcTimeoutUs must be a positive integer (µs), got nothing'],
    [{ traceKeyedInputs: 'yes' }, 'traceKeyedInputs must be a boolean, got "yes"'],
    [{ heartbeatIntervalMs: 5 }, 'heartbeatIntervalMs is not a configuration field'],
    [{ restartStrategy: 'none' }, 'restartStrategy must be an object with kind'],
    [{ restartStrategy: { kind: 'sometimes' } }, `restartStrategy.kind must be 'none', 'fixed-delay' or`],
    [{ restartStrategy: { kind: 'fixed-delay', attempts: -1, delayUs: 0 } },
      'restartStrategy.attempts must be a non-negative integer (or unlimited), got -1'],
    [{ restartStrategy: { kind: 'fixed-delay', attempts: Number.NEGATIVE_INFINITY, delayUs: 0 } },
      'restartStrategy.attempts must be a non-negative integer (or unlimited), got a non-finite number'],
    [{ restartStrategy: { kind: 'fixed-delay', attempts: 3 } },
      'restartStrategy.delayUs must be a non-negative integer (µs), got nothing'],
    [{ restartStrategy: { kind: 'exponential-delay', attempts: 3, initialDelayUs: 0, maxDelayUs: 10, multiplier: 2 } },
      'restartStrategy.initialDelayUs must be a positive integer (µs), got 0'],
    [{ restartStrategy: { kind: 'exponential-delay', attempts: 3, initialDelayUs: 10, maxDelayUs: 5, multiplier: 2 } },
      'restartStrategy.maxDelayUs must be an integer >= 10 (µs), got 5'],
    [{ restartStrategy: { kind: 'exponential-delay', attempts: 3, initialDelayUs: 10, maxDelayUs: 50, multiplier: 0.5 } },
      'restartStrategy.multiplier must be a finite number >= 1, got 0.5'],
  ])('rejects %o with one line', (overrides, expected) => {
    expect(problem(overrides)).toContain(expected);
  });

  test('the error names its field and reason', () => {
    const e = new InvalidConfigurationError('rpcTimeoutUs', 'must be positive');
    expect(e.field).toBe('rpcTimeoutUs');
    expect(e.message).toBe('rpcTimeoutUs must be positive');
    expect(e.name).toBe('InvalidConfigurationError');
    expect(() => validateClusterConfiguration(null as unknown as ClusterConfiguration))
      .toThrow('configuration must be an object, got null');
  });
});
