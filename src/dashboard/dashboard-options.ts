import type { Logger } from 'pino';
import type { Env } from '../config.ts';
import type { DashboardAuth } from './basic-auth.ts';

/** What `startDashboard` serves and where. */
export interface DashboardOptions {
  /** The Redis the queues and budgets live in. */
  redisUrl: string;
  /** Key prefix of the queues and budgets (BUILDSYNC_PREFIX). @defaultValue 'buildsync' */
  prefix?: string;
  /** 0 picks a free port (tests). @defaultValue 3000 */
  port?: number;
  /** Address to bind; loopback unless the user asks otherwise. @defaultValue '127.0.0.1' */
  host?: string;
  /** Let bull-board retry, remove, promote, pause…; without it every queue is read-only. @defaultValue false */
  allowActions?: boolean;
  /** HTTP Basic credentials every request must carry; none when absent. The password has at least 12 characters. */
  auth?: DashboardAuth;
  /**
   * The address a reverse proxy serves the dashboard at (`--public-url`, scheme, host and port):
   * its host and origin are accepted, and the proxy's X-Forwarded-For names the client.
   */
  publicUrl?: string;
  /** Test knob: failed logins per client address and window before 429s. @defaultValue 10 in 60 000 ms (login-limit.ts) */
  loginLimits?: { failures: number; windowMs: number };
  /** Where the accounts (BUILDSYNC_<NAME>_EMAIL) and their limits are read. @defaultValue readEnv() */
  env?: Env;
  /** Test knob: divides the budget windows' lengths, as the workers do (BUILDSYNC_TIME_SCALE). @defaultValue 1 */
  timeScale?: number;
  log?: Logger;
}

export const DASHBOARD_DEFAULTS = {
  prefix: 'buildsync',
  port: 3000,
  host: '127.0.0.1',
  /** bull-board's base path; the budget page is beside it. */
  boardPath: '/queues',
  budgetPath: '/budget',
  /** Export runs listed on the budget page (newest first, completed and failed together). */
  recentExports: 20,
} as const;

/** A running dashboard. */
export interface Dashboard {
  /** Its address, e.g. `http://127.0.0.1:3000` (no trailing slash). */
  url: string;
  /** Stops listening, then closes the queues and the Redis connection; the first error wins. */
  close(): Promise<void>;
}
