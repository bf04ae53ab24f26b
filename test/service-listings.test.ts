/**
 * Seed §4.1 / §4.2 / §1 through the real client against the real sandbox: who sees what, My
 * Documents first, and the paged listing reading the same set as v2 even while it changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/errors/index.ts';
import type { ServiceClient } from '../src/api/index.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { clientFor, collect, freeIdBetween, requestsTo } from './helpers/sandbox-client.ts';

let sandbox: Sandbox;
let client: ServiceClient;

beforeAll(async () => {
  sandbox = await startSandbox({ projects: 120, limits: 'none' });
  client = clientFor(sandbox);
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});

const ids = (records: { ID: number }[]) => records.map((r) => r.ID);

describe('GET /api/v2/Projects (docs/service.md, Projects listing (v2))', () => {
  it('with includeClientSub=true lists every visible project exactly once, in the sandbox order, and no deleted one', async () => {
    const email = sandbox.credentials.email;
    const listed = await collect(client.listProjectsV2({ includeClientSub: true }));
    expect(ids(listed)).toEqual(sandbox.visibleProjectIds(email, true));
    expect(new Set(ids(listed)).size).toBe(listed.length);
    const deleted = sandbox.deletedProjectIds();
    expect(deleted.length).toBeGreaterThan(0);
    for (const id of deleted) expect(ids(listed)).not.toContain(id);
    // The records are the sandbox's own, field for field.
    expect(listed[5]).toEqual(sandbox.project(listed[5]!.ID));
    expect(requestsTo(sandbox, 'GET', '/api/v2/Projects').at(-1)!.path).toBe('/api/v2/Projects?includeClientSub=true');
  });

  it('lists client/subcontractor projects of other companies only with includeClientSub=true', async () => {
    const withSub = await collect(client.listProjectsV2({ includeClientSub: true }));
    const without = await collect(client.listProjectsV2({ includeClientSub: false }));
    expect(ids(without)).toEqual(sandbox.visibleProjectIds(sandbox.credentials.email, false));

    const ownCompany = new Set(ids(without));
    const extra = withSub.filter((p) => !ownCompany.has(p.ID));
    // DECISIONS.md: the main user is client or subcontractor on 7 projects of companies 2 and 3.
    expect(extra).toHaveLength(7);
    for (const p of extra) expect([2, 3]).toContain(p.COMPANY_ID);
    for (const p of without) {
      if (p.NAME !== 'My Documents') expect(p.COMPANY_ID).toBe(1);
    }
    expect(ids(without).every((id) => ids(withSub).includes(id))).toBe(true);
  });

  it('puts the official My Documents first with the lowest ID, followed later by the stale ones (docs/service.md, Overview)', async () => {
    for (const includeClientSub of [true, false]) {
      const listed = await collect(client.listProjectsV2({ includeClientSub }));
      const myDocs = listed.filter((p) => p.NAME === 'My Documents');
      expect(myDocs.length).toBe(3);
      expect(listed[0]!.NAME).toBe('My Documents');
      expect(listed[0]!.COMPANY_ID).toBe(1);
      expect(listed[0]!.ID).toBe(Math.min(...ids(listed)));
      // The stale ones point at a company the user left and sit later in the ordering.
      for (const stale of myDocs.slice(1)) {
        expect(stale.COMPANY_ID).toBe(9);
        expect(stale.ID).toBeGreaterThan(listed[0]!.ID);
      }
    }
  });
});

describe('GET /api/Projects?skip&take (docs/service.md, Projects listing (paged))', () => {
  it.each([2, 7, 1000])('with page size %i reads the same set as v2 with includeClientSub=true', async (pageSize) => {
    const before = requestsTo(sandbox, 'GET', '/api/Projects?').length;
    const paged = await collect(client.listProjectsPaged({ pageSize }));
    const v2 = sandbox.visibleProjectIds(sandbox.credentials.email, true);
    expect(ids(paged)).toEqual(v2);
    expect(paged[0]!.NAME).toBe('My Documents');
    const sent = requestsTo(sandbox, 'GET', '/api/Projects?').slice(before);
    // Both parameters on every request (docs/service.md, Rate limits), take always the page size.
    for (const r of sent) expect(r.path).toMatch(new RegExp(`^/api/Projects\\?skip=\\d+&take=${pageSize}$`));
    expect(sent.every((r) => r.status === 200)).toBe(true);
  });

  it('refuses a page size of 1: pages must overlap by a record to notice deletions', async () => {
    const err = await collect(client.listProjectsPaged({ pageSize: 1 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(/page size must be an integer of at least 2/);
  });

  it.each([2, 7, 40])('with page size %i misses nothing and repeats nothing while projects are added and deleted between pages', async (pageSize) => {
    const email = sandbox.credentials.email;
    const start = sandbox.visibleProjectIds(email, true);
    const added: number[] = [];
    const seen: number[] = [];
    let n = 0;
    for await (const p of client.listProjectsPaged({ pageSize })) {
      seen.push(p.ID);
      n++;
      if (n % 3 !== 0) continue;
      // Shift the listing both ways behind the read position, and change what lies ahead.
      const now = sandbox.visibleProjectIds(email, true);
      const readable = now.filter((id) => seen.includes(id) && id !== now[0]);
      if (n % 6 === 0 && readable.length > 2) sandbox.deleteProject(readable[1]!);
      else if (seen.length > 3) {
        // Any free ID above the official My Documents and below the last one read.
        added.push(sandbox.addProject({ ID: freeIdBetween(sandbox, now[0]!, seen.at(-1)!), NAME: `added behind ${n}` }));
      }
      if (n % 9 === 0) {
        const ahead = now.filter((id) => !seen.includes(id));
        if (ahead.length > 1) sandbox.deleteProject(ahead[1]!);
      }
    }
    const end = new Set(sandbox.visibleProjectIds(email, true));
    expect(new Set(seen).size).toBe(seen.length);
    // Every project present from start to end appears.
    const missed = start.filter((id) => end.has(id) && !seen.includes(id));
    expect(missed).toEqual([]);
    // Nothing appears that never existed.
    const everVisible = new Set([...start, ...added]);
    expect(seen.filter((id) => !everVisible.has(id))).toEqual([]);
    // The test did change the listing on both sides of the read position.
    expect(added.length).toBeGreaterThan(0);
    expect(start.filter((id) => !end.has(id)).length).toBeGreaterThan(1);
  });
});
