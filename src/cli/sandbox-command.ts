import { UsageError } from '../errors/index.ts';
import { parseSandboxLimits, startSandbox } from '../sandbox/index.ts';
import type { CommandContext } from './command.ts';
import { intOption, numberOption } from './options.ts';

/** The flags of `buildsync sandbox` (program/sandbox.ts), as commander hands them over. */
export type SandboxFlags = Record<string, string | boolean | undefined>;

/** `buildsync sandbox`: serves the sandbox until told to stop. */
export async function sandboxCommand(ctx: CommandContext, opts: SandboxFlags): Promise<number> {
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
}
