import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import type { OwnAddress } from './own-address.ts';

/** The response header that carries the page's CSRF token, and the request header that sends it back. */
export const CSRF_HEADER = 'X-CSRF-Token';

/**
 * The dashboard's one guard, mounted before every route (bull-board's UI and API, `/budget`,
 * `/budget.json`, `/import`, `/export`; README, "Dashboard"):
 *
 * - the `Host` must be one of the dashboard's own addresses (`--public-url`'s host included): a
 *   page of another site whose name was pointed at this machine (DNS rebinding) sends its own;
 * - a request that may change something (any method but GET and HEAD) must carry the dashboard's
 *   own `Origin` or the CSRF token the dashboard hands out in the `X-CSRF-Token` response header
 *   (scripts that send no `Origin` read it there): a form another site posts here carries that
 *   site's `Origin` and cannot read the token;
 * - a GET the browser marks `Sec-Fetch-Site: cross-site` (a link, image or frame of another site)
 *   is refused too, so no other site can make the dashboard act or load on its behalf.
 *
 * The token is random for each start of the dashboard; a page that has no access to the
 * dashboard's responses never learns it (browsers do not let another origin read them).
 */
export function dashboardGuard(own: () => OwnAddress): RequestHandler {
  const token = randomBytes(24).toString('base64url');
  return (req, res, next) => {
    const address = own();
    const host = normalHost(req.headers.host);
    if (host === undefined || !address.hosts.has(host)) {
      refuse(res, `this request was addressed to ${JSON.stringify(req.headers.host ?? '')}, which is not this dashboard's address. Open it at ${address.shown}; behind a reverse proxy, start the dashboard with --public-url naming the address the proxy serves it at`);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      const origin = normalOrigin(req.headers.origin);
      const sent = req.headers[CSRF_HEADER.toLowerCase()];
      if (!(origin !== undefined && address.origins.has(origin)) && !sameToken(sent, token)) {
        const from = req.headers.origin === undefined ? 'with no Origin' : `from ${JSON.stringify(req.headers.origin)}`;
        refuse(res, `cross-origin request refused: a ${req.method} ${from} needs this dashboard's own Origin (${address.shown}) or its ${CSRF_HEADER} header (in every answer of the dashboard); behind a reverse proxy, start the dashboard with --public-url naming the address the proxy serves it at`);
        return;
      }
    } else if (req.headers['sec-fetch-site'] === 'cross-site') {
      refuse(res, `cross-site request refused: open the dashboard at ${address.shown} itself, not from a link or frame of another site`);
      return;
    }
    res.set(CSRF_HEADER, token);
    next();
  };
}

function refuse(res: Response, sentence: string): void {
  res.status(403).type('text/plain').send(`403: ${sentence}\n`);
}

/**
 * A `Host` header as a comparable `host[:port]`, lower case, with the default port of http
 * dropped (the form `URL.host` gives); undefined when it is not a host at all.
 */
export function normalHost(header: string | undefined): string | undefined {
  if (!header || /[\s/?#@\\]/.test(header)) return undefined;
  try {
    return new URL(`http://${header}`).host;
  } catch {
    return undefined;
  }
}

/** An `Origin` header as `URL.origin` gives it; undefined for `null` and anything that is not an origin. */
function normalOrigin(header: string | undefined): string | undefined {
  if (!header || header === 'null') return undefined;
  try {
    const url = new URL(header);
    return url.origin === 'null' ? undefined : url.origin;
  } catch {
    return undefined;
  }
}

function sameToken(sent: string | string[] | undefined, token: string): boolean {
  if (typeof sent !== 'string') return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
