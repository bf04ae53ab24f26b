import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { call, freeProjectId, postEstimate } from './sandbox-http.ts';

describe('sandbox POST /api/v2/estimates (docs/service.md, Estimates, §4.3)', () => {
  let sb: Sandbox;
  let next = 0;
  const fresh = () => freeProjectId(sb, next++);
  beforeAll(async () => {
    sb = await startSandbox({ limits: 'none' });
  });
  afterAll(() => sb.close());

  it('creates an estimate: 200, a numeric ID, flags false by default, five default markup rows', async () => {
    const projectId = fresh();
    const r = await postEstimate(sb, { NAME: 'Kitchen remodel', PROJECT_ID: projectId });
    expect(r.status).toBe(200);
    expect(Number.isInteger(r.json.ID)).toBe(true);
    expect(r.json).toMatchObject({ NAME: 'Kitchen remodel', PROJECT_ID: projectId, ADVANCED_ESTIMATE: false, FIVE_COLUMN_ESTIMATE: false });
    expect(r.json.COMS.map((c: { NAME: string }) => c.NAME)).toEqual([
      'Company Overhead', 'Company Margin', 'Contingency', 'Other 1', 'Other 2',
    ]);
    const stored = sb.estimates().find((e) => e.id === r.json.ID)!;
    expect(stored).toMatchObject({ projectId, email: 'demo@buildsync.test', payload: { NAME: 'Kitchen remodel', PROJECT_ID: projectId } });
    expect(sb.projectIdsWithEstimate()).toContain(projectId);
  });

  it('creates only the supplied markup rows when COMS is given, none for an empty COMS', async () => {
    const coms = [{ NAME: 'Overhead', VALUE: 10, MARKUP_TYPE: 0 }, { NAME: 'Fee', VALUE: 5.5, MARKUP_TYPE: 1 }];
    const r = await postEstimate(sb, { NAME: 'With markups', PROJECT_ID: fresh(), COMS: coms });
    expect(r.status).toBe(200);
    expect(r.json.COMS.map((c: Record<string, unknown>) => [c.NAME, c.VALUE, c.MARKUP_TYPE])).toEqual([['Overhead', 10, 0], ['Fee', 5.5, 1]]);
    const empty = await postEstimate(sb, { NAME: 'No markups', PROJECT_ID: fresh(), COMS: [] });
    expect(empty.json.COMS).toEqual([]);
  });

  it('keeps the nested categories, subcategories and items it was given', async () => {
    const payload = {
      NAME: 'Nested', PROJECT_ID: fresh(), ADVANCED_ESTIMATE: true, TOTAL_PRICE: 1234.5,
      CATS: [{ NAME: 'Sitework', SUBCATS: [{ NAME: 'Grading', QTY: 2, UNIT_COST: 100, ITEMS: [{ NAME: 'Excavator', RATE: 95.5 }] }] }],
    };
    const r = await postEstimate(sb, payload);
    expect(r.status).toBe(200);
    expect(r.json.ADVANCED_ESTIMATE).toBe(true);
    expect(r.json.CATS[0].NAME).toBe('Sitework');
    expect(r.json.CATS[0].SUBCATS[0]).toMatchObject({ NAME: 'Grading', QTY: 2, UNIT_COST: 100 });
    expect(r.json.CATS[0].SUBCATS[0].ITEMS[0]).toMatchObject({ NAME: 'Excavator', RATE: 95.5 });
  });

  it.each([
    ['NAME missing', { PROJECT_ID: 1 }, /NAME is required/],
    ['NAME empty', { NAME: '  ', PROJECT_ID: 1 }, /NAME is required/],
    ['PROJECT_ID missing', { NAME: 'x' }, /PROJECT_ID is required/],
    ['PROJECT_ID not an integer', { NAME: 'x', PROJECT_ID: 'abc' }, /PROJECT_ID must be a positive integer/],
    ['category NAME missing', { NAME: 'x', PROJECT_ID: 1, CATS: [{ DESCRIPTION: 'd' }] }, /CATS\[0\]\.NAME is required/],
    ['subcategory NAME missing', { NAME: 'x', PROJECT_ID: 1, CATS: [{ NAME: 'c', SUBCATS: [{ QTY: 1 }] }] }, /CATS\[0\]\.SUBCATS\[0\]\.NAME is required/],
    ['item NAME missing', { NAME: 'x', PROJECT_ID: 1, CATS: [{ NAME: 'c', SUBCATS: [{ NAME: 's', ITEMS: [{ NAME: 'i' }, { RATE: 2 }] }] }] }, /SUBCATS\[0\]\.ITEMS\[1\]\.NAME is required/],
    ['a numeric field that is not a number', { NAME: 'x', PROJECT_ID: 1, CATS: [{ NAME: 'c', SUBCATS: [{ NAME: 's', QTY: 'lots' }] }] }, /QTY must be a decimal number/],
    ['a body that is not an object', [1, 2], /JSON object/],
  ])('answers 400 for %s, storing nothing', async (_label, payload, message) => {
    const before = sb.estimates().length;
    const r = await postEstimate(sb, payload);
    expect(r.status).toBe(400);
    expect(r.json.Message).toMatch(message);
    expect(sb.estimates()).toHaveLength(before);
  });

  it('answers 400 for a body that is not JSON and 415 for another media type', async () => {
    expect((await call(sb, 'POST', '/api/v2/estimates', { body: '{"NAME":' })).status).toBe(400);
    const r = await call(sb, 'POST', '/api/v2/estimates', { body: 'NAME=x', headers: { 'content-type': 'text/plain' } });
    expect(r.status).toBe(415);
    expect(r.json.Message).toMatch(/text\/plain/);
  });

  it('answers 404 for an unknown project, a deleted one, and one of another company', async () => {
    const deleted = sb.deletedProjectIds()[0]!;
    const hidden = sb.visibleProjectIds('pm@northgate.test', false).find(
      (id) => !sb.visibleProjectIds(sb.credentials.email, true).includes(id),
    )!;
    for (const id of [99_999_999, deleted, hidden]) {
      const r = await postEstimate(sb, { NAME: 'x', PROJECT_ID: id });
      expect(r.status).toBe(404);
      expect(r.json.Message).toBe(`Project ${id} was not found.`);
    }
  });

  it('refuses a My Documents record with 400', async () => {
    const docs = sb.visibleProjectIds(sb.credentials.email, true)[0]!;
    const r = await postEstimate(sb, { NAME: 'x', PROJECT_ID: docs });
    expect(r.status).toBe(400);
    expect(r.json.Message).toMatch(/My Documents/);
  });

  it('allows one estimate per project: a second one is 400 saying an estimate already exists', async () => {
    const projectId = fresh();
    expect((await postEstimate(sb, { NAME: 'First', PROJECT_ID: projectId })).status).toBe(200);
    const r = await postEstimate(sb, { NAME: 'Second', PROJECT_ID: projectId });
    expect(r.status).toBe(400);
    expect(r.json.Message).toMatch(/already exists/);
    expect(sb.estimates().filter((e) => e.projectId === projectId)).toHaveLength(1);
  });

  it('has projects that already hold an estimate in the dataset', async () => {
    const seeded = sb.projectIdsWithEstimate().find((id) => !sb.estimates().some((e) => e.projectId === id))!;
    expect(seeded).toBeDefined();
    const r = await postEstimate(sb, { NAME: 'x', PROJECT_ID: seeded });
    expect(r.status).toBe(400);
    expect(r.json.Message).toMatch(/already exists/);
  });

  it('gives every estimate a unique ID, also across users', async () => {
    const colleague = sb.users.find((u) => u.email === 'estimator@buildsync.test')!;
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push((await postEstimate(sb, { NAME: `E${i}`, PROJECT_ID: fresh() }, i % 2 ? colleague : undefined)).json.ID);
    expect(new Set(ids).size).toBe(4);
    expect(ids.every((id) => Number.isInteger(id))).toBe(true);
  });

  it('allows an estimate on a client/subcontractor project of another company', async () => {
    const own = new Set(sb.visibleProjectIds(sb.credentials.email, false));
    const shared = sb.visibleProjectIds(sb.credentials.email, true).find((id) => !own.has(id))!;
    expect((await postEstimate(sb, { NAME: 'Shared', PROJECT_ID: shared })).status).toBe(200);
  });
});
