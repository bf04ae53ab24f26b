/**
 * Seed §5: HTTP Basic (e-mail and password) plus the APIKey header on every request. What a
 * failure looks like is not shown; the sandbox answers 401 with a JSON `Message` that says which
 * part was wrong, never echoing a secret (DECISIONS.md, "Authentication").
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { findUser, type SandboxUser } from './users.ts';

export type AuthResult = { user: SandboxUser } | { user: undefined; message: string };

const DENIED = 'Authorization has been denied for this request';

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function authenticate(req: IncomingMessage): AuthResult {
  const header = req.headers.authorization;
  const m = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!m) return { user: undefined, message: `${DENIED}: HTTP Basic credentials are missing.` };
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = colon < 0 ? undefined : findUser(decoded.slice(0, colon));
  if (!user || !same(decoded.slice(colon + 1), user.password)) {
    return { user: undefined, message: `${DENIED}: the e-mail address or password is wrong.` };
  }
  const key = req.headers.apikey;
  if (typeof key !== 'string' || key === '') return { user: undefined, message: `${DENIED}: the APIKey header is missing.` };
  if (!same(key, user.apiKey)) return { user: undefined, message: `${DENIED}: the API key is not valid for this account.` };
  return { user };
}
