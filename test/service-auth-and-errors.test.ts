/**
 * Seed §5 (HTTP Basic + APIKey on every request) and §7 (error statuses and the unknown-controller
 * body) through the real client, and raw requests for what the client never sends.
 */
import { inspect } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError } from '../src/errors/index.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { authHeaders } from './sandbox-http.ts';
import { clientFor, collect, freeProjectIds, requestsTo } from './helpers/sandbox-client.ts';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ projects: 20, limits: 'none' });
});
afterAll(async () => {
  await sandbox.close();
});

const WRONG_PASSWORD = 'wrong-password-Zq81';
const WRONG_KEY = 'wrong-api-key-Kx42';

function expectNoSecret(err: unknown, secrets: string[]): void {
  const texts = [(err as Error).message, JSON.stringify(err), inspect(err, { depth: 5 }), String(err)];
  for (const text of texts) for (const secret of secrets) expect(text).not.toContain(secret);
}

describe('credentials (docs/service.md, Authentication)', () => {
  it.each([
    ['a wrong password', { password: WRONG_PASSWORD }, 'the e-mail address or password is wrong'],
    ['a wrong API key', { apiKey: WRONG_KEY }, 'the API key is not valid for this account'],
    ["another user's API key", { apiKey: 'estimator-api-key' }, 'the API key is not valid for this account'],
  ])('%s is an AuthError (BUILDSYNC_HTTP_401) that names no secret, on listings and creates', async (_what, override, reason) => {
    const creds = { ...sandbox.credentials, ...override };
    const client = clientFor(sandbox, { creds });
    try {
      for (const attempt of [
        () => collect(client.listProjectsV2({ includeClientSub: true })),
        () => collect(client.listProjectsPaged({ pageSize: 10 })),
        () => client.createEstimate({ NAME: 'x', PROJECT_ID: freeProjectIds(sandbox)[0]! }),
        () => client.createBill({ PRJ_ID: freeProjectIds(sandbox)[0]!, VENDOR_ID: 5, ITEMS: [{ NAME: 'x', RATE: '1' }] }),
      ]) {
        const before = sandbox.requests().length;
        const err = await attempt().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(AuthError);
        expect((err as AuthError).code).toBe('BUILDSYNC_HTTP_401');
        expect((err as AuthError).status).toBe(401);
        expect((err as AuthError).serviceMessage).toBe(`Authorization has been denied for this request: ${reason}.`);
        expectNoSecret(err, [creds.password, creds.apiKey, sandbox.credentials.password, sandbox.credentials.apiKey]);
        // Not retried: one request, answered 401.
        expect(sandbox.requests().slice(before).map((r) => r.status)).toEqual([401]);
      }
      expect(sandbox.estimates()).toHaveLength(0);
      expect(sandbox.bills()).toHaveLength(0);
    } finally {
      await client.close();
    }
  });

  it('the right credentials of another user list that user\'s projects', async () => {
    const colleague = sandbox.users[1]!;
    const client = clientFor(sandbox, { creds: colleague });
    try {
      const listed = await collect(client.listProjectsV2({ includeClientSub: true }));
      expect(listed.map((p) => p.ID)).toEqual(sandbox.visibleProjectIds(colleague.email, true));
      expect(listed.map((p) => p.ID)).not.toEqual(sandbox.visibleProjectIds(sandbox.credentials.email, true));
    } finally {
      await client.close();
    }
  });
});

describe('errors (docs/service.md, Errors, §8)', () => {
  it('an unknown controller path answers 404 with Message and MessageDetail', async () => {
    const res = await request(`${sandbox.url}/api/Nope?x=1`, { headers: authHeaders(sandbox.credentials) });
    const body = (await res.body.json()) as Record<string, unknown>;
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(body).toEqual({
      Message: `No HTTP resource was found that matches the request URI '${sandbox.url}/api/Nope?x=1'.`,
      MessageDetail: "No type was found that matches the controller named 'Nope'.",
    });
  });

  it.each(['skip=0', 'take=5', ''])('the paged listing with only "%s" is 400 with a JSON Message (both are required)', async (query) => {
    const res = await request(`${sandbox.url}/api/Projects?${query}`, { headers: authHeaders(sandbox.credentials) });
    const body = (await res.body.json()) as { Message?: unknown };
    expect(res.statusCode).toBe(400);
    expect(typeof body.Message).toBe('string');
    expect(body.Message).toMatch(/skip|take/);
  });

  it.each(['', '?includeClientSub=maybe'])('v2 without a true/false includeClientSub ("%s") is 400', async (query) => {
    const res = await request(`${sandbox.url}/api/v2/Projects${query}`, { headers: authHeaders(sandbox.credentials) });
    const body = (await res.body.json()) as { Message?: unknown };
    expect(res.statusCode).toBe(400);
    expect(body.Message).toMatch(/includeClientSub/);
  });

  it('the client always sends both skip and take', async () => {
    const client = clientFor(sandbox);
    try {
      const before = requestsTo(sandbox, 'GET', '/api/Projects?').length;
      await collect(client.listProjectsPaged({ pageSize: 4 }));
      const sent = requestsTo(sandbox, 'GET', '/api/Projects?').slice(before);
      expect(sent.length).toBeGreaterThan(3);
      for (const r of sent) {
        const q = new URL(r.path, 'http://x').searchParams;
        expect(Number.isInteger(Number(q.get('skip')))).toBe(true);
        expect(q.get('take')).toBe('4');
      }
    } finally {
      await client.close();
    }
  });
});
