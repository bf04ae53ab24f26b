import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { call } from './sandbox-http.ts';

describe('sandbox GET /api/Projects?skip&take (docs/service.md, Projects listing (paged))', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ projects: 120, limits: 'none' });
  });
  afterAll(() => sb.close());

  it.each([
    ['skip only', '?skip=0', /both required; take is missing/],
    ['take only', '?take=10', /both required; skip is missing/],
    ['neither', '', /skip and take are missing/],
    ['non-integer skip', '?skip=1.5&take=10', /skip query parameter must be a non-negative integer/],
    ['non-numeric take', '?skip=0&take=ten', /take query parameter must be a non-negative integer/],
    ['negative skip', '?skip=-1&take=10', /skip query parameter must be a non-negative integer/],
    ['empty take', '?skip=0&take=', /take query parameter must be a non-negative integer/],
    ['take above the maximum', '?skip=0&take=1001', /at most 1000/],
  ])('answers 400 with a JSON Message for %s', async (_label, query, message) => {
    const r = await call(sb, 'GET', `/api/Projects${query}`);
    expect(r.status).toBe(400);
    expect(r.json.Message).toMatch(message);
  });

  it('pages through the same set as v2 with client/sub projects, by ID, official My Documents first', async () => {
    const ids: number[] = [];
    for (let skip = 0; ; skip += 25) {
      const r = await call(sb, 'GET', `/api/Projects?skip=${skip}&take=25`);
      expect(r.status).toBe(200);
      expect(Array.isArray(r.json)).toBe(true);
      expect(r.json.length).toBeLessThanOrEqual(25);
      ids.push(...r.json.map((p: { ID: number }) => p.ID));
      if (r.json.length < 25) break;
    }
    expect(ids).toEqual(sb.visibleProjectIds(sb.credentials.email, true));
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    const first = sb.project(ids[0]!)!;
    expect(first.NAME).toBe('My Documents');
    expect(ids[0]).toBe(Math.min(...ids));
    const otherCompanies = ids.filter((id) => sb.project(id)!.COMPANY_ID !== 1 && sb.project(id)!.NAME !== 'My Documents');
    expect(otherCompanies.length).toBeGreaterThan(0);
  });

  it('takes at most `take` records after `skip` ones, and [] past the end', async () => {
    const all = sb.visibleProjectIds(sb.credentials.email, true);
    const r = await call(sb, 'GET', '/api/Projects?skip=3&take=4');
    expect(r.json.map((p: { ID: number }) => p.ID)).toEqual(all.slice(3, 7));
    expect((await call(sb, 'GET', `/api/Projects?skip=${all.length}&take=10`)).json).toEqual([]);
    expect((await call(sb, 'GET', '/api/Projects?skip=0&take=0')).json).toEqual([]);
  });

  it('binds skip and take case-insensitively', async () => {
    const r = await call(sb, 'GET', '/api/projects?SKIP=0&Take=2');
    expect(r.status).toBe(200);
    expect(r.json).toHaveLength(2);
  });

  it('shifts pages when a project is added or deleted between requests', async () => {
    const before = sb.visibleProjectIds(sb.credentials.email, true);
    const page2 = (await call(sb, 'GET', '/api/Projects?skip=10&take=5')).json.map((p: { ID: number }) => p.ID);
    sb.deleteProject(before[2]!);
    const after = (await call(sb, 'GET', '/api/Projects?skip=10&take=5')).json.map((p: { ID: number }) => p.ID);
    expect(after).toEqual([...page2.slice(1), before[15]]);
    // A free ID early in the ordering, so the new project lands before the page.
    const g = before.findIndex((id, k) => k > 2 && k < 9 && before[k + 1]! > id + 1 && sb.project(id + 1) === undefined);
    expect(g).toBeGreaterThan(2);
    const id = sb.addProject({ ID: before[g]! + 1, NAME: 'Inserted Early' });
    const shifted = (await call(sb, 'GET', '/api/Projects?skip=10&take=5')).json.map((p: { ID: number }) => p.ID);
    expect(shifted).toEqual(page2);
    expect(sb.visibleProjectIds(sb.credentials.email, true)[g]).toBe(id);
    expect(sb.project(id)!.NAME).toBe('Inserted Early');
  });
});
