import type { Command } from 'commander';
import { action } from '../command.ts';
import type { DashboardFlags } from '../dashboard-command.ts';
import { UPLOAD_LIMITS } from '../../dashboard/upload-limits.ts';
import { examples } from './examples.ts';

/** `buildsync dashboard`; the work is in ../dashboard-command.ts, loaded when it runs. */
export function registerDashboard(program: Command): void {
  program
    .command('dashboard')
    .description('serve a web dashboard: the queues (bull-board, read-only unless --allow-actions) and each account\'s rate budget and schedules at /budget')
    .option('--port <port>', 'port to listen on', '3000')
    .option('--host <host>', 'address to bind; anything but loopback needs --auth-user and --auth-password-env', '127.0.0.1')
    .option('--allow-actions', 'let the dashboard retry, remove, promote and pause jobs and queues')
    .option('--allow-imports', 'allow the page actions that send records or produce files: the import page at /import and the export page at /export')
    .option('--max-upload-mb <mb>', 'with --allow-imports: the largest file the import page accepts, in MB', String(UPLOAD_LIMITS.maxUploadMb))
    .option('--max-uploads-total-mb <mb>', 'with --allow-imports: the most disk the import page\'s kept uploads take together, in MB', String(UPLOAD_LIMITS.maxUploadsTotalMb))
    .option('--auth-user <user>', 'require HTTP Basic authentication with this user name')
    .option('--auth-password-env <VAR>', 'the environment variable holding the password for --auth-user (never the password itself; at least 12 characters)')
    .option('--public-url <url>', 'the address a reverse proxy (TLS) serves the dashboard at, e.g. https://buildsync.example.com: its host and origin are accepted, and the proxy\'s X-Forwarded-For names the client')
    .addHelpText(
      'after',
      examples([
        'buildsync dashboard                                  # http://127.0.0.1:3000/queues, read-only',
        'buildsync dashboard --allow-imports                  # and the import page at /import, the export page at /export',
        'DASH_PASSWORD=… buildsync dashboard --host 0.0.0.0 --auth-user ops --auth-password-env DASH_PASSWORD',
        'DASH_PASSWORD=… buildsync dashboard --auth-user ops --auth-password-env DASH_PASSWORD --public-url https://buildsync.example.com   # behind a TLS proxy',
      ]),
    )
    .action(action(async (ctx, flags: DashboardFlags) => (await import('../dashboard-command.ts')).dashboardCommand(ctx, flags), { runsUntilSignal: true }));
}
