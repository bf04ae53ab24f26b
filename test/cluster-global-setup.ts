import type { TestProject } from 'vitest/node';
import { startRedisCluster } from './helpers/redis-cluster.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `redis://127.0.0.1:P` of a node of the run's Redis Cluster (three masters, no replicas). */
    redisClusterUrl: string;
  }
}

/**
 * The `cluster` vitest project's Redis: a real three-master Redis Cluster on free loopback ports,
 * started once per run and stopped (by PID) at its end. test/cluster-env.ts points REDIS_URL at it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startRedisCluster({ replicas: 0 });
  project.provide('redisClusterUrl', cluster.url);
  return () => cluster.close();
}
