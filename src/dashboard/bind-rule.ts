import { isLoopback } from '../config.ts';
import { UsageError } from '../errors/index.ts';

/**
 * The dashboard's one rule about where it may listen (README, "Dashboard"): off loopback, only
 * behind basic auth, read-only or not. Read-only still shows the queues, each account's budget and
 * the imports' job data (import ids, file names); the import page sends records. Checked by
 * `startDashboard` before anything is opened, so that every way of starting it keeps the rule.
 */
export function requireAuthOffLoopback(o: { host: string; auth: unknown; allowImports?: boolean }): void {
  if (isLoopback(o.host) || o.auth) return;
  const what = o.allowImports
    ? `--allow-imports on ${o.host} needs --auth-user and --auth-password-env: anyone who can reach the page could send imports`
    : `the dashboard on ${o.host} needs --auth-user and --auth-password-env, read-only or not: anyone who can reach it would see the queues, the budgets and the imports' job data`;
  throw new UsageError(
    `${what}. Put a password in an environment variable and name it, e.g. DASHBOARD_PASSWORD=… buildsync dashboard --host ${o.host} --auth-user ops --auth-password-env DASHBOARD_PASSWORD; or bind to 127.0.0.1.`,
  );
}
