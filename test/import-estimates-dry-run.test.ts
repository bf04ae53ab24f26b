import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csv, freeProjectIds, parseReport, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';
import { runCli } from './helpers/cli.ts';

// A dry run needs neither Redis nor the service: REDIS_URL points at a closed port and no
// service variable is set. What it prints is what a real import then sends, byte for byte.
let rig: E2eRig;
let a: number, b: number;
let file: string;

beforeAll(async () => {
  rig = await startE2eRig();
  [a, b] = freeProjectIds(rig.sandbox) as [number, number];
  file = rig.file(
    'dry.csv',
    csv(
      ['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'qty', 'unit_cost', 'total_price', 'markup_name', 'markup_value', 'markup_type'],
      [
        [a, 'Office TI', 'Drywall', 'Partitions', 'Level 4 finish', '2,400', '$1.85', '$9,000.00', '', '', ''], // 2
        [a, 'Office TI', '', '', '', '', '', '', 'Company Overhead', '8%', 1], // 3
        [b, 'Lobby', 'Finishes', '', '', '', '', '', '', '', ''], // 4
        [b, 'Lobby', 'Finishes', 'Tile', 'Porcelain', 'many', '12', '', '', '', ''], // 5: bad qty
      ],
    ),
  );
});
afterAll(() => rig?.close());

describe('import estimates --dry-run', () => {
  it('writes the report and prints the exact payloads without Redis or the service; the real import sends exactly those', async () => {
    const env = { REDIS_URL: 'redis://127.0.0.1:1', LOG_LEVEL: 'warn', BUILDSYNC_LIMITS: 'none' };
    const res = await runCli(['import', 'estimates', file, '--dry-run', '--print-payloads'], env, { cwd: rig.dir });
    expect(res.stderr).toMatch(/dry run: 4 rows -> 1 estimate to send, 2 invalid rows/);
    expect(res.code).toBe(1); // some rows invalid

    const printed = res.stdout.trim().split('\n');
    expect(printed).toEqual([
      JSON.stringify({
        NAME: 'Office TI',
        PROJECT_ID: a,
        TOTAL_PRICE: 9000,
        CATS: [{ NAME: 'Drywall', SUBCATS: [{ NAME: 'Partitions', ITEMS: [{ NAME: 'Level 4 finish', QTY: 2400, UNIT_COST: 1.85 }] }] }],
        COMS: [{ NAME: 'Company Overhead', VALUE: 8, MARKUP_TYPE: 1 }],
      }),
    ]);

    const reportPath = `${file}.report.csv`;
    expect(existsSync(reportPath)).toBe(true);
    const report = parseReport(readFileSync(reportPath, 'utf8'));
    // A dry run sends nothing, so the planned rows are `skipped` with a message saying so.
    expect(report.map((r) => [r.line, r.record, r.status])).toEqual([
      ['2', `project ${a} / Office TI`, 'skipped'],
      ['3', `project ${a} / Office TI`, 'skipped'],
      ['4', `project ${b} / Lobby`, 'invalid'],
      ['5', `project ${b} / Lobby`, 'invalid'],
    ]);
    expect(report[0]!.message).toMatch(/dry run/i);
    expect(report[3]!.message).toMatch(/qty/i);
    // Nothing was sent to the service.
    expect(rig.sandbox.requests()).toEqual([]);

    // The same file through the queue: the service receives exactly the printed payload.
    const { report: real } = await rig.importFile('estimates', file);
    expect(real.filter((l) => l.status === 'created').map((l) => l.line)).toEqual([2, 3]);
    expect(rig.sandbox.estimates().map((e) => JSON.stringify(e.payload))).toEqual(printed);
  });
});
