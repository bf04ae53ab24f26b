import { expect } from 'vitest';
import { ConfigError } from '../../src/errors/index.ts';

/** The ConfigError `fn` throws (checked to carry BUILDSYNC_CONFIG_INVALID); fails when it throws none. */
export function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).code).toBe('BUILDSYNC_CONFIG_INVALID');
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}
