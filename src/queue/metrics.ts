import { createServer, type Server } from 'node:http';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Queue } from 'bullmq';
import type { AccountThrottle } from '../throttle/index.ts';
// Not through throttle/index.ts: prom-client is loaded by the metrics alone, never by a command that formats a budget.
import { registerBudgetMetrics } from '../throttle/budget-metrics.ts';
import { readExportSuccesses } from '../export/freshness.ts';
import type { RedisConnection } from '../redis/layout.ts';

/** The worker's Prometheus metrics (prom-client), in a registry of its own. */
export class Metrics {
  readonly registry = new Registry();
  readonly jobs = new Counter({
    name: 'buildsync_jobs_total',
    help: 'Jobs finished by this worker, by queue, kind and state',
    labelNames: ['queue', 'kind', 'state'] as const,
    registers: [this.registry],
  });
  readonly http = new Counter({
    name: 'buildsync_http_requests_total',
    help: 'Answers of the service, by account, route and status',
    labelNames: ['account', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: 'buildsync_http_429_total',
    help: '429 Too Many Requests answers of the service, by account',
    labelNames: ['account'] as const,
    registers: [this.registry],
  });
  readonly rows = new Counter({
    name: 'buildsync_rows_read_total',
    help: 'Input rows of the imports this worker finished',
    registers: [this.registry],
  });
  readonly records = new Counter({
    name: 'buildsync_records_total',
    help: 'Records settled by this worker, by status (created, exists, failed, skipped, unknown)',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  constructor(queues: () => Queue[], throttles: () => Iterable<AccountThrottle>) {
    collectDefaultMetrics({ register: this.registry, prefix: 'buildsync_process_' });
    new Gauge({
      name: 'buildsync_queue_jobs',
      help: 'Jobs in each queue by state (all workers together)',
      labelNames: ['queue', 'state'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const q of queues()) {
          const counts = await q.getJobCounts('waiting', 'active', 'delayed', 'waiting-children', 'completed', 'failed', 'prioritized');
          for (const [state, n] of Object.entries(counts)) this.set({ queue: q.name, state }, n);
        }
      },
    });
    registerBudgetMetrics(this.registry, throttles);
  }

  /**
   * The last successful export per account and schedule (docs/data-teams.md), read from
   * Redis at each scrape, so every worker shows the same values and a restart loses none. An
   * alert on staleness: `time() - max by (account, schedule) (buildsync_export_last_success_timestamp_seconds) > 26 * 3600`.
   */
  watchExports(redis: RedisConnection, prefix: string): void {
    let read: ReturnType<typeof readExportSuccesses> | undefined;
    let readAt = 0;
    // One read of Redis per scrape, shared by the three gauges.
    const successes = () => {
      if (!read || Date.now() - readAt > 1000) {
        readAt = Date.now();
        read = readExportSuccesses(redis, prefix);
      }
      return read;
    };
    const labelNames = ['account', 'schedule'] as const;
    new Gauge({
      name: 'buildsync_export_last_success_timestamp_seconds',
      help: 'When the last successful project export of each account and schedule ended (schedule "" for one-off exports)',
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const e of await successes()) this.set({ account: e.account, schedule: e.schedule }, e.at / 1000);
      },
    });
    new Gauge({
      name: 'buildsync_export_last_success_projects',
      help: 'Projects exported by the last successful export of each account and schedule',
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const e of await successes()) this.set({ account: e.account, schedule: e.schedule }, e.projects);
      },
    });
    new Gauge({
      name: 'buildsync_export_last_success_changes',
      help: 'Projects added, changed and removed by the last successful export with --changes or --to postgres',
      labelNames: [...labelNames, 'change'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const e of await successes()) {
          for (const change of ['added', 'changed', 'removed'] as const) {
            const n = e[change];
            if (n !== null) this.set({ account: e.account, schedule: e.schedule, change }, n);
          }
        }
      },
    });
  }

  /** Serves GET /metrics on host:port; resolves once listening. */
  async serve(port: number, host = '127.0.0.1'): Promise<Server> {
    const server = createServer(async (req, res) => {
      if (req.url !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('see /metrics\n');
        return;
      }
      try {
        const body = await this.registry.metrics();
        res.writeHead(200, { 'content-type': this.registry.contentType }).end(body);
      } catch (err) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${(err as Error).message}\n`);
      }
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return server;
  }
}
