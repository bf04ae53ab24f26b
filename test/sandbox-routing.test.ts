import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { call } from './sandbox-http.ts';

describe('sandbox routing (docs/service.md, Errors: unknown controller, §9: versioned paths)', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ limits: 'none' });
  });
  afterAll(() => sb.close());

  it('answers 404 with Message and MessageDetail for an unknown controller', async () => {
    const r = await call(sb, 'GET', '/api/Invoices?x=1');
    expect(r.status).toBe(404);
    expect(r.json).toEqual({
      Message: `No HTTP resource was found that matches the request URI '${sb.url}/api/Invoices?x=1'.`,
      MessageDetail: "No type was found that matches the controller named 'Invoices'.",
    });
  });

  it('names the controller after the version segment', async () => {
    const r = await call(sb, 'POST', '/api/v2/Bills?Info=%7B%7D');
    expect(r.status).toBe(404);
    expect(r.json.MessageDetail).toBe("No type was found that matches the controller named 'Bills'.");
  });

  it('answers 404 with an action MessageDetail for an unknown path below a known controller', async () => {
    const r = await call(sb, 'GET', '/api/Projects/123');
    expect(r.status).toBe(404);
    expect(r.json.MessageDetail).toBe("No action was found on the controller 'Projects' that matches the request.");
  });

  it('answers 405 for a known path with another method', async () => {
    const r = await call(sb, 'GET', '/api/v2/estimates');
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('POST');
    expect(r.json.Message).toMatch(/does not support http method 'GET'/);
  });

  it('matches paths case-insensitively', async () => {
    expect((await call(sb, 'GET', '/API/V2/projects?includeClientSub=true')).status).toBe(200);
  });
});
