/**
 * Redis, in one place: the connection (connection.ts), the key layout and what differs on a
 * Redis Cluster (layout.ts), what a failure means and how it is worded (failures.ts), and what a
 * least-privilege user needs (acl.ts).
 */
export { connectRedis, createRedis, redisAnswers, type RedisRole, type RedisTarget } from './connection.ts';
export { describeRedisError, noRedisAnswers, redisErrorLog, redisFailureOf, redisGraceMs, redisUser, type RedisCause, type RedisProblem } from './failures.ts';
export { aclAdvice, REDIS_NEEDS, type RedisNeed } from './acl.ts';
export type { RedisConnection } from './layout.ts';
