import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Passes every request on to `target`, and answers its 429s with `{"Message":"Rate limit
 * exceeded."}`: no limit, no window, no wait, like the seed's service.
 */
export async function startBareProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const to = new URL(target);
  const agent = new Agent({ keepAlive: true });
  const server: Server = createServer((req, res) => {
    const out = request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host }, agent },
      (answer) => {
        if (answer.statusCode === 429) {
          answer.resume();
          const body = JSON.stringify({ Message: 'Rate limit exceeded.' });
          res.writeHead(429, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
          res.end(body);
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      agent.destroy();
    },
  };
}
