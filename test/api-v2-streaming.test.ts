import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { InterruptedError, ResponseInvalidError } from '../src/errors/index.ts';
import { ServiceClient } from '../src/api/index.ts';
import { CREDENTIALS, type TestServer, project, startServer } from './api-test-server.ts';

let server: TestServer | undefined;
let client: ServiceClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

const COUNT = 50_000;
const FILLER = 'Scope%20of%20work%3A%20'.repeat(80); // ~1.8 KB per record

/** Writes COUNT records lazily, honouring backpressure, so the server holds no whole body either. */
async function streamProjects(res: import('node:http').ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"Data":[');
  let batch = '';
  for (let i = 1; i <= COUNT; i++) {
    batch += (i > 1 ? ',' : '') + JSON.stringify(project(i, { SCOPE_OF_WORK: FILLER, NOTE: `ünï ${i} "q" \\` }));
    if (batch.length > 60_000 || i === COUNT) {
      const ok = res.write(batch);
      batch = '';
      if (!ok) await once(res, 'drain');
    }
  }
  res.end(']}');
}

describe('the v2 listing is parsed as the body streams in', () => {
  it('reads 50,000 projects (~100 MB) without holding the body in memory', async () => {
    server = await startServer((_req, res) => streamProjects(res));
    client = new ServiceClient({ baseUrl: server.url, ...CREDENTIALS });
    const before = process.memoryUsage();
    let peak = 0;
    let count = 0;
    let lastId = 0;
    for await (const p of client.listProjectsV2({ includeClientSub: true })) {
      count++;
      expect(p.ID).toBe(lastId + 1);
      lastId = p.ID;
      if (count % 2000 === 0) {
        const m = process.memoryUsage();
        peak = Math.max(peak, m.heapUsed + m.arrayBuffers - before.heapUsed - before.arrayBuffers);
      }
      if (count === 1) expect(p.NOTE).toBe('ünï 1 "q" \\');
    }
    expect(count).toBe(COUNT);
    // The body is ~100 MB; a parser that buffered it would need well over that.
    expect(peak).toBeLessThan(64 * 1024 * 1024);
  });

  it('stops reading and frees the connection when the consumer stops early', async () => {
    server = await startServer((_req, res) => streamProjects(res));
    client = new ServiceClient({ baseUrl: server.url, ...CREDENTIALS, connections: 1 });
    let n = 0;
    for await (const _ of client.listProjectsV2({ includeClientSub: true })) if (++n === 10) break;
    // With one connection, a second listing only works if the first released it.
    n = 0;
    for await (const _ of client.listProjectsV2({ includeClientSub: true })) if (++n === 5) break;
    expect(n).toBe(5);
    expect(server.requests).toHaveLength(2);
  });

  it('stops with InterruptedError when the signal aborts mid-stream', async () => {
    server = await startServer((_req, res) => streamProjects(res));
    client = new ServiceClient({ baseUrl: server.url, ...CREDENTIALS });
    const abort = new AbortController();
    let n = 0;
    const err = await (async () => {
      for await (const _ of client!.listProjectsV2({ includeClientSub: true, signal: abort.signal })) if (++n === 100) abort.abort();
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InterruptedError);
    expect((err as Error).message).toBe('GET /api/v2/Projects was interrupted');
    expect(n).toBeLessThan(COUNT);
    expect(server.requests).toHaveLength(1);
    await client.close();
    await client.close();
  });

  it('throws ResponseInvalidError for an invalid record, naming its index', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify([project(1), project(2), { ID: 3.5, NAME: 'x' }]));
    });
    client = new ServiceClient({ baseUrl: server.url, ...CREDENTIALS });
    const got: number[] = [];
    const err = await (async () => {
      for await (const p of client!.listProjectsV2({ includeClientSub: true })) got.push(p.ID);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseInvalidError);
    expect((err as Error).message).toBe('project record 2 (ID 3.5) of the listing is invalid: field ID: Invalid input: expected int, received number');
    expect(server.requests).toHaveLength(1);
  });

  it('reports a body that is not a listing', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>maintenance</html>');
    });
    client = new ServiceClient({ baseUrl: server.url, ...CREDENTIALS });
    const err = await (async () => {
      for await (const _ of client!.listProjectsV2({ includeClientSub: true }));
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseInvalidError);
    expect((err as Error).message).toBe('the listing is not valid: expected a JSON array or an object wrapping one, found "<html>maintenance</html>" at byte 0');
  });
});
