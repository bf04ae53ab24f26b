import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { RecordInvalidError, ResponseInvalidError } from '../src/errors/index.ts';
import { ServiceClient } from '../src/api/index.ts';
import { type BillPayload, encodeBillInfo } from '../src/payloads/index.ts';
import { CREDENTIALS, type TestServer, json, project, startServer } from './api-test-server.ts';

let server: TestServer | undefined;
let client: ServiceClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

function clientFor(s: TestServer, extra: Partial<ConstructorParameters<typeof ServiceClient>[0]> = {}): ServiceClient {
  client = new ServiceClient({ baseUrl: s.url, ...CREDENTIALS, retryBaseMs: 1, ...extra });
  return client;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const projects = Array.from({ length: 25 }, (_, i) => project(i + 1, { SCOPE_OF_WORK: '%3Cp%3Eé–日本%3C%2Fp%3E'.repeat(i) }));

describe('every request carries the credentials and headers of docs/service.md, Authentication', () => {
  it('sends Basic, APIKey, Accept and Accept-Encoding', async () => {
    server = await startServer((_req, res) => json(res, 200, projects));
    const c = clientFor(server);
    await collect(c.listProjectsV2({ includeClientSub: true }));
    const h = server.requests[0]!.headers;
    expect(h.authorization).toBe(`Basic ${Buffer.from(`${CREDENTIALS.email}:${CREDENTIALS.password}`).toString('base64')}`);
    expect(h.apikey).toBe(CREDENTIALS.apiKey);
    expect(h.accept).toBe('application/json');
    expect(h['accept-encoding']).toBe('gzip, deflate, br');
    expect(server.requests[0]!.url).toBe('/api/v2/Projects?includeClientSub=true');
  });

  it('keeps a path prefix of the base URL', async () => {
    server = await startServer((_req, res) => json(res, 200, []));
    const c = new ServiceClient({ baseUrl: `${server.url}/tenant/`, ...CREDENTIALS });
    client = c;
    await collect(c.listProjectsV2({ includeClientSub: false }));
    expect(server.requests[0]!.url).toBe('/tenant/api/v2/Projects?includeClientSub=false');
  });
});

describe('compressed listings are decoded by Content-Encoding', () => {
  const body = Buffer.from(JSON.stringify(projects));
  it.each([
    ['gzip', zlib.gzipSync(body)],
    ['x-gzip', zlib.gzipSync(body)],
    ['deflate', zlib.deflateSync(body)],
    ['deflate', zlib.deflateRawSync(body)],
    ['br', zlib.brotliCompressSync(body)],
    ['identity', body],
  ])('%s', async (encoding, encoded) => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
      // Small writes so the decoder sees many chunks.
      for (let o = 0; o < encoded.length; o += 97) res.write(encoded.subarray(o, o + 97));
      res.end();
    });
    const c = clientFor(server);
    expect(await collect(c.listProjectsV2({ includeClientSub: true }))).toEqual(projects);
    expect(await collect(c.listProjectsPaged({ pageSize: 100 }))).toEqual(projects);
  });

  it('refuses a body that does not decompress, and an unknown encoding', async () => {
    server = await startServer((req, res) => {
      const enc = req.url!.includes('v2') ? 'gzip' : 'compress';
      res.writeHead(200, { 'content-encoding': enc });
      res.end('this is not gzip at all');
    });
    const c = clientFor(server, { retries: 0 });
    await expect(collect(c.listProjectsV2({ includeClientSub: true }))).rejects.toThrow(/GET \/api\/v2\/Projects: the response body could not be decompressed \(Z_DATA_ERROR\)/);
    await expect(collect(c.listProjectsPaged({ pageSize: 10 }))).rejects.toThrow("unsupported Content-Encoding 'compress'");
  });
});

describe('listings are accepted as a bare array or an object wrapping one', () => {
  it.each([
    ['bare array', projects],
    ['Data wrapper', { Data: projects, Total: projects.length }],
    ['any single array property', { meta: { page: 1 }, Projects: projects }],
  ])('%s', async (_name, body) => {
    server = await startServer((req, res) => {
      if (req.url!.startsWith('/api/Projects')) {
        const skip = Number(new URL(req.url!, 'http://x').searchParams.get('skip'));
        const take = Number(new URL(req.url!, 'http://x').searchParams.get('take'));
        const page = projects.slice(skip, skip + take);
        json(res, 200, Array.isArray(body) ? page : { ...body, Data: undefined, Projects: undefined, Items: page });
      } else {
        json(res, 200, body);
      }
    });
    const c = clientFor(server);
    expect(await collect(c.listProjectsV2({ includeClientSub: true }))).toEqual(projects);
    expect(await collect(c.listProjectsPaged({ pageSize: 10 }))).toEqual(projects);
  });

  it('names the index and field of an invalid record', async () => {
    server = await startServer((_req, res) => json(res, 200, [project(1), project(2), { ID: 3, NAME: 7 }]));
    const c = clientFor(server);
    const err = await collect(c.listProjectsV2({ includeClientSub: true })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseInvalidError);
    expect((err as Error).message).toMatch(/^project record 2 \(ID 3\) of the listing is invalid: field NAME: /);
  });
});

describe('createEstimate posts the payload as JSON to /api/v2/estimates (docs/service.md, Estimates)', () => {
  const estimate = { NAME: 'Kitchen', PROJECT_ID: 1042, CATS: [{ NAME: 'Cabinets', SUBCATS: [{ NAME: 'Uppers', QTY: 3, UNIT_COST: 99.5 }] }] };

  it('returns the new ID and the record', async () => {
    server = await startServer((_req, res) => json(res, 200, { ID: 9001, NAME: 'Kitchen', PROJECT_ID: 1042 }));
    const c = clientFor(server);
    const created = await c.createEstimate(estimate);
    expect(created).toEqual({ id: 9001, body: { ID: 9001, NAME: 'Kitchen', PROJECT_ID: 1042 } });
    const seen = server.requests[0]!;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/api/v2/estimates');
    expect(seen.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(seen.headers.apikey).toBe(CREDENTIALS.apiKey);
    expect(JSON.parse(seen.body)).toEqual(estimate);
  });

  it('refuses an invalid payload without sending it', async () => {
    server = await startServer((_req, res) => json(res, 200, { ID: 1 }));
    const c = clientFor(server);
    await expect(c.createEstimate({ NAME: '', PROJECT_ID: 5, CATS: [{}] } as never)).rejects.toThrow(RecordInvalidError);
    await expect(c.createEstimate({ NAME: '', PROJECT_ID: 5, CATS: [{}] } as never)).rejects.toThrow(/NAME: NAME is required.*CATS\[0\]\.NAME/);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a success answer without an integer ID', async () => {
    server = await startServer((_req, res) => json(res, 200, { NAME: 'Kitchen' }));
    const c = clientFor(server);
    const err = await c.createEstimate(estimate).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseInvalidError);
    expect((err as Error).message).toBe('creating an estimate: the service answered success but the created record has no integer ID (got {"NAME":"Kitchen"})');
  });
});

describe('createBill puts the bill in the Info query parameter of POST /api/Bills (docs/service.md, Bills)', () => {
  const bill: BillPayload = {
    PRJ_ID: 1042,
    VENDOR_ID: 55,
    TITLE: 'INV-7 & "friends" / 50% off?',
    READY_FOR_PAYMENT: true,
    INVOICE_DATE: '2024-03-01T00:00:00',
    ITEMS: [{ NAME: 'Cabinets', RATE: '1250.5', QTY: 2, COST_CODE_ID: 301 }, { NAME: 'Tip', RATE: '0.120' }],
  };

  it('sends no body and the bill field by field in the observed shape', async () => {
    server = await startServer((_req, res) => json(res, 200, { ID: 77, PRJ_ID: 1042 }));
    const c = clientFor(server);
    expect(await c.createBill(bill)).toEqual({ id: 77, body: { ID: 77, PRJ_ID: 1042 } });
    const seen = server.requests[0]!;
    expect(seen.method).toBe('POST');
    expect(seen.body).toBe('');
    // Some servers (IIS) answer 411 to a POST without a length.
    expect(seen.headers['content-length']).toBe('0');
    const url = new URL(seen.url, 'http://x');
    expect(url.pathname).toBe('/api/Bills');
    expect([...url.searchParams.keys()]).toEqual(['Info']);
    const info = JSON.parse(url.searchParams.get('Info')!);
    expect(info.PRJ_ID).toBe('1042');
    expect(info.VENDOR_ID).toBe('55');
    expect(info.TITLE).toBe('INV-7 & "friends" / 50% off?');
    expect(info.READY_FOR_PAYMENT).toBe('true');
    expect(info.INVOICE_DATE).toBe('2024-03-01T00:00:00');
    expect(info.ITEMS).toEqual([
      { NAME: 'Cabinets', RATE: '1250.50', COST_CODE_ID: '301', QTY: 2 },
      { NAME: 'Tip', RATE: '0.12' },
    ]);
    expect(url.searchParams.get('Info')).toBe(encodeBillInfo(bill));
    expect(c.billQueryLength(bill)).toBe(seen.url.length - '/api/Bills?'.length);
  });

  it('refuses a bill whose query string would pass 2,000 characters, without sending it', async () => {
    server = await startServer((_req, res) => json(res, 200, { ID: 1 }));
    const c = clientFor(server);
    const long = { ...bill, NOTES: 'ü'.repeat(400) };
    expect(c.billQueryLength(long)).toBeGreaterThan(2000);
    await expect(c.createBill(long)).rejects.toThrow(RecordInvalidError);
    await expect(c.createBill(long)).rejects.toThrow(/query string of \d+ characters; the limit is 2000/);
    expect(server.requests).toHaveLength(0);
  });
});
