import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AuthError,
  BadRequestError,
  HttpError,
  NotFoundError,
  RateLimitError,
  ServerError,
  UnexpectedStatusError,
} from '../src/errors/index.ts';
import { ServiceClient } from '../src/api/index.ts';
import { CREDENTIALS, type TestServer, freePort, json, startServer } from './api-test-server.ts';

let server: TestServer | undefined;
let client: ServiceClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

function clientFor(url: string, extra: Partial<ConstructorParameters<typeof ServiceClient>[0]> = {}): ServiceClient {
  client = new ServiceClient({ baseUrl: url, ...CREDENTIALS, retries: 0, retryBaseMs: 1, ...extra });
  return client;
}

async function firstError(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

async function drain(it: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of it);
}

const notFoundBody = {
  Message: "No HTTP resource was found that matches the request URI 'https://x/api/v2/estimates'.",
  MessageDetail: "No type was found that matches the controller named 'estimates'.",
};

describe('each non-2xx status becomes an error class with a stable code, the status and the body', () => {
  it.each([
    [400, { Message: 'skip and take are required' }, BadRequestError, 'BUILDSYNC_HTTP_400', 'GET /api/Projects was refused with 400 Bad Request: skip and take are required.'],
    [401, { Message: 'Authorization has been denied' }, AuthError, 'BUILDSYNC_HTTP_401', 'the service refused the credentials (401).'],
    [403, 'Forbidden', AuthError, 'BUILDSYNC_HTTP_401', 'the service refused the credentials (403).'],
    [404, notFoundBody, NotFoundError, 'BUILDSYNC_HTTP_404', `GET /api/Projects answered 404 Not Found: ${notFoundBody.Message}`],
    [429, { Message: 'Quota exceeded' }, RateLimitError, 'BUILDSYNC_HTTP_429', "the service's rate limit was exceeded"],
    [500, { Message: 'An error has occurred.' }, ServerError, 'BUILDSYNC_HTTP_5XX', "GET /api/Projects failed on the service's side (500): An error has occurred."],
    [503, '<html>down</html>', ServerError, 'BUILDSYNC_HTTP_5XX', "failed on the service's side (503): <html>down</html>"],
    [418, { Message: 'teapot' }, UnexpectedStatusError, 'BUILDSYNC_HTTP_OTHER', 'GET /api/Projects answered an unexpected status 418: teapot.'],
  ])('%i', async (status, body, cls, code, message) => {
    server = await startServer((_req, res) => json(res, status, body, { 'x-request-id': 'abc' }));
    const c = clientFor(server.url, { maxRetryAfterMs: 0 });
    const err = await firstError(() => drain(c.listProjectsPaged({ pageSize: 10 })));
    expect(err).toBeInstanceOf(cls);
    const e = err as HttpError;
    expect(e.code).toBe(code);
    expect(e.status).toBe(status);
    expect(e.body).toEqual(body);
    expect(e.method).toBe('GET');
    expect(e.path).toBe('/api/Projects?skip=0&take=10');
    expect(e.headers['x-request-id']).toBe('abc');
    expect(e.message).toContain(message);
  });

  it('reads a compressed error body and caps a huge one', async () => {
    server = await startServer((req, res) => {
      if (req.url!.startsWith('/api/v2')) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('x'.repeat(1_000_000));
      } else {
        const body = zlib.gzipSync(JSON.stringify({ Message: 'compressed detail' }));
        res.writeHead(400, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': body.length });
        res.end(body);
      }
    });
    const c = clientFor(server.url);
    const big = (await firstError(() => drain(c.listProjectsV2({ includeClientSub: true })))) as ServerError;
    expect(big).toBeInstanceOf(ServerError);
    expect((big.body as string).length).toBe(64 * 1024);
    const small = (await firstError(() => drain(c.listProjectsPaged({ pageSize: 5 })))) as BadRequestError;
    expect(small.body).toEqual({ Message: 'compressed detail' });
  });

  it('maps a create refused with 400 and names the path without the bill query', async () => {
    server = await startServer((_req, res) => json(res, 400, { Message: 'The project already has an estimate' }));
    const c = clientFor(server.url);
    const est = (await firstError(() => c.createEstimate({ NAME: 'E', PROJECT_ID: 3 }))) as BadRequestError;
    expect(est).toBeInstanceOf(BadRequestError);
    expect(est.serviceMessage).toBe('The project already has an estimate');
    const bill = (await firstError(() => c.createBill({ PRJ_ID: 3, VENDOR_ID: 4, ITEMS: [{ NAME: 'i', RATE: '1' }] }))) as BadRequestError;
    expect(bill.message).toContain('POST /api/Bills was refused with 400');
    expect(bill.path.startsWith('/api/Bills?Info=')).toBe(true);
  });
});

describe('a 429 carries the wait and the window the service named', () => {
  it('reads Retry-After seconds', async () => {
    server = await startServer((_req, res) => json(res, 429, { Message: 'Hourly limit exceeded' }, { 'retry-after': '120' }));
    const c = clientFor(server.url, { maxRetryAfterMs: 1000 });
    const err = (await firstError(() => c.createEstimate({ NAME: 'E', PROJECT_ID: 3 }))) as RateLimitError;
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryAfterMs).toBe(120_000);
    expect(err.window).toBe('hour');
    expect(err.message).toBe("the service's rate limit was exceeded (hour); it asks to wait 120 s. The tool waits and resumes; lower BUILDSYNC_LIMITS to avoid this.");
    // A wait longer than maxRetryAfterMs is handed back at once, not slept through.
    expect(server.requests).toHaveLength(1);
  });

  it('reads a wait written in the message', async () => {
    server = await startServer((_req, res) => json(res, 429, { Message: 'API calls quota exceeded for this month. Try again in 41 minutes.' }));
    const c = clientFor(server.url, { retries: 3 });
    const err = (await firstError(() => drain(c.listProjectsV2({ includeClientSub: true })))) as RateLimitError;
    expect(err.retryAfterMs).toBe(41 * 60_000);
    expect(err.window).toBe('month');
    expect(server.requests).toHaveLength(1);
  });
});

describe('credentials never appear in an error', () => {
  const secrets = [CREDENTIALS.password, CREDENTIALS.apiKey, Buffer.from(`${CREDENTIALS.email}:${CREDENTIALS.password}`).toString('base64')];

  function text(err: unknown): string {
    const e = err as Error & { cause?: unknown };
    const parts = [e.message, e.stack ?? '', String(e.cause ?? '')];
    try {
      parts.push(JSON.stringify(err));
    } catch {
      // circular causes (sockets) cannot be serialised; their message is covered above
    }
    return parts.join('\n');
  }

  it.each([401, 400, 500, 429])('in a %i', async (status) => {
    server = await startServer((_req, res) => json(res, status, { Message: 'denied', MessageDetail: 'fine' }));
    const c = clientFor(server.url, { maxRetryAfterMs: 0 });
    const err = await firstError(() => c.createEstimate({ NAME: 'E', PROJECT_ID: 3 }));
    for (const secret of secrets) expect(text(err)).not.toContain(secret);
  });

  it('in the client object itself, should it be logged', async () => {
    const { inspect } = await import('node:util');
    const c = clientFor('http://127.0.0.1:9');
    const shown = `${inspect(c, { depth: 10, showHidden: false })}${JSON.stringify(Object.keys(c))}`;
    for (const secret of secrets) expect(shown).not.toContain(secret);
  });

  it('in a connection failure', async () => {
    const port = await freePort();
    const c = clientFor(`http://127.0.0.1:${port}`);
    const err = await firstError(() => drain(c.listProjectsV2({ includeClientSub: true })));
    expect((err as Error).message).toContain('could not connect to the service (ECONNREFUSED)');
    for (const secret of secrets) expect(text(err)).not.toContain(secret);
  });
});
