/**
 * The import page's failures as HTTP answers: a `PageError` carries its own status; any other
 * error is the user's (400) when its stable code means "your input" in the one exit-code table
 * (exit 2, `exitCodeOf`), the server's when Redis or the export database is missing (503;
 * a Redis failure in the words of src/redis/failures.ts, as the CLI says it), else 500. Messages never show where
 * uploads are kept. A stop about the whole file carries `control`: the accessible name of the
 * page's control that settles it (`pageControlOf`), which the page ties it to.
 */
import type { Request, Response, NextFunction, ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { BuildsyncError, coerceError, EXIT, exitCodeOf, messageFor, pageControlOf, type Wording } from '../errors/index.ts';
import { redisFailureOf } from '../redis/failures.ts';

/** A refusal the page decides itself, with its HTTP status. */
export class PageError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/**
 * Exit 2 covers the operator's configuration too (Redis, the export database): for the person at
 * the page those are the server's trouble, not something their file or choices can fix.
 */
const SERVER_SIDE = new Set(['BUILDSYNC_REDIS_UNAVAILABLE', 'BUILDSYNC_DATABASE_UNAVAILABLE', 'BUILDSYNC_DATABASE']);

/**
 * The HTTP status of an error that is not a `PageError`: 400 for the user's input (exit 2 in the
 * one table), 503 when the server's own services are missing or misconfigured, else 500.
 */
export function httpStatusOf(err: unknown): 400 | 500 | 503 {
  const code = err instanceof BuildsyncError ? err.code : undefined;
  if (code !== undefined && SERVER_SIDE.has(code)) return 503;
  return exitCodeOf(code) === EXIT.usage ? 400 : 500;
}

/** Messages name the file as the user uploaded it, never the private directory it is kept in. */
export function scrub(text: string): string {
  return text.replace(/[^\s"'(]*buildsync-uploads-[^/\s]+\/u-[^/\s]+\//g, '').replace(/\.edited-[a-z0-9]+\.(?:csv|xlsx)\b/g, '');
}

/** The router's error handler: every failure as `{ error }` JSON with its status. */
export function pageErrorHandler(opts: { maxBytes: number; log?: Logger }): ErrorRequestHandler {
  return (err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const e = err as { type?: string };
    if (err instanceof PageError) {
      res.status(err.status).json({ error: err.message });
      return;
    }
    if (e.type === 'entity.too.large') {
      res.status(413).json({ error: `the file is larger than the upload limit of ${opts.maxBytes / 1024 / 1024} MB` });
      return;
    }
    const c = coerceError(err);
    opts.log?.warn({ err: c }, 'import page request failed');
    // Redis refused a command or stayed away (ioredis' own errors): the server's trouble, said as the CLI says it.
    const redis = redisFailureOf(c);
    if (redis) {
      res.status(503).json({ error: redis.message });
      return;
    }
    // In the page's words: its controls, never the CLI's flags (errors/wording.ts); a stop about
    // the whole file names the control that settles it (`control`: its accessible name).
    const control = pageControlOf((c as { wording?: Wording }).wording);
    res.status(httpStatusOf(c)).json({ error: scrub(messageFor(c, 'page')), ...(control === undefined ? {} : { control }) });
  };
}
