import type { Redis } from 'ioredis';
import type { AppConfig } from '../config.ts';
import { BuildsyncError, coerceError, redactUrl } from '../errors/index.ts';
import { durabilityDecision, readDurabilityFacts, type RedisDurabilityFacts } from '../ledger/durability.ts';
import { connectRedis } from '../redis/connection.ts';
import { redisUser } from '../redis/failures.ts';
import { masterNodes, type RedisConnection } from '../redis/layout.ts';
import { error, ok, type CheckFinding } from './finding.ts';
import { checkClusterPermissions, checkRedisPermissions, durabilityNeeds } from './redis-acl.ts';
import { REDIS_NEEDS } from '../redis/acl.ts';
import { durabilityFindings, durabilityUnread } from './redis-persistence.ts';

/**
 * Redis reachable, credentials accepted, every needed command permitted, and a set-up that keeps
 * the ledger (persistence, eviction). `redis` is the open connection when Redis answered; the
 * caller disconnects it. The connection is the shared opener's `probe` (redis/connection.ts): one
 * attempt, no reconnects, no ready check; a failure is worded by the one Redis describer
 * (redis/failures.ts), as any command would word it.
 */
export async function checkRedis(
  cfg: Pick<AppConfig, 'redisUrl' | 'prefix'> & Partial<Pick<AppConfig, 'redisCluster'>>,
  opts: { allowVolatile: boolean },
): Promise<{ findings: CheckFinding[]; redis?: RedisConnection }> {
  const url = cfg.redisUrl;
  let redis: RedisConnection;
  try {
    redis = await connectRedis(url, 'probe', { cluster: cfg.redisCluster ?? false });
  } catch (err) {
    const e = coerceError(err);
    return { findings: [error('redis', e instanceof BuildsyncError ? e.code : 'BUILDSYNC_REDIS_UNAVAILABLE', e.message)] };
  }

  let facts: RedisDurabilityFacts | undefined;
  let factsError: unknown;
  try {
    facts = await readDurabilityFacts(redis);
  } catch (err) {
    factsError = err;
  }
  const decision = facts ? durabilityDecision(facts, { allowVolatile: opts.allowVolatile }) : undefined;

  const masters = masterNodes(redis);
  const findings: CheckFinding[] = [
    ok(
      'redis',
      `${redactUrl(url)} answers${facts ? ` (Redis ${facts.redisVersion}${redis.isCluster ? `, the weakest of ${masters.length} masters` : ''})` : ''}${redis.isCluster ? `; a Redis Cluster of ${masters.length} masters` : ''}; user ${redisUser(url)} accepted`,
    ),
  ];
  const needs = [...REDIS_NEEDS, ...durabilityNeeds(decision)];
  if (redis.isCluster) findings.push(...(await checkClusterPermissions(redis, { prefix: cfg.prefix, url, needs })));
  else findings.push(...(await checkRedisPermissions(redis as Redis, { prefix: cfg.prefix, url, needs })));
  findings.push(...(facts ? durabilityFindings(facts, decision!) : [durabilityUnread(factsError)]));
  return { findings, redis };
}
