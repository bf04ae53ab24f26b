import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Integration tests hold real sockets and Redis connections; two cores, so keep workers few.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    // CI's Redis keeps nothing on disk; the suite sends records anyway (CONTRACT.md §2,
    // Durability). The tests of the refusal unset it for their own runs.
    env: { BUILDSYNC_ALLOW_VOLATILE_REDIS: '1' },
    hookTimeout: 30_000,
  },
});
