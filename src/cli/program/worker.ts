import type { Command } from 'commander';
import { action } from '../command.ts';
import { examples } from './examples.ts';

/** `buildsync worker`; the work is in ../worker-command.ts, loaded when it runs. */
export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run the BullMQ workers until SIGINT/SIGTERM, then finish or hand back in-flight work and exit 0')
    .option('--concurrency <n>', 'requests in flight at once in this process (default BUILDSYNC_CONCURRENCY, 8)')
    .option('--metrics-port <port>', 'serve Prometheus metrics on http://127.0.0.1:PORT/metrics')
    .addHelpText(
      'after',
      examples([
        'buildsync worker',
        'buildsync worker --concurrency 4 --metrics-port 9464',
        'REDIS_URL=redis://queue.internal:6379 buildsync worker   # one of several, on several machines',
      ]),
    )
    .action(
      action(async (ctx, opts: { concurrency?: string; metricsPort?: string }) => (await import('../worker-command.ts')).workerCommand(ctx, opts), { runsUntilSignal: true }),
    );
}
