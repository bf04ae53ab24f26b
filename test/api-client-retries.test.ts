import { afterEach, describe, expect, it } from 'vitest';
import { InterruptedError, NetworkError, RateLimitError, ServerError } from '../src/errors/index.ts';
import { type RequestGate, ServiceClient } from '../src/api/index.ts';
import { CREDENTIALS, type TestServer, freePort, json, project, startServer } from './api-test-server.ts';

const servers: TestServer[] = [];
let client: ServiceClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(...args: Parameters<typeof startServer>): Promise<TestServer> {
  const s = await startServer(...args);
  servers.push(s);
  return s;
}

function clientFor(url: string, extra: Partial<ConstructorParameters<typeof ServiceClient>[0]> = {}): ServiceClient {
  client = new ServiceClient({ baseUrl: url, ...CREDENTIALS, retryBaseMs: 1, retryCapMs: 5, ...extra });
  return client;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const estimate = { NAME: 'Kitchen', PROJECT_ID: 1042 };
const bill = { PRJ_ID: 1042, VENDOR_ID: 5, ITEMS: [{ NAME: 'x', RATE: '1' }] };

describe('GET listings retry 5xx and network failures a bounded number of times', () => {
  it('retries a 500 and then succeeds', async () => {
    const s = await serve((_req, res) => (s.requests.length < 3 ? json(res, 500, { Message: 'boom' }) : json(res, 200, [project(1)])));
    const c = clientFor(s.url);
    expect(await collect(c.listProjectsV2({ includeClientSub: true }))).toEqual([project(1)]);
    expect(await collect(c.listProjectsPaged({ pageSize: 10 }))).toEqual([project(1)]);
    expect(s.requests.map((r) => r.url)).toEqual([
      '/api/v2/Projects?includeClientSub=true',
      '/api/v2/Projects?includeClientSub=true',
      '/api/v2/Projects?includeClientSub=true',
      '/api/Projects?skip=0&take=10',
    ]);
  });

  it('gives up after `retries` retries with the last ServerError', async () => {
    const s = await serve((_req, res) => json(res, 502, { Message: 'bad gateway' }));
    const c = clientFor(s.url, { retries: 2 });
    await expect(collect(c.listProjectsPaged({ pageSize: 10 }))).rejects.toBeInstanceOf(ServerError);
    expect(s.requests).toHaveLength(3);
  });

  it('retries the v2 listing when the connection drops before any project arrived', async () => {
    const s = await serve((_req, res) => {
      if (s.requests.length === 1) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('[{"ID":1,"NA');
        setTimeout(() => res.destroy(), 10);
      } else {
        json(res, 200, [project(1), project(2)]);
      }
    });
    const c = clientFor(s.url);
    expect(await collect(c.listProjectsV2({ includeClientSub: true }))).toEqual([project(1), project(2)]);
    expect(s.requests).toHaveLength(2);
  });

  it('does not restart the v2 listing once projects were yielded', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`[${JSON.stringify(project(1))},${JSON.stringify(project(2))},{"ID":3`);
      setTimeout(() => res.destroy(), 10);
    });
    const c = clientFor(s.url);
    const got: unknown[] = [];
    const err = await (async () => {
      for await (const p of c.listProjectsV2({ includeClientSub: true })) got.push(p);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toMatch(/^GET \/api\/v2\/Projects: the connection failed after the request was sent/);
    expect(got).toEqual([project(1), project(2)]);
    expect(s.requests).toHaveLength(1);
  });
});

describe('POST creates are retried only when the request certainly did not reach the service', () => {
  it('does not retry a 500', async () => {
    const s = await serve((_req, res) => json(res, 500, { Message: 'boom' }));
    const c = clientFor(s.url);
    await expect(c.createEstimate(estimate)).rejects.toBeInstanceOf(ServerError);
    await expect(c.createBill(bill)).rejects.toBeInstanceOf(ServerError);
    expect(s.requests).toHaveLength(2);
  });

  it('does not retry when the connection died after the request was written', async () => {
    const s = await serve((req) => {
      req.socket.destroy();
    });
    const c = clientFor(s.url);
    for (const create of [() => c.createBill(bill), () => c.createEstimate(estimate)]) {
      const err = await create().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as NetworkError).maybeDelivered).toBe(true);
      expect((err as NetworkError).code).toBe('BUILDSYNC_NETWORK');
      expect((err as Error).message).toContain('the service may or may not have acted on it');
    }
    expect(s.requests.map((r) => r.method)).toEqual(['POST', 'POST']);
  });

  it('retries after the connection was refused', async () => {
    const port = await freePort();
    let acquired = 0;
    const gate: RequestGate = {
      acquire: async () => {
        acquired++;
        // The service comes up between the first and the second attempt.
        if (acquired === 2) await serve((_req, res) => json(res, 200, { ID: 31 }), port);
      },
      onRateLimited: async () => {},
    };
    const c = clientFor(`http://127.0.0.1:${port}`, { gate });
    expect((await c.createBill(bill)).id).toBe(31);
    expect(acquired).toBe(2);
    expect(servers[0]!.requests).toHaveLength(1);
  });

  it('reports a refused connection as not delivered once the retries are used up', async () => {
    const port = await freePort();
    const c = clientFor(`http://127.0.0.1:${port}`, { retries: 1 });
    const err = await c.createEstimate(estimate).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).maybeDelivered).toBe(false);
    expect((err as Error).message).toBe('POST /api/v2/estimates: could not connect to the service (ECONNREFUSED); nothing was sent');
  });
});

describe('429 answers go through the gate and do not use up retries', () => {
  it('calls acquire before every attempt, onRateLimited on 429 and onSuccess after', async () => {
    const events: string[] = [];
    const s = await serve((_req, res) => {
      events.push(`server ${s.requests.length}`);
      if (s.requests.length <= 2) json(res, 429, { Message: 'Hourly limit; try again in 2 seconds' });
      else json(res, 200, { ID: 5 });
    });
    const gate: RequestGate = {
      acquire: async () => void events.push('acquire'),
      onRateLimited: async (err) => void events.push(`rateLimited ${err.retryAfterMs} ${err.window}`),
      onSuccess: () => void events.push('success'),
    };
    const c = clientFor(s.url, { gate, retries: 0 });
    expect((await c.createEstimate(estimate)).id).toBe(5);
    expect(events).toEqual([
      'acquire',
      'server 1',
      'rateLimited 2000 hour',
      'acquire',
      'server 2',
      'rateLimited 2000 hour',
      'acquire',
      'server 3',
      'success',
    ]);
  });

  it('stops when the gate gives up', async () => {
    const s = await serve((_req, res) => json(res, 429, { Message: 'Daily limit' }));
    const gate: RequestGate = {
      acquire: async () => {},
      onRateLimited: async (err) => {
        throw err;
      },
    };
    const c = clientFor(s.url, { gate });
    const err = await c.createBill(bill).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).window).toBe('day');
    expect(s.requests).toHaveLength(1);
  });

  it('waits what the service asked when there is no gate, at most `retries` times', async () => {
    const s = await serve((_req, res) => (s.requests.length === 1 ? json(res, 429, {}, { 'retry-after': '0.2' }) : json(res, 200, { ID: 8 })));
    const c = clientFor(s.url);
    const started = Date.now();
    expect((await c.createEstimate(estimate)).id).toBe(8);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);

    const always = await serve((_req, res) => json(res, 429, { Message: 'slow down' }));
    const c2 = clientFor(always.url, { retries: 2 });
    await expect(collect(c2.listProjectsPaged({ pageSize: 5 }))).rejects.toBeInstanceOf(RateLimitError);
    expect(always.requests).toHaveLength(3);
  });

  it('stops waiting when the signal aborts', async () => {
    const s = await serve((_req, res) => json(res, 429, {}, { 'retry-after': '30' }));
    const c = clientFor(s.url);
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    await expect(collect(c.listProjectsV2({ includeClientSub: true, signal: abort.signal }))).rejects.toBeInstanceOf(InterruptedError);
  });
});

describe('the metrics hook sees every answer', () => {
  it('reports method, route, status and time', async () => {
    const s = await serve((req, res) => (req.url!.startsWith('/api/v2/est') ? json(res, 200, { ID: 1 }) : json(res, 200, [])));
    const seen: Array<{ method: string; route: string; status: number; ms: number }> = [];
    const c = clientFor(s.url, { onResponse: (info) => seen.push(info) });
    await c.createEstimate(estimate);
    await collect(c.listProjectsPaged({ pageSize: 3 }));
    await collect(c.listProjectsV2({ includeClientSub: false }));
    expect(seen.map(({ method, route, status }) => `${method} ${route} ${status}`)).toEqual([
      'POST estimates 200',
      'GET projects-paged 200',
      'GET projects-v2 200',
    ]);
    for (const info of seen) expect(info.ms).toBeGreaterThanOrEqual(0);
  });
});
