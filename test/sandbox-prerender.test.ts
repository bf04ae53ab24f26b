import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { authHeaders } from './sandbox-http.ts';

/**
 * `prerender` (the benchmarks' sandbox) must serve exactly the bytes the generating sandbox
 * serves: a benchmark that measured a different listing would measure nothing.
 */
describe('a prerendered sandbox serves the same listings as a generating one', () => {
  let generating: Sandbox;
  let prerendered: Sandbox;
  beforeAll(async () => {
    [generating, prerendered] = await Promise.all([
      startSandbox({ projects: 400, seed: 7, limits: 'none' }),
      startSandbox({ projects: 400, seed: 7, limits: 'none', prerender: true }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([generating.close(), prerendered.close()]);
  });

  async function body(sb: Sandbox, path: string, headers: Record<string, string> = {}, user = sb.credentials): Promise<Buffer> {
    const res = await request(`${sb.url}${path}`, { headers: { ...authHeaders(user), ...headers } });
    const bytes = Buffer.from(await res.body.arrayBuffer());
    return res.headers['content-encoding'] === 'gzip' ? gunzipSync(bytes) : bytes;
  }

  async function sameBoth(path: string, headers?: Record<string, string>): Promise<Buffer> {
    const [a, b] = await Promise.all([body(generating, path, headers), body(prerendered, path, headers)]);
    expect(b.equals(a)).toBe(true);
    return a;
  }

  it('byte for byte: v2 with and without client/sub projects, paged pages, gzip, another user', async () => {
    const all = await sameBoth('/api/v2/Projects?includeClientSub=true');
    expect((JSON.parse(all.toString()) as unknown[]).length).toBeGreaterThan(400);
    // Non-ASCII names (the special names) are in it: the byte offsets are UTF-8's.
    expect(all.toString()).toContain('北京');
    await sameBoth('/api/v2/Projects?includeClientSub=false');
    for (const [skip, take] of [[0, 1], [0, 37], [37, 100], [395, 1000], [5000, 10]]) {
      await sameBoth(`/api/Projects?skip=${skip}&take=${take}`);
    }
    await sameBoth('/api/v2/Projects?includeClientSub=true', { 'accept-encoding': 'gzip' });
    const other = generating.users[2]!;
    const [a, b] = await Promise.all([
      body(generating, '/api/v2/Projects?includeClientSub=true', {}, other),
      body(prerendered, '/api/v2/Projects?includeClientSub=true', {}, prerendered.users[2]!),
    ]);
    expect(b.equals(a)).toBe(true);
  });

  it('after projects are edited, added and deleted', async () => {
    const ids = generating.visibleProjectIds(generating.credentials.email, false);
    for (const sb of [generating, prerendered]) {
      sb.editProject(ids[5]!, { NAME: 'Renamed — Ω' });
      sb.deleteProject(ids[9]!);
      sb.addProject({ NAME: 'Added between', ID: ids[20]! + 1 });
      sb.addProject({ NAME: 'Added last' });
    }
    const all = (await sameBoth('/api/v2/Projects?includeClientSub=true')).toString();
    expect(all).toContain('Renamed — Ω');
    expect(all).toContain('Added between');
    expect(all).not.toContain(`{"ID":${ids[9]},`);
    await sameBoth('/api/Projects?skip=3&take=30');
  });

  it('a listing cut by the fault ends after the same bytes', async () => {
    for (const sb of [generating, prerendered]) sb.setFaults({ cutListingsAfter: 25 });
    try {
      const cut = async (sb: Sandbox) => {
        const res = await request(`${sb.url}/api/v2/Projects?includeClientSub=true`, { headers: authHeaders(sb.credentials) });
        const chunks: Buffer[] = [];
        await expect(
          (async () => {
            for await (const c of res.body) chunks.push(c as Buffer);
          })(),
        ).rejects.toThrow();
        return Buffer.concat(chunks);
      };
      const [a, b] = await Promise.all([cut(generating), cut(prerendered)]);
      expect(b.toString()).toBe(a.toString());
      expect(a.toString().match(/\{"ID":/g)).toHaveLength(25);
    } finally {
      for (const sb of [generating, prerendered]) sb.setFaults({});
    }
  });
});
