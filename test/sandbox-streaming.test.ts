import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { authHeaders } from './sandbox-http.ts';

/**
 * The benchmark downloads 200,000 projects (about 400 MB of JSON): the listing must stream
 * with backpressure instead of building the body in memory. Its speed is the export benchmark's
 * (bench/), not a test's.
 *
 * @scale: whole suite only (not `npm run test:quick`).
 */
describe('sandbox streams a 200,000-project listing', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ projects: 200_000, limits: 'none' });
  });
  afterAll(() => sb.close());

  it('serves every visible record with a bounded heap', async () => {
    const expected = sb.visibleProjectIds(sb.credentials.email, true).length;
    expect(expected).toBeGreaterThan(200_000);
    const heapBefore = process.memoryUsage().heapUsed;
    let maxHeap = heapBefore;
    const sampler = setInterval(() => {
      maxHeap = Math.max(maxHeap, process.memoryUsage().heapUsed);
    }, 50);
    const res = await request(`${sb.url}/api/v2/Projects?includeClientSub=true`, { headers: authHeaders(sb.credentials) });
    expect(res.statusCode).toBe(200);
    let bytes = 0;
    let records = 0;
    let tail = '';
    let last = '';
    for await (const chunk of res.body) {
      const text = tail + (chunk as Buffer).toString('latin1'); // the marker is ASCII, so bytes suffice
      bytes += (chunk as Buffer).length;
      let at = text.indexOf('{"ID":');
      while (at !== -1) {
        records++;
        at = text.indexOf('{"ID":', at + 6);
      }
      tail = text.slice(-5);
      last = text.slice(-2);
    }
    clearInterval(sampler);
    expect(records).toBe(expected);
    expect(last.endsWith(']')).toBe(true);
    expect(bytes / records).toBeGreaterThan(1500); // realistic, ~2 KB records
    expect(maxHeap - heapBefore).toBeLessThan(200 * 1024 * 1024);
  }, 60_000);

  it('stops producing while the reader does not read', async () => {
    const res = await request(`${sb.url}/api/v2/Projects?includeClientSub=true`, { headers: authHeaders(sb.credentials) });
    const before = process.memoryUsage().heapUsed;
    await sleep(500);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(64 * 1024 * 1024);
    res.body.destroy();
  });
});
