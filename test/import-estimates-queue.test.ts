import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csv, freeProjectIds, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';

// One sandbox and one Redis prefix for the whole story: a first import, the same file again, then
// a corrected copy. Each step goes through submitImport and in-process workers over real sockets.
let rig: E2eRig;
let a: number, b: number, c: number, d: number, existing: number;
let firstFile: string;
const HEADER = ['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'unit', 'qty', 'unit_cost'];

beforeAll(async () => {
  rig = await startE2eRig();
  [a, b, c, d] = freeProjectIds(rig.sandbox) as [number, number, number, number];
  existing = rig.sandbox.projectIdsWithEstimate()[0]!;
  firstFile = rig.file(
    'estimates.csv',
    csv(HEADER, [
      [a, 'Kitchen', 'Demolition', 'Cabinets', 'Remove base cabinets', 'ea', 12, '$45.00'], // line 2
      [a, 'Kitchen', 'Framing', 'Walls', 'Studs', 'ea', '1,000', '3.50'], // line 3
      [b, 'Bath', 'Plumbing', '', '', '', '', ''], // line 4
      [existing, 'Second try', 'Electrical', 'Panel', '200A panel', 'ea', 1, '1200'], // line 5
      [c, 'Garage', 'Concrete', 'Slab', 'Pour', 'cy', 'lots', '100'], // line 6: qty is not a number
      [c, 'Garage', 'Concrete', 'Slab', 'Finish', 'sf', 400, '1.20'], // line 7: same estimate
      [a, 'Kitchen', 'Demolition', 'Cabinets', 'Haul-away', 'load', 1, '(50.00)'], // line 8: not adjacent
    ]),
  );
});
afterAll(() => rig?.close());

const estimatePosts = () => rig.sandbox.requests().filter((r) => r.method === 'POST' && r.path.startsWith('/api/v2/estimates'));

describe('estimate import through the queue', () => {
  it('creates each estimate once, reports exists for a project that has one, and never sends an invalid group', async () => {
    const { report, summary } = await rig.importFile('estimates', firstFile);

    // One estimate per valid group, each stored once, for the projects of the file.
    const stored = rig.sandbox.estimates();
    expect(stored.map((e) => e.projectId).sort()).toEqual([a, b].sort());
    const idOf = (p: number) => stored.find((e) => e.projectId === p)!.id;

    // One report line per input row, in line order, with the service's IDs.
    expect(report.map((l) => [l.line, l.record, l.status, l.id])).toEqual([
      [2, `project ${a} / Kitchen`, 'created', idOf(a)],
      [3, `project ${a} / Kitchen`, 'created', idOf(a)],
      [4, `project ${b} / Bath`, 'created', idOf(b)],
      [5, `project ${existing} / Second try`, 'exists', ''],
      [6, `project ${c} / Garage`, 'invalid', ''],
      [7, `project ${c} / Garage`, 'invalid', ''],
      [8, `project ${a} / Kitchen`, 'created', idOf(a)],
    ]);
    expect(report[3]!.message).toMatch(/already has an estimate/);
    expect(report[4]!.message).toMatch(/line 6.*qty|qty.*"lots"/i);
    // The other row of the invalid group says why it was not sent either.
    expect(report[5]!.message).toMatch(/line 6/);
    expect(summary.counts).toMatchObject({ created: 2, exists: 1, failed: 0, unknown: 0, invalidRows: 2 });

    // The invalid group was not sent at all: three POSTs (a, b, the existing one), none for c.
    expect(estimatePosts()).toHaveLength(3);
    expect(rig.sandbox.estimates().some((e) => e.projectId === c)).toBe(false);

    // The payload the service got: rows merged into categories in order of first appearance.
    const kitchen = stored.find((e) => e.projectId === a)!.payload as { NAME: string; PROJECT_ID: number; CATS: unknown[]; COMS?: unknown };
    expect(kitchen).toEqual({
      NAME: 'Kitchen',
      PROJECT_ID: a,
      CATS: [
        {
          NAME: 'Demolition',
          SUBCATS: [
            {
              NAME: 'Cabinets',
              ITEMS: [
                { NAME: 'Remove base cabinets', UNIT: 'ea', QTY: 12, UNIT_COST: 45 },
                { NAME: 'Haul-away', UNIT: 'load', QTY: 1, UNIT_COST: -50 },
              ],
            },
          ],
        },
        { NAME: 'Framing', SUBCATS: [{ NAME: 'Walls', ITEMS: [{ NAME: 'Studs', UNIT: 'ea', QTY: 1000, UNIT_COST: 3.5 }] }] },
      ],
    });
  });

  it('re-running the same file creates nothing: created records are skipped with their IDs', async () => {
    const before = rig.sandbox.estimates();
    const posts = estimatePosts().length;
    const { report, summary } = await rig.importFile('estimates', firstFile);
    expect(rig.sandbox.estimates()).toEqual(before);
    const idOf = (p: number) => before.find((e) => e.projectId === p)!.id;
    expect(report.map((l) => [l.line, l.status, l.id])).toEqual([
      [2, 'skipped', idOf(a)],
      [3, 'skipped', idOf(a)],
      [4, 'skipped', idOf(b)],
      [5, 'exists', ''],
      [6, 'invalid', ''],
      [7, 'invalid', ''],
      [8, 'skipped', idOf(a)],
    ]);
    expect(report[0]!.message).toMatch(new RegExp(`already created by this tool \\(ID ${idOf(a)}\\)`));
    expect(summary.counts).toMatchObject({ created: 0, skipped: 2, exists: 1, invalidRows: 2 });
    // Skipped records are settled from the ledger: only the existing-estimate project was asked again.
    expect(estimatePosts().length - posts).toBe(1);
  });

  it('a corrected copy (bad row fixed, an estimate added) creates the fixed and the new one and skips the old ones', async () => {
    const before = rig.sandbox.estimates();
    const fixed = rig.file(
      'estimates-fixed.csv',
      csv(HEADER, [
        [a, 'Kitchen', 'Demolition', 'Cabinets', 'Remove base cabinets', 'ea', 12, '$45.00'],
        [a, 'Kitchen', 'Framing', 'Walls', 'Studs', 'ea', '1,000', '3.50'],
        [b, 'Bath', 'Plumbing', '', '', '', '', ''],
        [existing, 'Second try', 'Electrical', 'Panel', '200A panel', 'ea', 1, '1200'],
        [c, 'Garage', 'Concrete', 'Slab', 'Pour', 'cy', '30', '100'],
        [c, 'Garage', 'Concrete', 'Slab', 'Finish', 'sf', 400, '1.20'],
        [a, 'Kitchen', 'Demolition', 'Cabinets', 'Haul-away', 'load', 1, '(50.00)'],
        [d, 'Deck', 'Carpentry', 'Decking', 'Composite boards', 'sf', 320, '7.25'],
      ]),
    );
    const { report, summary } = await rig.importFile('estimates', fixed);
    const after = rig.sandbox.estimates();
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length).map((e) => e.projectId).sort()).toEqual([c, d].sort());
    const idOf = (p: number) => after.find((e) => e.projectId === p)!.id;
    expect(report.map((l) => [l.line, l.status, l.id])).toEqual([
      [2, 'skipped', idOf(a)],
      [3, 'skipped', idOf(a)],
      [4, 'skipped', idOf(b)],
      [5, 'exists', ''],
      [6, 'created', idOf(c)],
      [7, 'created', idOf(c)],
      [8, 'skipped', idOf(a)],
      [9, 'created', idOf(d)],
    ]);
    expect(summary.counts).toMatchObject({ created: 2, skipped: 2, exists: 1, invalidRows: 0 });
    // At most one estimate per project, ever.
    const projects = rig.sandbox.estimates().map((e) => e.projectId);
    expect(new Set(projects).size).toBe(projects.length);
  });
});
