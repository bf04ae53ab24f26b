import { afterEach, describe, expect, it } from 'vitest';
import { NetworkError } from '../src/errors/index.ts';
import { ServiceClient } from '../src/api/index.ts';
import { CREDENTIALS, type TestServer, project, startServer } from './api-test-server.ts';

// Listings go over node:http (http-transport.ts); `timeoutMs` must still bound the wait for the
// headers and every wait between two chunks of the body, as undici's timeouts did.
const servers: TestServer[] = [];
let client: ServiceClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('a listing that stalls fails after timeoutMs instead of hanging', () => {
  it('gives up waiting for the headers, retries, and reports a network failure', async () => {
    const s = await startServer(() => {}); // never answers
    servers.push(s);
    client = new ServiceClient({ baseUrl: s.url, ...CREDENTIALS, timeoutMs: 150, retries: 1, retryBaseMs: 1, retryCapMs: 5 });
    const started = Date.now();
    const err = await collect(client.listProjectsV2({ includeClientSub: true })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toMatch(/GET \/api\/v2\/Projects/);
    expect(s.requests).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('gives up when the body stops mid-way after projects were yielded, without retrying', async () => {
    const s = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`[${JSON.stringify(project(1))},${JSON.stringify(project(2))},`); // then nothing
    });
    servers.push(s);
    client = new ServiceClient({ baseUrl: s.url, ...CREDENTIALS, timeoutMs: 150, retries: 3, retryBaseMs: 1, retryCapMs: 5 });
    const seen: unknown[] = [];
    const err = await (async () => {
      for await (const p of client!.listProjectsV2({ includeClientSub: true })) seen.push(p);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(seen).toEqual([project(1), project(2)]);
    expect(s.requests).toHaveLength(1);
  });

  it('reads a listing slower than timeoutMs in total, as long as no single wait is', async () => {
    const s = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const parts = ['[', JSON.stringify(project(1)), ',', JSON.stringify(project(2)), ']'];
      let i = 0;
      const next = () => {
        if (i === parts.length) return res.end();
        res.write(parts[i++]);
        setTimeout(next, 60);
      };
      next();
    });
    servers.push(s);
    client = new ServiceClient({ baseUrl: s.url, ...CREDENTIALS, timeoutMs: 150, retries: 0 });
    expect(await collect(client.listProjectsV2({ includeClientSub: true }))).toEqual([project(1), project(2)]);
  });
});
