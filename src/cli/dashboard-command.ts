import { readEnv } from '../config.ts';
import { ConfigError, UsageError } from '../errors/index.ts';
import { startDashboard, type DashboardAuth } from '../dashboard/index.ts';
import { UPLOAD_LIMITS } from '../dashboard/upload-limits.ts';
import { Secret } from '../secret.ts';
import type { CommandContext } from './command.ts';
import { intOption } from './options.ts';
import { configFor, timeScale } from './runtime.ts';

export interface DashboardFlags {
  port: string;
  host: string;
  allowActions?: boolean;
  authUser?: string;
  authPasswordEnv?: string;
  allowImports?: boolean;
  maxUploadMb?: string;
  maxUploadsTotalMb?: string;
  publicUrl?: string;
}

/** `buildsync dashboard` (flags in program/dashboard.ts): serves the dashboard until told to stop. */
export async function dashboardCommand(ctx: CommandContext, flags: DashboardFlags): Promise<number> {
  const cfg = configFor(ctx);
  const port = intOption('--port', flags.port, 0, 65535);
  const auth = readAuth(flags);
  const maxUploadMb = intOption('--max-upload-mb', flags.maxUploadMb ?? String(UPLOAD_LIMITS.maxUploadMb), 1, 10_000);
  const maxUploadsTotalMb = intOption('--max-uploads-total-mb', flags.maxUploadsTotalMb ?? String(UPLOAD_LIMITS.maxUploadsTotalMb), 1, 10_000_000);
  if (maxUploadsTotalMb < maxUploadMb) throw new UsageError(`--max-uploads-total-mb ${maxUploadsTotalMb} is less than --max-upload-mb ${maxUploadMb}: no upload could be kept; raise it, or lower --max-upload-mb`);
  let dashboard;
  try {
    dashboard = await startDashboard({
      redisUrl: cfg.redisUrl,
      prefix: cfg.prefix,
      port,
      host: flags.host,
      allowActions: Boolean(flags.allowActions),
      auth,
      timeScale: timeScale(),
      allowImports: Boolean(flags.allowImports),
      maxUploadMb,
      maxUploadsTotalMb,
      publicUrl: flags.publicUrl,
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
      throw new UsageError(`cannot listen on ${flags.host}:${port} (${code}); choose another --port or --host`, { cause: err });
    }
    throw err;
  }
  ctx.out(`dashboard on ${dashboard.url}/queues (budgets: ${dashboard.url}/budget${flags.allowImports ? `; imports: ${dashboard.url}/import; exports: ${dashboard.url}/export` : ''})${flags.allowActions ? '' : '; read-only'}${auth ? `; user ${auth.user}` : ''}${flags.publicUrl ? `; served by a proxy at ${flags.publicUrl}` : ''}`);
  ctx.out('press Ctrl-C to stop');
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await dashboard.close();
  ctx.err('dashboard stopped');
  return 0;
}

/** --auth-user and --auth-password-env go together; the password is only ever read from the environment. */
function readAuth(flags: DashboardFlags): DashboardAuth | undefined {
  if (flags.authUser === undefined && flags.authPasswordEnv === undefined) return undefined;
  if (!flags.authUser) throw new UsageError('--auth-password-env needs --auth-user USER');
  if (!flags.authPasswordEnv) throw new UsageError('--auth-user needs --auth-password-env VAR, the name of a variable holding the password');
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(flags.authPasswordEnv)) {
    throw new UsageError(`--auth-password-env ${JSON.stringify(flags.authPasswordEnv)}: expected a variable name like DASHBOARD_PASSWORD, not the password itself`);
  }
  if (flags.authUser.includes(':')) throw new UsageError('--auth-user cannot contain ":" (HTTP Basic separates user and password with it)');
  const value = readEnv()[flags.authPasswordEnv];
  if (!value) throw new ConfigError(`${flags.authPasswordEnv} is not set or empty; put the dashboard password in it (or in .env)`);
  return { user: flags.authUser, password: new Secret(value), passwordEnv: flags.authPasswordEnv };
}
