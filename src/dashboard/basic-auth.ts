import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Secret } from '../secret.ts';

/**
 * HTTP Basic authentication (RFC 7617) for every route. Compared as SHA-256 digests with
 * timingSafeEqual, so neither the length nor a common prefix of the password leaks through timing.
 */
export function basicAuth(user: string, password: Secret): RequestHandler {
  const expected = digest(`${user}:${password.reveal()}`);
  return (req, res, next) => {
    const header = req.headers.authorization ?? '';
    const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    const given = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : undefined;
    if (given !== undefined && timingSafeEqual(digest(given), expected)) {
      next();
      return;
    }
    res.set('WWW-Authenticate', 'Basic realm="buildsync dashboard", charset="UTF-8"');
    res.status(401).type('text/plain').send('401 Unauthorized: this dashboard needs its user name and password\n');
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
