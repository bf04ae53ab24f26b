import { scanAll, type RedisConnection as Redis } from '../redis/layout.ts';
import { DEFAULTS, type Env } from '../config.ts';

const ACCOUNT_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
const EMAIL_VAR = /^BUILDSYNC_([A-Za-z][A-Za-z0-9_]*)_EMAIL$/;

/**
 * The accounts whose budgets the dashboard shows: `default`, every NAME with a
 * `BUILDSYNC_<NAME>_EMAIL` (README, Configuration), and every account that already has a budget in Redis.
 * Redis is asked too because a budget's keys carry the name as the user typed it in `--account`
 * (`acme`), while the variable only has it upper-cased (`ACME`); a name found in Redis wins.
 */
export async function listAccounts(env: Env, redis: Redis, prefix: string): Promise<string[]> {
  const fromEnv = Object.keys(env).flatMap((key) => {
    const m = EMAIL_VAR.exec(key);
    return m && env[key] ? [m[1]!.toLowerCase()] : [];
  });
  const fromRedis = await accountsInRedis(redis, prefix);
  const byLower = new Map<string, string>();
  for (const name of [DEFAULTS.account, ...fromEnv]) byLower.set(name.toLowerCase(), name);
  for (const name of fromRedis) byLower.set(name.toLowerCase(), name);
  const names = [...byLower.values()];
  // `default` first, then by name: the page reads the same on every refresh.
  return [DEFAULTS.account, ...names.filter((n) => n !== DEFAULTS.account).sort()];
}

/**
 * Names under `<prefix>:throttle:<account>:…`, or `<prefix>:{<account>}:throttle:…` on a Redis
 * Cluster (src/redis/layout.ts), on every master: SCAN on a cluster node sees only that node's keys.
 */
async function accountsInRedis(redis: Redis, prefix: string): Promise<string[]> {
  const head = redis.isCluster ? `${prefix}:{` : `${prefix}:throttle:`;
  const match = redis.isCluster ? `${escapeGlob(head)}*}:throttle:*` : `${escapeGlob(head)}*`;
  const found = new Set<string>();
  for await (const keys of scanAll(redis, match)) {
    for (const key of keys) {
      const rest = key.slice(head.length);
      const name = (redis.isCluster ? rest.split('}')[0] : rest.split(':')[0]) ?? '';
      if (ACCOUNT_NAME.test(name)) found.add(name);
    }
  }
  return [...found];
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
