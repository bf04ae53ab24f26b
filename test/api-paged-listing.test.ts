import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/errors/index.ts';
import { type ProjectRecord, ServiceClient } from '../src/api/index.ts';
import { pageOverlap } from '../src/api/paged-listing.ts';
import { CREDENTIALS, type TestServer, json, project, startServer } from './api-test-server.ts';

let server: TestServer | undefined;
let client: ServiceClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

/** Deterministic pseudo-random numbers (mulberry32), so a failure can be replayed. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A listing ordered by ID that changes between page requests: before every page after the first,
 * `mutate` may delete and insert records anywhere, in particular before the read position.
 */
async function startChangingListing(initial: number[], mutate: (ids: number[], requestNo: number, skip: number) => void) {
  const ids = [...initial].sort((a, b) => a - b);
  const s = await startServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    const skip = Number(url.searchParams.get('skip'));
    const take = Number(url.searchParams.get('take'));
    if (!url.searchParams.has('skip') || !url.searchParams.has('take')) return json(res, 400, { Message: 'skip and take are required' });
    if (s.requests.length > 1) {
      mutate(ids, s.requests.length, skip);
      ids.sort((a, b) => a - b);
    }
    json(res, 200, ids.slice(skip, skip + take).map((id) => project(id)));
  });
  return { server: s, ids };
}

async function readAll(s: TestServer, pageSize: number): Promise<ProjectRecord[]> {
  client = new ServiceClient({ baseUrl: s.url, ...CREDENTIALS });
  const out: ProjectRecord[] = [];
  for await (const p of client.listProjectsPaged({ pageSize })) out.push(p);
  return out;
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('the paged listing yields every project once while pages shift', () => {
  it('reads an unchanging listing with overlapping pages and stops at the short page', async () => {
    const { server: s } = await startChangingListing(range(1, 96), () => {});
    server = s;
    const got = await readAll(s, 20);
    expect(got.map((p) => p.ID)).toEqual(range(1, 96));
    const overlap = pageOverlap(20);
    expect(s.requests.map((r) => r.url)).toEqual(
      [0, 1, 2, 3, 4].map((k) => `/api/Projects?skip=${k * (20 - overlap)}&take=20`),
    );
  });

  it('reads an empty listing with one request', async () => {
    const { server: s } = await startChangingListing([], () => {});
    server = s;
    expect(await readAll(s, 50)).toEqual([]);
    expect(s.requests).toHaveLength(1);
  });

  it.each([1, 2, 3, 4, 5, 6])('survives random inserts and deletes before and after the read position (seed %i)', async (seed) => {
    const random = rng(seed);
    const initial = range(1, 600).map((i) => i * 10);
    const deleted = new Set<number>();
    const inserted = new Set<number>();
    const { server: s, ids } = await startChangingListing(initial, (list, _n, skip) => {
      // Deletions, often many before the read position: more than a page's overlap.
      const deletions = Math.floor(random() * 30);
      for (let k = 0; k < deletions && list.length > 0; k++) {
        const before = random() < 0.7;
        const limit = before ? Math.max(1, Math.min(skip, list.length)) : list.length;
        const at = Math.floor(random() * limit);
        deleted.add(list[at]!);
        list.splice(at, 1);
      }
      // Insertions anywhere (fresh IDs that fall between existing ones).
      const insertions = Math.floor(random() * 30);
      for (let k = 0; k < insertions; k++) {
        const id = Math.floor(random() * 6000) * 10 + 1 + Math.floor(random() * 9);
        if (!list.includes(id)) {
          list.push(id);
          inserted.add(id);
        }
      }
    });
    server = s;
    const got = (await readAll(s, 25)).map((p) => p.ID);

    expect(new Set(got).size).toBe(got.length);
    const stillPresent = initial.filter((id) => !deleted.has(id));
    const gotSet = new Set(got);
    expect(stillPresent.filter((id) => !gotSet.has(id))).toEqual([]);
    // Nothing invented: each yielded ID existed at some point.
    for (const id of got) expect(initial.includes(id) || inserted.has(id)).toBe(true);
    expect(ids.length).toBeGreaterThan(0);
  });

  it('steps back when a deletion shifts the listing by more than a page', async () => {
    let deletedOnce = false;
    const { server: s } = await startChangingListing(range(1, 201), (list, n) => {
      if (n === 3 && !deletedOnce) {
        deletedOnce = true;
        list.splice(0, 60); // 60 records before the read position vanish at once
      }
    });
    server = s;
    const got = (await readAll(s, 20)).map((p) => p.ID);
    // 1..39 were read before the deletion; every survivor (61..200) is read after it, none twice.
    expect(got).toEqual([...range(1, 40), ...range(61, 201)]);
    // Request 3 found no known record at skip 38, so the reader stepped back to 19 and then to 0.
    expect(s.requests.slice(0, 5).map((r) => r.url)).toEqual([
      '/api/Projects?skip=0&take=20',
      '/api/Projects?skip=19&take=20',
      '/api/Projects?skip=38&take=20',
      '/api/Projects?skip=19&take=20',
      '/api/Projects?skip=0&take=20',
    ]);
  });

  it('accepts pages wrapped in an object', async () => {
    server = await startServer((req, res) => {
      const skip = Number(new URL(req.url!, 'http://x').searchParams.get('skip'));
      json(res, 200, { Data: range(1, 8).slice(skip, skip + 5).map((id) => project(id)), Count: 7 });
    });
    expect((await readAll(server, 5)).map((p) => p.ID)).toEqual(range(1, 8));
  });

  it('refuses a page size below 2 (pages must overlap)', async () => {
    server = await startServer((_req, res) => json(res, 200, []));
    client = new ServiceClient({ baseUrl: server.url, ...CREDENTIALS });
    const it = client.listProjectsPaged({ pageSize: 1 })[Symbol.asyncIterator]();
    await expect(it.next()).rejects.toThrow(ConfigError);
    await expect(client.listProjectsPaged({ pageSize: 0 })[Symbol.asyncIterator]().next()).rejects.toThrow(
      'page size must be an integer of at least 2 (pages overlap by one record or more to notice deletions), got 0',
    );
    expect(server.requests).toHaveLength(0);
  });
});
