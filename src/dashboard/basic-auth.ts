import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { ConfigError } from '../errors/index.ts';
import type { Secret } from '../secret.ts';
import { LoginLimiter } from './login-limit.ts';

/** The shortest password the dashboard starts with (README, "Dashboard"). */
export const MIN_PASSWORD_CHARS = 12;

/** What the dashboard takes for basic auth. */
export interface DashboardAuth {
  user: string;
  password: Secret;
  /** The environment variable the password was read from, to name it when it is refused. */
  passwordEnv?: string;
}

/**
 * Refuses at start a password shorter than MIN_PASSWORD_CHARS characters (counted as a person
 * types them: code points), naming the variable that holds it; never its value or its length.
 */
export function checkPassword(auth: DashboardAuth): void {
  if ([...auth.password.reveal()].length >= MIN_PASSWORD_CHARS) return;
  const variable = auth.passwordEnv ?? 'DASHBOARD_PASSWORD';
  throw new ConfigError(
    `${auth.passwordEnv ? `${auth.passwordEnv} holds a password` : 'the dashboard password is'} shorter than ${MIN_PASSWORD_CHARS} characters; the dashboard needs at least ${MIN_PASSWORD_CHARS}. Put a longer one in it, e.g. ${variable}="$(openssl rand -base64 18)"`,
  );
}

/**
 * HTTP Basic authentication (RFC 7617) for every route. Compared as SHA-256 digests with
 * timingSafeEqual, so neither the length nor a common prefix of the password leaks through timing.
 * Wrong passwords count against the client's address (login-limit.ts); a request with no
 * credentials at all (a browser's first, before it asks) does not.
 */
export function basicAuth(auth: DashboardAuth, limiter = new LoginLimiter()): RequestHandler {
  const expected = digest(`${auth.user}:${auth.password.reveal()}`);
  return (req, res, next) => {
    const client = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const waitMs = limiter.waitMs(client);
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      res.set('Retry-After', String(seconds));
      res.status(429).type('text/plain').send(`429 Too Many Requests: too many wrong passwords from ${client}; try again in ${seconds} s\n`);
      return;
    }
    const header = req.headers.authorization;
    const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
    const given = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : undefined;
    if (given !== undefined && timingSafeEqual(digest(given), expected)) {
      next();
      return;
    }
    if (header !== undefined) limiter.fail(client);
    res.set('WWW-Authenticate', 'Basic realm="buildsync dashboard", charset="UTF-8"');
    res.status(401).type('text/plain').send('401 Unauthorized: this dashboard needs its user name and password\n');
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
