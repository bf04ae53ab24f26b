/** Seed §2.2 / §4.3 (estimate creation) through the real client against the real sandbox. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../src/api/index.ts';
import type { EstimatePayload } from '../src/payloads/index.ts';
import { isEstimateExists } from '../src/import/index.ts';
import { BadRequestError, NotFoundError, RecordInvalidError } from '../src/errors/index.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { clientFor, freeProjectIds } from './helpers/sandbox-client.ts';

let sandbox: Sandbox;
let client: ServiceClient;
let free: number[];
const fresh = () => free.shift()!;

beforeAll(async () => {
  sandbox = await startSandbox({ projects: 40, limits: 'none' });
  client = clientFor(sandbox);
  free = freeProjectIds(sandbox);
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});

const DEFAULT_MARKUPS = ['Company Overhead', 'Company Margin', 'Contingency', 'Other 1', 'Other 2'];

describe('POST /api/v2/estimates (docs/service.md, Estimates)', () => {
  it('returns the new ID, and the sandbox stored exactly the payload sent (rule 7)', async () => {
    const payload: EstimatePayload = {
      NAME: 'Kitchen remodel',
      PROJECT_ID: fresh(),
      ADVANCED_ESTIMATE: true,
      FIVE_COLUMN_ESTIMATE: false,
      TOTAL_PRICE: 18250.75,
      CATS: [
        {
          NAME: 'Sitework',
          DESCRIPTION: 'Clearing, "grading" & fill',
          COST_CODE_ID: 4012,
          NOTES_GENERAL: 'line 1\nline 2',
          SUBCATS: [
            {
              NAME: 'Grading',
              QTY: 2.5,
              UNIT: 'day',
              UNIT_COST: 1200,
              LINE_ITEM_MARKUP: 10,
              ITEMS: [{ NAME: 'Excavator — 20 t', RATE: 95.5, QTY: 16, CLASSIFICATION: 2 }],
            },
          ],
        },
      ],
      COMS: [{ NAME: 'Overhead', VALUE: 12.5, MARKUP_TYPE: 0 }],
    };
    const before = sandbox.estimates().length;
    const { id, body } = await client.createEstimate(payload);
    expect(Number.isInteger(id)).toBe(true);
    expect((body as { ID: number }).ID).toBe(id);
    const stored = sandbox.estimates().slice(before);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.id).toBe(id);
    expect(stored[0]!.projectId).toBe(payload.PROJECT_ID);
    expect(stored[0]!.email).toBe(sandbox.credentials.email);
    expect(stored[0]!.payload).toEqual(payload);
    expect(stored[0]!.record).toEqual(body);
    expect(sandbox.projectIdsWithEstimate()).toContain(payload.PROJECT_ID);
  });

  it('gives every estimate a different ID', async () => {
    const created = await Promise.all([1, 2, 3, 4].map((n) => client.createEstimate({ NAME: `unique ${n}`, PROJECT_ID: fresh() })));
    expect(new Set(created.map((c) => c.id)).size).toBe(4);
  });

  it('omitted flags are false and omitted COMS yields the five default markup rows (rules 4, 5)', async () => {
    const projectId = fresh();
    const { body } = await client.createEstimate({ NAME: 'Defaults', PROJECT_ID: projectId });
    const record = body as { ADVANCED_ESTIMATE: unknown; FIVE_COLUMN_ESTIMATE: unknown; COMS: { NAME: string }[] };
    expect(record.ADVANCED_ESTIMATE).toBe(false);
    expect(record.FIVE_COLUMN_ESTIMATE).toBe(false);
    expect(record.COMS.map((c) => c.NAME)).toEqual(DEFAULT_MARKUPS);
    // The client did not fill them in itself: the payload sent had no COMS.
    expect(sandbox.estimates().at(-1)!.payload).toEqual({ NAME: 'Defaults', PROJECT_ID: projectId });
  });

  it('supplied COMS yields only those rows, an empty COMS none (rule 5)', async () => {
    const coms = [{ NAME: 'Fee', VALUE: 5.5, MARKUP_TYPE: 1 }, { NAME: 'Bond', VALUE: 1 }];
    const { body } = await client.createEstimate({ NAME: 'Own markups', PROJECT_ID: fresh(), COMS: coms });
    expect((body as { COMS: Record<string, unknown>[] }).COMS.map((c) => [c.NAME, c.VALUE])).toEqual([['Fee', 5.5], ['Bond', 1]]);
    const none = await client.createEstimate({ NAME: 'No markups', PROJECT_ID: fresh(), COMS: [] });
    expect((none.body as { COMS: unknown[] }).COMS).toEqual([]);
  });

  it('a second estimate for the same project is a 400 the engine recognises as "exists" (rule 3, §8)', async () => {
    const projectId = fresh();
    const first = await client.createEstimate({ NAME: 'First', PROJECT_ID: projectId });
    const before = sandbox.estimates().length;
    const err = await client.createEstimate({ NAME: 'Second', PROJECT_ID: projectId }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as BadRequestError).code).toBe('BUILDSYNC_HTTP_400');
    expect(isEstimateExists(err)).toBe(true);
    expect(sandbox.estimates()).toHaveLength(before);
    expect(sandbox.estimates().filter((e) => e.projectId === projectId).map((e) => e.id)).toEqual([first.id]);

    // The dataset's own estimates (every tenth project) count as well.
    const seeded = sandbox.projectIdsWithEstimate().find((id) => !sandbox.estimates().some((e) => e.projectId === id))!;
    const again = await client.createEstimate({ NAME: 'Over a seeded one', PROJECT_ID: seeded }).catch((e: unknown) => e);
    expect(isEstimateExists(again)).toBe(true);
  });

  it('other 400s are not mistaken for "exists"', async () => {
    const myDocuments = sandbox.visibleProjectIds(sandbox.credentials.email, false)[0]!;
    const err = await client.createEstimate({ NAME: 'On My Documents', PROJECT_ID: myDocuments }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(isEstimateExists(err)).toBe(false);
  });

  it('an unknown project, a deleted one or another company\'s is NotFoundError (rule 2)', async () => {
    const deleted = sandbox.deletedProjectIds()[0]!;
    const otherCompany = sandbox
      .visibleProjectIds('pm@northgate.test', false)
      .find((id) => !sandbox.visibleProjectIds(sandbox.credentials.email, true).includes(id) && sandbox.project(id)!.NAME !== 'My Documents')!;
    for (const projectId of [999_999_999, deleted, otherCompany]) {
      const err = await client.createEstimate({ NAME: 'Nowhere', PROJECT_ID: projectId }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NotFoundError);
      expect((err as NotFoundError).code).toBe('BUILDSYNC_HTTP_404');
      expect((err as NotFoundError).serviceMessage).toBe(`Project ${projectId} was not found.`);
    }
  });

  it.each([
    ['the estimate', { PROJECT_ID: 1 }, /NAME/],
    ['the estimate (empty)', { NAME: '  ', PROJECT_ID: 1 }, /NAME: NAME is required/],
    ['PROJECT_ID', { NAME: 'x' }, /PROJECT_ID/],
    ['a category', { NAME: 'x', PROJECT_ID: 1, CATS: [{ DESCRIPTION: 'no name' }] }, /CATS\[0\]\.NAME/],
    ['a subcategory', { NAME: 'x', PROJECT_ID: 1, CATS: [{ NAME: 'c', SUBCATS: [{ QTY: 1 }] }] }, /CATS\[0\]\.SUBCATS\[0\]\.NAME/],
    ['an item', { NAME: 'x', PROJECT_ID: 1, CATS: [{ NAME: 'c', SUBCATS: [{ NAME: 's', ITEMS: [{ NAME: 'i' }, { RATE: 2 }] }] }] }, /CATS\[0\]\.SUBCATS\[0\]\.ITEMS\[1\]\.NAME/],
    ['a field outside the seed', { NAME: 'x', PROJECT_ID: 1, COLOR: 'red' }, /COLOR/],
  ])('missing NAME or bad field on %s is refused before sending (rules 1, 6)', async (_where, payload, message) => {
    const before = sandbox.requests().length;
    const err = await client.createEstimate(payload as EstimatePayload).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecordInvalidError);
    expect((err as RecordInvalidError).code).toBe('BUILDSYNC_RECORD_INVALID');
    expect((err as RecordInvalidError).message).toMatch(message);
    expect(sandbox.requests()).toHaveLength(before);
  });
});
