/**
 * The account's vendor list in a bill import (README, "Vendor lists"): read from Redis and handed
 * to the plan, where `--vendors` wins for the names it holds. The CLI's import and the page's
 * check read it from the Redis they already use; a dry run, which needs no Redis, reads it when
 * Redis answers and otherwise leaves vendor names unresolved and says so once.
 */
import { UnresolvedVendors } from '../mapping/index.ts';
import type { PlanOptions } from '../import/index.ts';
import { connectRedis } from '../redis/index.ts';
import type { RedisConnection as Redis } from '../redis/layout.ts';
import { VendorStore } from '../vendors/vendor-store.ts';

/** `opts` with the account's vendor list, for a bill import whose account has one. */
export async function withAccountVendors(kind: 'estimates' | 'bills', opts: PlanOptions, redis: Redis, prefix: string, account: string): Promise<PlanOptions> {
  if (kind !== 'bills') return opts;
  const entries = await new VendorStore(redis, prefix).list(account);
  // An empty list reads no names: a vendor column without --vendors stays the missing-column stop that says how to give them.
  return entries.length === 0 ? opts : { ...opts, accountVendors: { account, entries } };
}

/** A dry run's plan options with the account's vendor list, and what stayed unresolved when Redis did not answer. */
export interface DryRunVendors {
  opts: PlanOptions;
  /** Set when the list could not be read: counts the vendor names the plan left unresolved. */
  unresolved?: UnresolvedVendors;
  /** Why the list could not be read. */
  reason?: string;
}

/** The dry run's form of `withAccountVendors`: one short attempt at Redis (`probe`), never a failure. */
export async function dryRunVendors(kind: 'estimates' | 'bills', opts: PlanOptions, where: { redisUrl: string; prefix: string; account: string }): Promise<DryRunVendors> {
  if (kind !== 'bills') return { opts };
  let redis: Redis | undefined;
  try {
    redis = await connectRedis(where.redisUrl, 'probe');
    return { opts: await withAccountVendors(kind, opts, redis, where.prefix, where.account) };
  } catch (err) {
    const unresolved = new UnresolvedVendors();
    // The first sentence says what happened; the rest is advice for commands that need Redis.
    const reason = (err as Error).message.replace(/^buildsync: /, '').split(/\.\s/)[0]!.replace(/\.$/, '');
    return { opts: { ...opts, accountVendors: unresolved }, unresolved, reason };
  } finally {
    if (redis !== undefined) await redis.quit().catch(() => redis!.disconnect());
  }
}
