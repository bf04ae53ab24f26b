import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../src/api/index.ts';
import { dryRunReportLines, planBills, planEstimates, projectResolverFromListing, type ProjectResolver } from '../src/import/index.ts';
import { loadMappingFile, presetMapping } from '../src/mapping/index.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';

// The samples must import cleanly against a default sandbox (the demo imports them): plan each
// one against the main user's listing, then create every planned record over real sockets.
let sandbox: Sandbox;
let client: ServiceClient;
let resolver: ProjectResolver;

beforeAll(async () => {
  sandbox = await startSandbox();
  client = new ServiceClient({ baseUrl: sandbox.url, ...sandbox.credentials });
  const listing: Record<string, unknown>[] = [];
  for await (const p of client.listProjectsV2({ includeClientSub: true })) listing.push(p);
  resolver = projectResolverFromListing(listing);
});
afterAll(async () => {
  await client?.close();
  await sandbox?.close();
});

describe('the sample files import cleanly into a default sandbox', () => {
  it('samples/estimates.csv: four estimates by project_id, project_number and project_name, with and without COMS', async () => {
    const plan = await planEstimates('samples/estimates.csv', { resolver });
    expect(plan.statics).toEqual([]);
    expect(plan.rows).toBe(19);
    expect(plan.records.map((r) => r.label)).toEqual([
      'project 10039 / Kitchen remodel',
      'project 10025 / Library addition - base bid',
      'project 10053 / Roof replacement',
      'project 10008 / TI fit-out',
    ]);
    const [kitchen, library] = plan.records;
    expect(kitchen!.lines).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 13]);
    expect(kitchen!.payload.COMS).toEqual([
      { NAME: 'Company Overhead', VALUE: 8, MARKUP_TYPE: 1 },
      { NAME: 'Company Margin', VALUE: 12.5, MARKUP_TYPE: 1 },
    ]);
    expect(library!.payload.COMS).toBeUndefined();
    for (const r of plan.records) {
      const created = await client.createEstimate(r.payload);
      expect(created.id).toBeGreaterThan(0);
    }
    const stored = sandbox.estimates().find((e) => e.projectId === 10025)!;
    expect((stored.record.COMS as unknown[]).length).toBe(5); // the service's default rows
  });

  it('samples/estimates.xlsx reads to the same estimates as the CSV, and --sheet picks another sheet', async () => {
    // Both of its sheets hold a table: without --sheet the import stops and names them (README "Where the table is").
    await expect(planEstimates('samples/estimates.xlsx', { resolver })).rejects.toThrow('samples/estimates.xlsx has 2 sheets with a table: "Estimates" (19 rows), "Alternates" (2 rows).');
    const [fromCsv, fromXlsx] = await Promise.all([planEstimates('samples/estimates.csv', { resolver }), planEstimates('samples/estimates.xlsx', { resolver, sheet: 'Estimates' })]);
    expect(fromXlsx.statics).toEqual([]);
    expect(fromXlsx.records.map((r) => [r.key, r.lines, r.contentHash])).toEqual(fromCsv.records.map((r) => [r.key, r.lines, r.contentHash]));
    const alternates = await planEstimates('samples/estimates.xlsx', { resolver, sheet: 'Alternates' });
    expect(alternates.statics).toEqual([]);
    expect(alternates.records.map((r) => r.label)).toEqual(['project 10049 / School fit-out alternate']);
    expect(alternates.records[0]!.payload.CATS![0]!.SUBCATS!.map((s) => s.ITEMS![0]!.QTY)).toEqual([2200, 5400]);
    expect((await client.createEstimate(alternates.records[0]!.payload)).id).toBeGreaterThan(0);
  });

  it('samples/estimates-other-headers.csv with samples/estimates-mapping.json', async () => {
    const mapping = await loadMappingFile('samples/estimates-mapping.json');
    const plan = await planEstimates('samples/estimates-other-headers.csv', { resolver, mapping });
    expect(plan.statics).toEqual([]);
    expect(plan.records.map((r) => r.label)).toEqual(['project 10062 / Apartment TI', 'project 10067 / Fire station fit-out']);
    expect(plan.records[0]!.payload.ADVANCED_ESTIMATE).toBe(false); // the mapping's constant
    for (const r of plan.records) expect((await client.createEstimate(r.payload)).id).toBeGreaterThan(0);
    await expect(planEstimates('samples/estimates-other-headers.csv', { resolver })).rejects.toThrow(/unknown columns "Job #"/);
  });

  it('samples/bills.csv with samples/vendors.csv: vendors by ID and by name, projects by ID, number and name', async () => {
    const plan = await planBills('samples/bills.csv', { resolver, vendorsFile: 'samples/vendors.csv' });
    expect(plan.statics).toEqual([]);
    expect(plan.records.map((r) => r.label)).toEqual([
      'bill INV-1001 / project 10039 / vendor 55',
      'bill A-77 / project 10053 / vendor 56',
      'bill K-5120 / project 10025 / vendor 57',
      'bill row 8 / project 10037 / vendor 58',
    ]);
    for (const r of plan.records) expect((await client.createBill(r.payload)).id).toBeGreaterThan(0);
    const k5120 = sandbox.bills().find((b) => b.projectId === 10025)!;
    expect(k5120.info).toContain('"RATE":"1234.57"');
    expect(k5120.info).toContain('"RECIEVED_DATE":"2026-03-11T00:00:00"');
  });

  it('samples/quickbooks-bills.csv with --mapping quickbooks', async () => {
    const plan = await planBills('samples/quickbooks-bills.csv', { resolver, vendorsFile: 'samples/vendors.csv', mapping: presetMapping('quickbooks') });
    expect(plan.statics).toEqual([]);
    expect(plan.records.map((r) => r.label)).toEqual([
      'bill QB-2201 / project 10039 / vendor 56',
      'bill QB-2202 / project 10009 / vendor 57',
      'bill QB-2203 / project 10053 / vendor 55',
    ]);
    expect(plan.records[0]!.payload).toMatchObject({
      INVOICE_DATE: '2026-03-02T00:00:00',
      DUE_DATE: '2026-04-01T00:00:00',
      NOTES: 'Framing package',
      ITEMS: [{ NAME: '2x6 studs, 16ft', RATE: '1250.00' }, { NAME: 'Delivery', RATE: '85.00' }],
    });
    for (const r of plan.records) expect((await client.createBill(r.payload)).id).toBeGreaterThan(0);
  });
});

describe('a dry run reports one line per input row, in line order', () => {
  it('marks valid rows "dry run: valid, not sent" and keeps the planned invalid rows', async () => {
    // Without credentials there is no listing: the rows naming projects by number or name cannot be resolved.
    const plan = await planEstimates('samples/estimates.csv', {});
    const lines = dryRunReportLines(plan);
    expect(lines.map((l) => l.line)).toEqual(Array.from({ length: 19 }, (_, i) => i + 2));
    expect(lines[0]).toEqual({ line: 2, record: 'project 10039 / Kitchen remodel', status: 'skipped', id: '', message: 'dry run: valid, not sent' });
    expect(lines[11]).toMatchObject({ line: 13, record: 'project 10039 / Kitchen remodel', status: 'skipped' });
    expect(lines.filter((l) => l.status === 'invalid').map((l) => l.line)).toEqual([16, 17, 18, 19, 20]);
    expect(lines[14]).toMatchObject({ record: 'project "P-2019-0032" / Roof replacement', status: 'invalid' });
  });
});
