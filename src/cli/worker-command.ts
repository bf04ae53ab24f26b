import type { Command } from 'commander';
import { startWorkers } from '../queue/index.ts';
import { action } from './command.ts';
import { intOption } from './options.ts';
import { configFor, leaseMs, lockMs, timeScale } from './runtime.ts';

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run the BullMQ workers until SIGINT/SIGTERM, then finish or hand back in-flight work and exit 0')
    .option('--concurrency <n>', 'requests in flight at once in this process (default BUILDSYNC_CONCURRENCY, 8)')
    .option('--metrics-port <port>', 'serve Prometheus metrics on http://127.0.0.1:PORT/metrics')
    .action(
      action(async (ctx, opts: { concurrency?: string; metricsPort?: string }) => {
        const cfg = configFor(ctx);
        const host = await startWorkers({
          redisUrl: cfg.redisUrl,
          prefix: cfg.prefix,
          concurrency: opts.concurrency !== undefined ? intOption('--concurrency', opts.concurrency, 1, 256) : cfg.concurrency,
          metricsPort: opts.metricsPort !== undefined ? intOption('--metrics-port', opts.metricsPort, 0, 65535) : undefined,
          timeScale: timeScale(),
          lockMs: lockMs(),
          leaseMs: leaseMs(),
          allowInsecureHttp: ctx.global.allowInsecureHttp,
        });
        const addr = host.metricsServer?.address();
        ctx.err(`worker running (prefix ${cfg.prefix}, concurrency ${opts.concurrency ?? cfg.concurrency})${addr && typeof addr === 'object' ? `; metrics on http://127.0.0.1:${addr.port}/metrics` : ''}; Ctrl-C to stop`);
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
        ctx.err('stopping: finishing in-flight requests, handing exports back to the queue');
        await host.close();
        ctx.err('worker stopped');
        return 0;
      }, { runsUntilSignal: true }),
    );
}
