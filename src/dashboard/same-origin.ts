import type { RequestHandler } from 'express';

/**
 * The pages that read uploads, send records or produce files (`/import`, `/export`) answer only
 * requests addressed to the dashboard itself: the `Host` must be one of its own addresses (no DNS
 * rebinding), and a request that changes something (any method but GET and HEAD) must come with
 * the dashboard's own `Origin` (no cross-site request forgery); a cross-site GET is refused too.
 */
export function sameOrigin(ownHosts: () => readonly string[]): RequestHandler {
  return (req, res, next) => {
    const host = (req.headers.host ?? '').toLowerCase();
    if (!ownHosts().includes(host)) {
      res.status(403).type('text/plain').send('403: this request was not addressed to the dashboard\'s own address\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      const origin = req.headers.origin;
      if (origin === undefined || origin.toLowerCase() !== `http://${host}`) {
        res.status(403).type('text/plain').send('403: cross-origin request refused\n');
        return;
      }
    } else if (req.headers['sec-fetch-site'] === 'cross-site') {
      res.status(403).type('text/plain').send('403: cross-origin request refused\n');
      return;
    }
    next();
  };
}
