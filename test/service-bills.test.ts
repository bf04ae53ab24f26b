/** Seed §2.3 / §4.4 (bill creation, the Info query parameter) through the real client against the real sandbox. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../src/api/index.ts';
import { MAX_BILL_QUERY_LENGTH, type BillPayload } from '../src/payloads/index.ts';
import { NotFoundError, RecordInvalidError } from '../src/errors/index.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { clientFor, freeProjectIds, requestsTo } from './helpers/sandbox-client.ts';

let sandbox: Sandbox;
let client: ServiceClient;
let projectId: number;

beforeAll(async () => {
  sandbox = await startSandbox({ projects: 20, limits: 'none' });
  client = clientFor(sandbox);
  projectId = freeProjectIds(sandbox)[0]!;
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});

describe('POST /api/Bills?Info= (docs/service.md, Bills)', () => {
  it('sends the bill in the observed wire shape of §2.3, field by field', async () => {
    const bill: BillPayload = {
      PRJ_ID: projectId,
      VENDOR_ID: 55,
      TITLE: 'INV-7 & co — "drywall"',
      DUE_DATE: '2024-07-31T00:00:00',
      INVOICE_DATE: '2024-07-01T00:00:00',
      RECIEVED_DATE: '2024-07-03T09:30:00',
      ACTIVE: false,
      READY_FOR_PAYMENT: true,
      APPROVER: 3,
      APPROVAL_DATE: '2024-07-04T12:00:00',
      NOTES: 'a+b=c; 100% #1 ?x',
      TRADE: 'Drywall',
      ITEMS: [
        { NAME: 'Board', RATE: '1250.5', QTY: 3, UNIT: 'sheet', DESCRIPTION: 'Type X', COST_CODE_ID: 4012, TAX_TYPE_ID: 2, TAX_PERCENT: '8.25' },
        { NAME: 'Credit', RATE: '-12' },
        { NAME: 'Trailing zeros', RATE: '0.0500' },
      ],
    };
    const before = sandbox.bills().length;
    const { id, body } = await client.createBill(bill);
    const stored = sandbox.bills().slice(before);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.id).toBe(id);
    expect(stored[0]!.projectId).toBe(projectId);
    expect(stored[0]!.record).toEqual(body);

    const info = JSON.parse(stored[0]!.info) as Record<string, unknown>;
    // Identifiers are JSON strings of decimal text.
    expect(info.PRJ_ID).toBe(String(projectId));
    expect(info.VENDOR_ID).toBe('55');
    expect(info.APPROVER).toBe('3');
    // Booleans are the strings "true" / "false".
    expect(info.ACTIVE).toBe('false');
    expect(info.READY_FOR_PAYMENT).toBe('true');
    // RECIEVED_DATE is spelled so, and no corrected spelling is sent.
    expect(info.RECIEVED_DATE).toBe('2024-07-03T09:30:00');
    expect(info).not.toHaveProperty('RECEIVED_DATE');
    // Dates as ISO 8601 without zone, texts untouched by the query encoding.
    expect(info.DUE_DATE).toBe('2024-07-31T00:00:00');
    expect(info.INVOICE_DATE).toBe('2024-07-01T00:00:00');
    expect(info.APPROVAL_DATE).toBe('2024-07-04T12:00:00');
    expect(info.TITLE).toBe(bill.TITLE);
    expect(info.NOTES).toBe(bill.NOTES);
    expect(info.TRADE).toBe('Drywall');

    const items = info.ITEMS as Record<string, unknown>[];
    expect(items).toHaveLength(3);
    // RATE: decimal text with exactly two decimals.
    expect(items.map((i) => i.RATE)).toEqual(['1250.50', '-12.00', '0.05']);
    expect(items[0]).toEqual({
      NAME: 'Board', RATE: '1250.50', COST_CODE_ID: '4012', TAX_TYPE_ID: '2', TAX_PERCENT: '8.25', DESCRIPTION: 'Type X', QTY: 3, UNIT: 'sheet',
    });
    expect(items[1]).toEqual({ NAME: 'Credit', RATE: '-12.00' });
    // Only the seed's fields, nothing else.
    expect(Object.keys(info).sort()).toEqual(
      ['ACTIVE', 'APPROVAL_DATE', 'APPROVER', 'DUE_DATE', 'INVOICE_DATE', 'ITEMS', 'NOTES', 'PRJ_ID', 'READY_FOR_PAYMENT', 'RECIEVED_DATE', 'TITLE', 'TRADE', 'VENDOR_ID'],
    );
    // The sandbox read it as meant: the total is Σ RATE × QTY of the two-decimal rates.
    expect((body as { TOTAL: unknown }).TOTAL).toBe(1250.5 * 3 - 12 + 0.05);
    // No body, the bill only in the query (§4.4).
    expect(requestsTo(sandbox, 'POST', '/api/Bills').at(-1)!.path).toMatch(/^\/api\/Bills\?Info=%7B/);
  });

  it('gives every bill its own ID, several bills per project allowed (rule 3)', async () => {
    const bill: BillPayload = { PRJ_ID: projectId, VENDOR_ID: 1, ITEMS: [{ NAME: 'x', RATE: '1' }] };
    const ids = [(await client.createBill(bill)).id, (await client.createBill(bill)).id];
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('an unknown or deleted project is NotFoundError and nothing is stored (rule 2)', async () => {
    const before = sandbox.bills().length;
    for (const prj of [888_888_888, sandbox.deletedProjectIds()[0]!]) {
      const err = await client.createBill({ PRJ_ID: prj, VENDOR_ID: 1, ITEMS: [{ NAME: 'x', RATE: '1' }] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NotFoundError);
      expect((err as NotFoundError).code).toBe('BUILDSYNC_HTTP_404');
      expect((err as NotFoundError).serviceMessage).toBe(`Project ${prj} was not found.`);
    }
    expect(sandbox.bills()).toHaveLength(before);
  });

  it.each([
    ['no ITEMS', { PRJ_ID: 1, VENDOR_ID: 1 }, /ITEMS/],
    ['empty ITEMS', { PRJ_ID: 1, VENDOR_ID: 1, ITEMS: [] }, /at least one item/],
    ['no VENDOR_ID', { PRJ_ID: 1, ITEMS: [{ NAME: 'x', RATE: '1' }] }, /VENDOR_ID/],
    ['no PRJ_ID', { VENDOR_ID: 1, ITEMS: [{ NAME: 'x', RATE: '1' }] }, /PRJ_ID/],
    ['an item without RATE', { PRJ_ID: 1, VENDOR_ID: 1, ITEMS: [{ NAME: 'x' }] }, /ITEMS\[0\]\.RATE/],
    ['an item without NAME', { PRJ_ID: 1, VENDOR_ID: 1, ITEMS: [{ RATE: '1' }] }, /ITEMS\[0\]\.NAME/],
  ])('a bill with %s is refused before sending (rule 1)', async (_what, bill, message) => {
    const before = sandbox.requests().length;
    const err = await client.createBill(bill as BillPayload).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecordInvalidError);
    expect((err as RecordInvalidError).message).toMatch(message);
    expect(sandbox.requests()).toHaveLength(before);
  });

  it('a bill whose query string would pass 2,000 characters is refused unsent, never truncated', async () => {
    const bill: BillPayload = { PRJ_ID: projectId, VENDOR_ID: 1, NOTES: 'n'.repeat(1950), ITEMS: [{ NAME: 'x', RATE: '1' }] };
    expect(client.billQueryLength(bill)).toBeGreaterThan(MAX_BILL_QUERY_LENGTH);
    const before = sandbox.requests().length;
    const err = await client.createBill(bill).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecordInvalidError);
    expect((err as RecordInvalidError).message).toMatch(/2,?000/);
    expect(sandbox.requests()).toHaveLength(before);

    // Just under the limit goes through whole.
    const fits: BillPayload = { ...bill, NOTES: 'n'.repeat(1950 - (client.billQueryLength(bill) - MAX_BILL_QUERY_LENGTH)) };
    expect(client.billQueryLength(fits)).toBe(MAX_BILL_QUERY_LENGTH);
    const { id } = await client.createBill(fits);
    expect(JSON.parse(sandbox.bills().find((b) => b.id === id)!.info).NOTES).toBe(fits.NOTES);
  });
});
