import { ReplyError } from 'ioredis';
import { coerceError, exitCodeOfAll, type ErrorCode } from '../errors/index.ts';
import type { DateOrder } from '../values/index.ts';

export type CheckName = 'config' | 'redis' | 'redis-acl' | 'redis-durability' | 'service' | 'budget';
export type CheckLevel = 'ok' | 'warning' | 'error';

/** One finding: a check that passed, a warning, or one problem with what to do about it. */
export interface CheckFinding {
  name: CheckName;
  /** False only for `error`. */
  ok: boolean;
  level: CheckLevel;
  /** One line (a few for a problem the durability rule words in several); never a secret. */
  message: string;
  /** For an `error`: the stable code of the failure, whose exit status (`exitCodeOf`) it calls for. */
  code?: ErrorCode;
  /** The `config` check, once the variables are read: how the account's files are read (check/config.ts `accountReading`). */
  reading?: AccountReading;
}

/** The account's reading settings as `check` shows them (README, "Configuration"); `--json` carries them as fields of the config check. */
export interface AccountReading {
  /** BUILDSYNC_DATE_FORMAT: the day/month order of files that do not prove theirs; null: such a file stops and asks. */
  dateFormat: { order: DateOrder | null; variable: string };
  /** BUILDSYNC_CURRENCY: the account's currency; `set` false when it is the default. */
  currency: { code: string; variable: string; set: boolean };
}

export interface CheckReport {
  /** True when the exit code is 0 (warnings allowed). */
  ok: boolean;
  /** 0, or 2 configuration or Redis, 3 credentials refused, 4 service unreachable or failing. */
  exitCode: number;
  checks: CheckFinding[];
}

/** Service request timeout and retries of the check: a check answers in seconds. */
export const CHECK_DEFAULTS = {
  serviceTimeoutMs: 15_000,
  /** One retry: enough to tell a blip from a failure, and at most two budget tokens. */
  serviceRetries: 1,
} as const;

export const ok = (name: CheckName, message: string): CheckFinding => ({ name, ok: true, level: 'ok', message });
export const warning = (name: CheckName, message: string): CheckFinding => ({ name, ok: true, level: 'warning', message });
export const error = (name: CheckName, code: ErrorCode, message: string): CheckFinding => ({ name, ok: false, level: 'error', message, code });

/** The exit status of the errors' codes, by the one table (`exitCodeOf`) and its precedence; 0 without errors. */
export function checkExitCode(findings: readonly CheckFinding[]): number {
  return exitCodeOfAll(findings.flatMap((f) => (f.level === 'error' && f.code ? [f.code] : [])));
}

/** What Redis answered to a command (its reply, or the connection's error). */
export function redisReplyText(err: unknown): string {
  const e = coerceError(err);
  return e instanceof ReplyError ? e.message : `${e.message}`;
}
