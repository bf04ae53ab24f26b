import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { call, freeProjectId, postBill } from './sandbox-http.ts';

describe('sandbox POST /api/Bills?Info=<json> (docs/service.md, Bills, §4.4)', () => {
  let sb: Sandbox;
  let projectId: number;
  /** The observed request shape: identifiers and RATE as strings of decimal text. */
  const observed = () => ({
    PRJ_ID: String(projectId), VENDOR_ID: '55', TITLE: 'INV-7, "rush"', DUE_DATE: '2024-03-05T00:00:00',
    RECIEVED_DATE: '2024-02-20T00:00:00', READY_FOR_PAYMENT: 'false', NOTES: 'Café — 北京 & co',
    ITEMS: [{ NAME: 'Drywall', RATE: '1250.00', QTY: '2', COST_CODE_ID: '12' }, { NAME: 'Paint', RATE: '99.95' }],
  });
  beforeAll(async () => {
    sb = await startSandbox({ limits: 'none' });
    projectId = freeProjectId(sb);
  });
  afterAll(() => sb.close());

  it('creates a bill from the observed shape and stores the raw Info string', async () => {
    const info = JSON.stringify(observed());
    const r = await postBill(sb, info);
    expect(r.status).toBe(200);
    expect(Number.isInteger(r.json.ID)).toBe(true);
    expect(r.json).toMatchObject({ PRJ_ID: projectId, VENDOR_ID: 55, READY_FOR_PAYMENT: false, TOTAL: 2599.95 });
    expect(r.json.ITEMS.map((i: Record<string, unknown>) => [i.NAME, i.RATE])).toEqual([['Drywall', 1250], ['Paint', 99.95]]);
    const stored = sb.bills().find((b) => b.id === r.json.ID)!;
    expect(stored.info).toBe(info);
    expect(stored.payload).toEqual(observed());
    expect(stored).toMatchObject({ projectId, email: 'demo@buildsync.test' });
  });

  it('accepts JSON numbers and booleans too', async () => {
    const r = await postBill(sb, { PRJ_ID: projectId, VENDOR_ID: 55, READY_FOR_PAYMENT: true, ITEMS: [{ NAME: 'x', RATE: 10 }] });
    expect(r.status).toBe(200);
    expect(r.json.READY_FOR_PAYMENT).toBe(true);
  });

  it('allows several bills on one project, each with a unique ID', async () => {
    const a = await postBill(sb, observed());
    const b = await postBill(sb, observed());
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.json.ID).not.toBe(b.json.ID);
  });

  const without = (key: string) => {
    const o: Record<string, unknown> = observed();
    delete o[key];
    return o;
  };
  it.each([
    ['PRJ_ID missing', () => without('PRJ_ID'), /PRJ_ID is required/],
    ['VENDOR_ID missing', () => without('VENDOR_ID'), /VENDOR_ID is required/],
    ['ITEMS missing', () => without('ITEMS'), /ITEMS is required/],
    ['ITEMS empty', () => ({ ...observed(), ITEMS: [] }), /non-empty array/],
    ['an item without NAME', () => ({ ...observed(), ITEMS: [{ RATE: '1.00' }] }), /ITEMS\[0\]\.NAME is required/],
    ['an item without RATE', () => ({ ...observed(), ITEMS: [{ NAME: 'x' }] }), /ITEMS\[0\]\.RATE is required/],
    ['a RATE that is not decimal', () => ({ ...observed(), ITEMS: [{ NAME: 'x', RATE: '12,50' }] }), /RATE must be a decimal/],
    ['a PRJ_ID that is not an integer', () => ({ ...observed(), PRJ_ID: 'P-12' }), /PRJ_ID must be a positive integer/],
    ['a date with a zone', () => ({ ...observed(), DUE_DATE: '2024-03-05T00:00:00Z' }), /DUE_DATE must be an ISO 8601 date-time without zone/],
    ['a boolean that is not true or false', () => ({ ...observed(), ACTIVE: 'yes' }), /ACTIVE must be true or false/],
  ])('answers 400 for %s, storing nothing', async (_label, make, message) => {
    const before = sb.bills().length;
    const r = await postBill(sb, make());
    expect(r.status).toBe(400);
    expect(r.json.Message).toMatch(message);
    expect(sb.bills()).toHaveLength(before);
  });

  it('answers 400 when Info is missing or not JSON', async () => {
    expect((await call(sb, 'POST', '/api/Bills')).json.Message).toMatch(/Info query parameter is required/);
    const r = await call(sb, 'POST', '/api/Bills?Info=%7Bnope');
    expect(r.status).toBe(400);
    expect(r.json.Message).toMatch(/not valid JSON/);
  });

  it('answers 404 for an unknown or deleted project, 400 for My Documents', async () => {
    for (const id of [99_999_999, sb.deletedProjectIds()[0]!]) {
      const r = await postBill(sb, { ...observed(), PRJ_ID: String(id) });
      expect(r.status).toBe(404);
      expect(r.json.Message).toBe(`Project ${id} was not found.`);
    }
    const docs = sb.visibleProjectIds(sb.credentials.email, true)[0]!;
    expect((await postBill(sb, { ...observed(), PRJ_ID: String(docs) })).status).toBe(400);
  });

  it('answers 414 for a request target over 8192 characters', async () => {
    const long = { ...observed(), NOTES: 'x'.repeat(9000) };
    const r = await postBill(sb, long);
    expect(r.status).toBe(414);
    expect(r.json.Message).toMatch(/at most 8192/);
  });
});
