import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { authHeaders, call } from './sandbox-http.ts';

describe('sandbox authentication (docs/service.md, Authentication: Basic + APIKey on every request)', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(() => sb.close());

  const listing = '/api/v2/Projects?includeClientSub=true';

  it('uses the documented fixed credentials for the main user', () => {
    expect(sb.credentials).toEqual({ email: 'demo@buildsync.test', password: 'sandbox-password', apiKey: 'sandbox-api-key' });
    expect(sb.users[0]).toEqual(sb.credentials);
    expect(sb.users.length).toBeGreaterThanOrEqual(2);
  });

  it('answers 200 with the right credentials', async () => {
    expect((await call(sb, 'GET', listing)).status).toBe(200);
  });

  it('answers 401 with a JSON Message when Basic credentials are missing', async () => {
    const r = await call(sb, 'GET', listing, { creds: null, headers: { apikey: sb.credentials.apiKey } });
    expect(r.status).toBe(401);
    expect(r.headers['content-type']).toMatch(/application\/json/);
    expect(r.json.Message).toMatch(/Basic credentials are missing/);
  });

  it('answers 401 for a wrong password', async () => {
    const r = await call(sb, 'GET', listing, { creds: { ...sb.credentials, password: 'nope' } });
    expect(r.status).toBe(401);
    expect(r.json.Message).toMatch(/e-mail address or password is wrong/);
    expect(r.text).not.toContain('nope');
  });

  it('answers 401 for an unknown e-mail address', async () => {
    const r = await call(sb, 'GET', listing, { creds: { ...sb.credentials, email: 'ghost@buildsync.test' } });
    expect(r.status).toBe(401);
  });

  it('answers 401 when the APIKey header is missing', async () => {
    const headers = authHeaders(sb.credentials);
    delete headers.apikey;
    const r = await call(sb, 'GET', listing, { creds: null, headers });
    expect(r.status).toBe(401);
    expect(r.json.Message).toMatch(/APIKey header is missing/);
  });

  it("answers 401 for a wrong API key, including another user's key", async () => {
    const other = sb.users[2]!;
    for (const apiKey of ['wrong-key', other.apiKey]) {
      const r = await call(sb, 'GET', listing, { creds: { ...sb.credentials, apiKey } });
      expect(r.status).toBe(401);
      expect(r.json.Message).toMatch(/API key is not valid/);
    }
  });

  it('checks credentials on every path, unknown ones and creates included', async () => {
    expect((await call(sb, 'GET', '/api/Nothing', { creds: null })).status).toBe(401);
    expect((await call(sb, 'POST', '/api/v2/estimates', { creds: null, body: '{}' })).status).toBe(401);
    expect((await call(sb, 'POST', '/api/Bills?Info=%7B%7D', { creds: null })).status).toBe(401);
  });

  it('logs refused requests without a user', async () => {
    sb.resetCounters();
    await call(sb, 'GET', listing, { creds: null });
    await call(sb, 'GET', listing);
    const log = sb.requests();
    expect(log.map((e) => [e.email, e.status, e.path])).toEqual([
      [null, 401, listing],
      ['demo@buildsync.test', 200, listing],
    ]);
  });
});
