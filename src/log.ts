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
