/**
 * The `--to postgres` side of the export benches (bench/export.ts, bench/export-postgres.ts):
 * a schema and a Redis prefix of the bench's own, and the role a child process runs.
 *
 * PostgreSQL: BENCH_PG_URL, or postgres@127.0.0.1:5432/test; the bench works in a schema of its
 * own (dropped at the end). Redis: REDIS_URL, under a prefix of its own (removed at the end).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';

/** What a `pg` child needs: the sandbox's address and credentials, the database and the Redis of the change state. */
export interface PgTarget {
  url: string;
  email: string;
  password: string;
  apiKey: string;
  /** The sandbox's Accept-Encoding (bench/export.ts --encoding). @defaultValue 'identity' */
  encoding?: string;
  pgUrl: string;
  redisUrl: string;
  prefix: string;
}

export interface PgMeasured {
  seconds: number;
  /** User + system CPU seconds of the child (the machine is shared: wall time alone misleads). */
  cpu_s: number;
  peak_rss_mb: number;
  projects: number;
  inserted?: number;
  updated?: number;
  removed?: number;
}

/** The process's peak RSS so far, in MB. */
export const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);
/** User + system CPU seconds of the process so far. */
export const cpuSeconds = () => {
  const u = process.cpuUsage();
  return Number(((u.user + u.system) / 1e6).toFixed(2));
};

/** The listing every export bench reads: v2, client and sub projects, every My Documents record. */
export const BENCH_SPEC = { source: 'v2', includeClientSub: true, pageSize: 500, format: 'csv', myDocuments: 'all' } as const;

/** The role of a child: `runExport --to postgres` (the change state in Redis too, as the contract asks). */
export async function pgRun(t: PgTarget, out: string): Promise<PgMeasured> {
  const { ServiceClient } = await import('../../src/api/index.ts');
  const { runExport } = await import('../../src/export/run-export.ts');
  const { Secret } = await import('../../src/secret.ts');
  const { Redis } = await import('ioredis');
  const redis = new Redis(t.redisUrl, { maxRetriesPerRequest: null });
  const started = performance.now();
  const c = new ServiceClient({ baseUrl: t.url, email: t.email, password: t.password, apiKey: t.apiKey, acceptEncoding: t.encoding ?? 'identity', connections: 1 });
  try {
    const r = await runExport(c, { ...BENCH_SPEC, out, to: 'postgres' }, { databaseUrl: new Secret(t.pgUrl), changeState: { redis, prefix: t.prefix, account: 'bench' } });
    return { seconds: (performance.now() - started) / 1000, cpu_s: cpuSeconds(), peak_rss_mb: peakRssMb(), projects: r.projects, ...r.postgres };
  } finally {
    await c.close();
    redis.disconnect();
  }
}

export interface BenchDatabase {
  pgUrl: string;
  redisUrl: string;
  prefix: string;
  redis: import('ioredis').Redis;
  /** The next first load starts again from nothing: no table, no change state. */
  reset(): Promise<void>;
  /** Rows in `buildsync_projects`. */
  tableRows(): Promise<number>;
  /** Bytes and entries of the change state (`MEMORY USAGE … SAMPLES 0`: every field counted). */
  stateSize(): Promise<{ stateBytes: number; stateEntries: number }>;
  /** Drops the schema and the prefix's keys. */
  close(): Promise<void>;
}

/** A schema and a Redis prefix of the bench's own; `{ unavailable }` (saying why) when PostgreSQL does not answer. */
export async function openBenchDatabase(): Promise<BenchDatabase | { unavailable: string }> {
  const pg = (await import('pg')).default;
  const { Redis } = await import('ioredis');
  const base = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const admin = new pg.Client({ connectionString: base, connectionTimeoutMillis: 3_000 });
  try {
    await admin.connect();
  } catch (err) {
    await admin.end().catch(() => {});
    return { unavailable: `no PostgreSQL at ${new URL(base).host} (${(err as Error).message}); set BENCH_PG_URL` };
  }
  const schema = `bench_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pgUrl = new URL(base);
  pgUrl.searchParams.set('options', `-c search_path=${schema}`);
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `bench-pg-${randomUUID().slice(0, 8)}`;
  const redis = new Redis(redisUrl);
  const unlinkPrefix = async (pattern: string) => {
    for (const key of await redis.keys(pattern)) await redis.unlink(key);
  };
  return {
    pgUrl: pgUrl.toString(),
    redisUrl,
    prefix,
    redis,
    async reset() {
      await admin.query(`DROP TABLE IF EXISTS ${schema}.buildsync_projects`);
      await unlinkPrefix(`${prefix}:*`);
    },
    async tableRows() {
      return (await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.buildsync_projects`)).rows[0]!.n;
    },
    async stateSize() {
      const { exportStateKeyOf } = await import('../../src/redis/layout.ts');
      const { exportVariant } = await import('../../src/export/run-export.ts');
      const key = exportStateKeyOf(redis, prefix, 'bench', exportVariant(BENCH_SPEC));
      const bytes = Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
      return { stateBytes: bytes, stateEntries: await redis.hlen(key) };
    },
    async close() {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
      await admin.end().catch(() => {});
      await unlinkPrefix(`${prefix}*`).catch(() => {});
      redis.disconnect();
    },
  };
}
