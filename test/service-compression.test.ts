/**
 * Seed §5: responses may be compressed with gzip, deflate or br. The client offering each one must
 * read listings, created records and error bodies alike.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../src/errors/index.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { authHeaders } from './sandbox-http.ts';
import { clientFor, collect, freeProjectIds } from './helpers/sandbox-client.ts';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ projects: 60, limits: 'none' });
});
afterAll(async () => {
  await sandbox.close();
});

describe.each(['gzip', 'deflate', 'br', 'identity'] as const)('Accept-Encoding: %s', (encoding) => {
  it('is what the sandbox answers with for that offer', async () => {
    const res = await request(`${sandbox.url}/api/v2/Projects?includeClientSub=true`, {
      headers: { ...authHeaders(sandbox.credentials), 'accept-encoding': encoding },
    });
    await res.body.dump();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe(encoding === 'identity' ? undefined : encoding);
  });

  it('the client reads both listings, a created record and an error body', async () => {
    const client = clientFor(sandbox, { acceptEncoding: encoding });
    try {
      const v2 = await collect(client.listProjectsV2({ includeClientSub: true }));
      expect(v2.map((p) => p.ID)).toEqual(sandbox.visibleProjectIds(sandbox.credentials.email, true));
      const paged = await collect(client.listProjectsPaged({ pageSize: 25 }));
      expect(paged.map((p) => p.ID)).toEqual(v2.map((p) => p.ID));

      const projectId = freeProjectIds(sandbox)[0]!;
      const created = await client.createEstimate({ NAME: `compressed ${encoding}`, PROJECT_ID: projectId });
      expect(sandbox.estimates().find((e) => e.id === created.id)!.record).toEqual(created.body);

      const err = await client.createBill({ PRJ_ID: 1, VENDOR_ID: 5, ITEMS: [{ NAME: 'x', RATE: '1' }] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NotFoundError);
      expect((err as NotFoundError).serviceMessage).toBe('Project 1 was not found.');
    } finally {
      await client.close();
    }
  });
});
