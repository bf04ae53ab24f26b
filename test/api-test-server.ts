/** A real node:http server on port 0 for the API client's tests (not a test file itself). */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, seen: SeenRequest) => void | Promise<void>;

export interface TestServer {
  url: string;
  port: number;
  requests: SeenRequest[];
  close(): Promise<void>;
}

export async function startServer(handler: Handler, port = 0): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(parts).toString('utf8') };
      requests.push(seen);
      Promise.resolve(handler(req, res, seen)).catch((err) => {
        res.destroy(err as Error);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (for "connection refused"). */
export async function freePort(): Promise<number> {
  const s = await startServer(() => {});
  await s.close();
  return s.port;
}

export function json(res: http.ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export const CREDENTIALS = {
  email: 'ops@example.com',
  password: 'pa55-Secret!word',
  apiKey: 'key-0123456789abcdef-SECRET',
};

export function project(id: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ID: id, NAME: `Project ${id}`, IS_ARCHIVED: false, LAT: 39.7, ATTACH_FOLDER_ID: null, ...extra };
}
