import { request, type IncomingHttpHeaders } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One request over node:http, with the headers exactly as given: fetch will not send a `Host`
 * of the caller's choosing (as a page of a rebound DNS name does) nor leave `Origin` out at will.
 */
export function rawRequest(url: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawAnswer> {
  const u = new URL(url);
  return new Promise((done, fail) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: o.method ?? 'GET', headers: { Connection: 'close', ...o.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', fail);
    req.end(o.body);
  });
}
