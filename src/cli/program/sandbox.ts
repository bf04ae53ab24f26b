import type { Command } from 'commander';
import { DEFAULT_LIMITS } from '../../sandbox/options.ts';
import { formatLimits } from '../../throttle/parse-limits.ts';
import { action } from '../command.ts';
import type { SandboxFlags } from '../sandbox-command.ts';
import { examples } from './examples.ts';

/** `buildsync sandbox`; the work is in ../sandbox-command.ts, loaded when it runs. */
export function registerSandbox(program: Command): void {
  program
    .command('sandbox')
    .description('run the in-process implementation of the service (its API over HTTP, with demo projects) for trying things out')
    .option('--port <port>', 'port to listen on', '4010')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--projects <n>', 'projects of the demo company', '50')
    .option('--limits <limits>', 'per-user rate limits, e.g. hour=500,day=10000, or none', formatLimits(DEFAULT_LIMITS))
    .option('--time-scale <k>', 'windows pass k times faster (3600: an hour lasts a second)', '1')
    .option('--counting <mode>', 'rolling or aligned rate-limit windows', 'rolling')
    .option('--retry-after', 'send a Retry-After header with 429 answers')
    .option('--latency-ms <ms>', 'delay before every answer', '0')
    .option('--fail-rate <f>', 'share of create requests answered 500 before storing (0..1)', '0')
    .addHelpText(
      'after',
      examples([
        'buildsync sandbox                                   # then use the credentials it prints',
        'buildsync sandbox --port 4011 --projects 5000 --limits none',
        'buildsync sandbox --latency-ms 200 --fail-rate 0.05  # a slow, flaky service',
      ]),
    )
    .action(action(async (ctx, opts: SandboxFlags) => (await import('../sandbox-command.ts')).sandboxCommand(ctx, opts), { runsUntilSignal: true }));
}
