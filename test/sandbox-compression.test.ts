import zlib from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { authHeaders } from './sandbox-http.ts';

describe('sandbox response compression (docs/service.md, Authentication: gzip, deflate, br by Accept-Encoding)', () => {
  let sb: Sandbox;
  let expected: number[];
  beforeAll(async () => {
    sb = await startSandbox({ limits: 'none', projects: 300 });
    expected = sb.visibleProjectIds(sb.credentials.email, true);
  });
  afterAll(() => sb.close());

  const fetchRaw = async (path: string, acceptEncoding?: string) => {
    const headers = authHeaders(sb.credentials);
    if (acceptEncoding !== undefined) headers['accept-encoding'] = acceptEncoding;
    const res = await request(`${sb.url}${path}`, { headers });
    return { status: res.statusCode, encoding: res.headers['content-encoding'], vary: res.headers.vary, body: Buffer.from(await res.body.arrayBuffer()) };
  };
  const listing = '/api/v2/Projects?includeClientSub=true';
  const decoders: Record<string, (b: Buffer) => Buffer> = {
    gzip: zlib.gunzipSync, deflate: zlib.inflateSync, br: zlib.brotliDecompressSync,
  };

  it.each(['gzip', 'deflate', 'br'])('streams the listing as %s, decoding to the full array', async (enc) => {
    const r = await fetchRaw(listing, enc);
    expect(r.status).toBe(200);
    expect(r.encoding).toBe(enc);
    expect(r.vary).toMatch(/Accept-Encoding/);
    const projects = JSON.parse(decoders[enc]!(r.body).toString('utf8'));
    expect(projects.map((p: { ID: number }) => p.ID)).toEqual(expected);
  });

  it.each(['gzip', 'deflate', 'br'])('compresses error bodies too (%s)', async (enc) => {
    const r = await fetchRaw('/api/Projects?skip=1', enc);
    expect(r.status).toBe(400);
    expect(r.encoding).toBe(enc);
    expect(JSON.parse(decoders[enc]!(r.body).toString('utf8')).Message).toMatch(/take is missing/);
  });

  it('answers identity without Accept-Encoding, and honours q=0', async () => {
    const plain = await fetchRaw(listing);
    expect(plain.encoding).toBeUndefined();
    expect(JSON.parse(plain.body.toString('utf8'))).toHaveLength(expected.length);
    expect((await fetchRaw(listing, 'br;q=0, gzip;q=0, deflate;q=0')).encoding).toBeUndefined();
    expect((await fetchRaw(listing, 'gzip, deflate, br')).encoding).toBe('br');
    expect((await fetchRaw(listing, 'br;q=0.5, gzip')).encoding).toBe('gzip');
  });
});
