import type { Redis } from 'ioredis';
import { DEFAULTS, type Env } from '../config.ts';

const ACCOUNT_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
const EMAIL_VAR = /^BUILDSYNC_([A-Za-z][A-Za-z0-9_]*)_EMAIL$/;

/**
 * The accounts whose budgets the dashboard shows: `default`, every NAME with a
 * `BUILDSYNC_<NAME>_EMAIL` (CONTRACT.md §1), and every account that already has a budget in Redis.
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

/** Names under `<prefix>:throttle:<account>:…` (throttle/scripts.ts documents the keys). */
async function accountsInRedis(redis: Redis, prefix: string): Promise<string[]> {
  const head = `${prefix}:throttle:`;
  const found = new Set<string>();
  const stream = redis.scanStream({ match: `${escapeGlob(head)}*`, count: 1000 });
  for await (const keys of stream as AsyncIterable<string[]>) {
    for (const key of keys) {
      const name = key.slice(head.length).split(':')[0] ?? '';
      if (ACCOUNT_NAME.test(name)) found.add(name);
    }
  }
  return [...found];
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
