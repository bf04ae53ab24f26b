/**
 * Redis, in one place: the connection (connection.ts), the key layout and what differs on a
 * Redis Cluster (layout.ts), what a failure means and how it is worded (failures.ts), and what a
 * least-privilege user needs (acl.ts).
 */
import type { RedisConnection } from './layout.ts';
import type { RedisRole, RedisTarget } from './connection.ts';

export type { RedisRole, RedisTarget } from './connection.ts';
export { describeRedisError, noRedisAnswers, redisErrorLog, redisFailureOf, redisGraceMs, redisUser, type RedisCause, type RedisProblem } from './failures.ts';
export { aclAdvice, REDIS_NEEDS, type RedisNeed } from './acl.ts';
export type { RedisConnection } from './layout.ts';

/*
 * The connection module (ioredis, and pino for its error log) is loaded on the first connection,
 * not with this index: every command's modules reach it, and an estimate's dry run, which never
 * connects, would load ioredis for nothing (about 0.1 s of CPU per start). `createRedis`, which
 * returns its connection at once, is imported from `connection.ts` by the worker that uses it.
 */

/** `connection.ts` `connectRedis`: connects and pings, or throws RedisUnavailableError saying what is wrong. */
export async function connectRedis(url: string, role: RedisRole, target: RedisTarget = {}): Promise<RedisConnection> {
  return (await import('./connection.ts')).connectRedis(url, role, target);
}

/** `connection.ts` `redisAnswers`: true when a Redis answers at url within a short time. */
export async function redisAnswers(url: string, target: RedisTarget = {}): Promise<boolean> {
  return (await import('./connection.ts')).redisAnswers(url, target);
}

/**
 * The server refused the command (ioredis' `ReplyError`, `connection.ts` `isReplyError`). Loaded
 * with the connection module, not by `import('ioredis')`: in the CLI bundle a dynamic import of
 * ioredis (CommonJS) gives its default export alone. Whoever asks holds a connection, so the
 * module is loaded by then and the import is free.
 */
export async function isReplyError(err: unknown): Promise<boolean> {
  return (await import('./connection.ts')).isReplyError(err);
}
