import type { Command } from 'commander';
import { UsageError } from '../errors/index.ts';
import { parseSandboxLimits, startSandbox } from '../sandbox/index.ts';
import { action } from './command.ts';
import { intOption, numberOption } from './options.ts';

export function registerSandbox(program: Command): void {
  program
    .command('sandbox')
    .description('run the in-process implementation of the service for trying things out (CONTRACT.md §6)')
    .option('--port <port>', 'port to listen on', '4010')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--projects <n>', 'projects of the demo company', '50')
    .option('--limits <limits>', 'per-user rate limits, e.g. hour=500,day=10000, or none', 'hour=500,day=10000,week=50000,month=200000')
    .option('--time-scale <k>', 'windows pass k times faster (3600: an hour lasts a second)', '1')
    .option('--counting <mode>', 'rolling or aligned rate-limit windows', 'rolling')
    .option('--retry-after', 'send a Retry-After header with 429 answers')
    .option('--latency-ms <ms>', 'delay before every answer', '0')
    .option('--fail-rate <f>', 'share of create requests answered 500 before storing (0..1)', '0')
    .action(
      action(async (ctx, opts: Record<string, string | boolean | undefined>) => {
        const counting = opts.counting;
        if (counting !== 'rolling' && counting !== 'aligned') {
          throw new UsageError(`--counting ${String(counting)}: write rolling or aligned`);
        }
        const sandbox = await startSandbox({
          host: String(opts.host),
          port: intOption('--port', opts.port, 0, 65535),
          projects: intOption('--projects', opts.projects, 0, 1_000_000),
          limits: parseSandboxLimits(String(opts.limits)),
          timeScale: numberOption('--time-scale', opts.timeScale, 0.000001, 1e9),
          counting,
          retryAfterHeader: Boolean(opts.retryAfter),
          latencyMs: intOption('--latency-ms', opts.latencyMs, 0, 600_000),
          faults: { failBeforeStore: numberOption('--fail-rate', opts.failRate, 0, 1) },
        });
        const c = sandbox.credentials;
        ctx.out(`sandbox listening on ${sandbox.url}`);
        ctx.out(`credentials: BUILDSYNC_BASE_URL=${sandbox.url} BUILDSYNC_EMAIL=${c.email} BUILDSYNC_PASSWORD=${c.password} BUILDSYNC_API_KEY=${c.apiKey}`);
        ctx.out(`try: curl -u ${c.email}:${c.password} -H 'APIKey: ${c.apiKey}' '${sandbox.url}/api/Projects?skip=0&take=5'`);
        ctx.out('press Ctrl-C to stop');
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
        await sandbox.close();
        ctx.err('sandbox stopped');
        return 0;
      }, { runsUntilSignal: true }),
    );
}
