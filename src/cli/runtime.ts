import type { RedisConnection as Redis } from '../redis/layout.ts';
import { loadConfig, requireService, type AppConfig, type ServiceAccount } from '../config.ts';
// The queue (BullMQ) is loaded by the commands that open it, not by every command that reads its configuration.
import type { Queues, WorkerHost } from '../queue/index.ts';
import { connectRedis } from '../redis/index.ts';
import { redisGraceMs } from '../redis/failures.ts';
import { redactUrl } from '../errors/index.ts';
import { knob } from '../knobs.ts';
import type { CommandContext } from './command.ts';

/** The configuration for the command's --account. */
export function configFor(ctx: CommandContext): AppConfig {
  return loadConfig({ account: ctx.global.account });
}

export function serviceAccount(ctx: CommandContext, cfg: AppConfig): ServiceAccount {
  return requireService(cfg.account, { allowInsecureHttp: ctx.global.allowInsecureHttp });
}

/** BUILDSYNC_TIME_SCALE, the test knob of knobs.ts: divides the tool's rate windows. */
export function timeScale(): number | undefined {
  return knob('BUILDSYNC_TIME_SCALE');
}

/** BUILDSYNC_LOCK_MS, the test knob of knobs.ts: a worker's BullMQ lock. */
export function lockMs(): number | undefined {
  return knob('BUILDSYNC_LOCK_MS');
}

/** BUILDSYNC_EXPORT_MAX_STARTS, the test knob of knobs.ts: how often an export job may start. */
export function exportMaxStarts(): number | undefined {
  return knob('BUILDSYNC_EXPORT_MAX_STARTS');
}

/** BUILDSYNC_LEDGER_LEASE_MS, the test knob of knobs.ts: how long a record's claim outlives its dead sender. */
export function leaseMs(): number | undefined {
  return knob('BUILDSYNC_LEDGER_LEASE_MS');
}

/** `fn` with a producer's connection to Redis (no queues), closed after it. */
export async function withRedis<T>(url: string, fn: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = await connectRedis(url, 'producer');
  try {
    return await fn(redis);
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}

/** A producer's Redis and queues; close them with `close()`. */
export async function openQueues(cfg: AppConfig, ctx?: CommandContext): Promise<{ redis: Redis; queues: Queues; close: () => Promise<void> }> {
  const redis = await connectRedis(cfg.redisUrl, 'producer');
  let closing = false;
  if (ctx) {
    // A command following a job rides out a Redis blip, and says so (once per outage).
    let away = false;
    redis.on('close', () => {
      if (away || closing || ctx.signal.aborted) return;
      away = true;
      ctx.err(`Redis at ${redactUrl(cfg.redisUrl)} went away; waiting up to ${Math.round(redisGraceMs() / 1000)} s for it to come back`);
    });
    redis.on('ready', () => {
      if (!away) return;
      away = false;
      ctx.err('Redis is back; carrying on');
    });
  }
  const { Queues } = await import('../queue/index.ts');
  const queues = new Queues(redis, cfg.prefix);
  return {
    redis,
    queues,
    // Bounded: with Redis away, a clean close would wait for it (the offline queue), and a
    // command told to stop must end within seconds (README, Commands; issue "calm and precise").
    close: async () => {
      closing = true;
      const clean = (async () => {
        await queues.close().catch(() => {});
        await redis.quit().catch(() => {});
      })();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([clean, new Promise((r) => (timer = setTimeout(r, 1500)))]);
      clearTimeout(timer);
      redis.disconnect();
    },
  };
}

/**
 * Starts a worker inside this process when no worker is listening on the queues, so that a
 * command run alone still gets its job done (README, Commands). Returns undefined when workers run.
 */
export async function ensureWorker(ctx: CommandContext, cfg: AppConfig, queues: Queues): Promise<WorkerHost | undefined> {
  const counts = await Promise.all(queues.all().map((q) => q.getWorkersCount()));
  if (counts.every((n) => n > 0)) return undefined;
  ctx.err('no worker is running; running one in this process until the job is done');
  const { startWorkers } = await import('../queue/index.ts');
  return startWorkers({
    redisUrl: cfg.redisUrl,
    prefix: cfg.prefix,
    concurrency: cfg.concurrency,
    timeScale: timeScale(),
    lockMs: lockMs(),
    leaseMs: leaseMs(),
    exportMaxStarts: exportMaxStarts(),
    allowInsecureHttp: ctx.global.allowInsecureHttp,
    inCommand: true,
  });
}
