import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { packageRoot } from '../package-root.ts';
import { RedisUnavailableError, redactUrl } from '../errors/index.ts';
import { startWorkers } from '../queue/index.ts';
import { connectRedis, redisAnswers } from '../redis/index.ts';
import { prefixPatterns, unlinkAll } from '../redis/layout.ts';
import { noRedisAnswers } from '../redis/failures.ts';
import { redisClusterEnabled } from '../config.ts';
import { startSandbox } from '../sandbox/index.ts';
import type { CommandContext } from './command.ts';
import { exportProjectsCommand } from './export-command.ts';
import { importCommand } from './import-command.ts';

const SAMPLES = join(packageRoot(), 'samples');

/** `buildsync demo` (flags in program/demo.ts). */
export async function demoCommand(ctx: CommandContext, outDir: string): Promise<number> {
  return demo(ctx, resolve(outDir));
}

async function demo(ctx: CommandContext, outDir: string): Promise<number> {
  const started = Date.now();
  mkdirSync(outDir, { recursive: true });
  const redis = await demoRedis(ctx);
  const sandbox = await startSandbox({ limits: 'none' });
  ctx.err(`sandbox: ${sandbox.url} (in this process, ${sandbox.visibleProjectIds(sandbox.credentials.email, true).length} visible projects)`);

  // The demo talks to its own sandbox whatever .env says, under a key prefix of its own so that
  // a real account's ledger and queues are never touched.
  const prefix = `buildsync-demo-${Date.now().toString(36)}`;
  Object.assign(process.env, {
    BUILDSYNC_BASE_URL: sandbox.url,
    BUILDSYNC_EMAIL: sandbox.credentials.email,
    BUILDSYNC_PASSWORD: sandbox.credentials.password,
    BUILDSYNC_API_KEY: sandbox.credentials.apiKey,
    BUILDSYNC_PREFIX: prefix,
    REDIS_URL: redis.url,
    // REDIS_CLUSTER=1 applies to the Redis of REDIS_URL, never to the demo's own throwaway one.
    REDIS_CLUSTER: redis.cluster ? '1' : '0',
    // A throwaway set-up: the demo sends to its own sandbox whatever Redis keeps on disk.
    BUILDSYNC_ALLOW_VOLATILE_REDIS: '1',
  });
  ctx.global.account = undefined;
  const worker = await startWorkers({ redisUrl: redis.url, prefix, concurrency: 8 });
  const codes: number[] = [];
  try {
    ctx.err('\n1/3 exporting every visible project (v2 listing, streamed) through the queue');
    codes.push(
      await exportProjectsCommand(ctx, {
        out: resolve(outDir, 'projects.csv'),
        format: 'csv',
        includeClientSub: 'true',
        source: 'v2',
        pageSize: '500',
        myDocuments: 'exclude',
        queue: true,
      }),
    );
    ctx.err('\n2/3 importing samples/estimates.csv');
    codes.push(await importCommand(ctx, 'estimates', resolve(SAMPLES, 'estimates.csv'), { report: resolve(outDir, 'estimates.report.csv') }));
    ctx.err('\n3/3 importing samples/bills.csv (vendor names from samples/vendors.csv)');
    codes.push(
      await importCommand(ctx, 'bills', resolve(SAMPLES, 'bills.csv'), {
        vendors: resolve(SAMPLES, 'vendors.csv'),
        report: resolve(outDir, 'bills.report.csv'),
      }),
    );
  } finally {
    await worker.close();
    await sandbox.close();
    await cleanup(redis.url, prefix);
    await redis.stop();
  }
  ctx.out('');
  ctx.out(`demo done in ${((Date.now() - started) / 1000).toFixed(1)} s: the sandbox stored ${sandbox.estimates().length} estimates and ${sandbox.bills().length} bills`);
  ctx.out(`  export:  ${resolve(outDir, 'projects.csv')}`);
  ctx.out(`  reports: ${resolve(outDir, 'estimates.report.csv')}, ${resolve(outDir, 'bills.report.csv')}`);
  ctx.out('next: run `buildsync sandbox` in one terminal and `buildsync worker` plus `buildsync dashboard` in others to watch jobs (see README)');
  return Math.max(...codes);
}

interface DemoRedis {
  url: string;
  cluster: boolean;
  stop(): Promise<void>;
}

/** The Redis at REDIS_URL, or a throwaway redis-server on a free port when none answers. */
async function demoRedis(ctx: CommandContext): Promise<DemoRedis> {
  const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  if (await redisAnswers(url)) {
    ctx.err(`redis: using ${redactUrl(url)}`);
    return { url, cluster: redisClusterEnabled(), stop: async () => {} };
  }
  const port = await freePort();
  let child: ChildProcess;
  try {
    child = await new Promise<ChildProcess>((ok, fail) => {
      const c = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
      c.once('error', fail);
      c.once('spawn', () => ok(c));
    });
  } catch (err) {
    throw new RedisUnavailableError(url, { cause: err, message: noRedisAnswers(url).message });
  }
  const throwaway = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 50 && !(await redisAnswers(throwaway, { cluster: false })); i++) await new Promise((r) => setTimeout(r, 100));
  ctx.err(`redis: none answers at ${redactUrl(url)}; started a throwaway redis-server on ${throwaway} for the demo`);
  return {
    url: throwaway,
    cluster: false,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

async function cleanup(url: string, prefix: string): Promise<void> {
  const r = await connectRedis(url, 'producer');
  try {
    // Every master of a cluster, and the queues' `{prefix}:` keys too (src/redis/layout.ts).
    for (const pattern of prefixPatterns(r, prefix)) await unlinkAll(r, pattern);
  } finally {
    r.disconnect();
  }
}

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}
