import pino, { type Logger } from 'pino';

/**
 * Paths pino blanks in every line, whatever object a caller logs: the defence in depth behind
 * `Secret` (config) and the client never logging headers.
 */
export const REDACT_PATHS = [
  'password',
  'apiKey',
  'authorization',
  '*.password',
  '*.apiKey',
  '*.authorization',
  '*.Authorization',
  '*.APIKey',
  '*.apikey',
  'headers.authorization',
  'headers.Authorization',
  'headers.APIKey',
  'headers.apikey',
  '*.headers.authorization',
  '*.headers.apikey',
  'BUILDSYNC_PASSWORD',
  'BUILDSYNC_API_KEY',
];

/** Any key naming a secret, at any depth, including per-account ones like BUILDSYNC_ACME_PASSWORD. */
const SECRET_KEY = /(password|api_?key|authorization)$/i;

/** Blanks the values of secret-named keys in a log object (depth-limited: log objects are small). */
export function scrubSecrets(value: unknown, depth = 0): unknown {
  if (depth > 5 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrubSecrets(v, depth + 1));
  if (value instanceof Error) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? '***' : scrubSecrets(v, depth + 1);
  return out;
}

let root: Logger | undefined;

/**
 * The process's logger. Logs go to stderr so that stdout stays for what a command prints
 * (payloads of --print-payloads, job ids of --detach) and can be piped.
 */
export function logger(level = process.env.LOG_LEVEL ?? 'info'): Logger {
  if (!root) {
    root = pino(
      {
        level,
        redact: { paths: REDACT_PATHS, censor: '***' },
        formatters: { log: (obj) => scrubSecrets(obj) as Record<string, unknown> },
        base: { pid: process.pid },
      },
      pino.destination({ fd: 2, sync: false }),
    );
  }
  return root;
}

/** Replaces the process logger (tests capture lines through a stream). */
export function setLogger(l: Logger): void {
  root = l;
}
