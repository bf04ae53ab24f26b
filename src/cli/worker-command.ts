import { startWorkers } from '../queue/index.ts';
import type { CommandContext } from './command.ts';
import { intOption } from './options.ts';
import { configFor, exportMaxStarts, leaseMs, lockMs, timeScale } from './runtime.ts';

/** `buildsync worker` (flags in program/worker.ts): runs the workers until told to stop. */
export async function workerCommand(ctx: CommandContext, opts: { concurrency?: string; metricsPort?: string }): Promise<number> {
  const cfg = configFor(ctx);
  const host = await startWorkers({
    redisUrl: cfg.redisUrl,
    prefix: cfg.prefix,
    concurrency: opts.concurrency !== undefined ? intOption('--concurrency', opts.concurrency, 1, 256) : cfg.concurrency,
    metricsPort: opts.metricsPort !== undefined ? intOption('--metrics-port', opts.metricsPort, 0, 65535) : undefined,
    timeScale: timeScale(),
    lockMs: lockMs(),
    exportMaxStarts: exportMaxStarts(),
    leaseMs: leaseMs(),
    allowInsecureHttp: ctx.global.allowInsecureHttp,
  });
  const addr = host.metricsServer?.address();
  ctx.err(`worker running (prefix ${cfg.prefix}, concurrency ${opts.concurrency ?? cfg.concurrency})${addr && typeof addr === 'object' ? `; metrics on http://127.0.0.1:${addr.port}/metrics` : ''}; Ctrl-C to stop`);
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  ctx.err('stopping: finishing in-flight requests, handing exports back to the queue');
  await host.close();
  ctx.err('worker stopped');
  return 0;
}
