import { inject } from 'vitest';

// Runs before each test file of the `cluster` project (vitest setupFiles), before the file's
// imports read REDIS_URL: every connection of the file, and of the CLI and workers it spawns
// (they inherit the environment), goes to the run's Redis Cluster.
process.env.REDIS_URL = inject('redisClusterUrl');
process.env.REDIS_CLUSTER = '1';
