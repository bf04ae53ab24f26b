import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeProjectIds, parseReport, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';
import { runCli } from './helpers/cli.ts';

// README, Reports, re-runs and `unknown`, the rows to fix, as a user meets them: a European bill export with bad rows,
// its errors file fixed in place and imported as it is, and every bill created exactly once.
let rig: E2eRig;
let p1: number;
let p2: number;

beforeAll(async () => {
  rig = await startE2eRig();
  [p1, p2] = freeProjectIds(rig.sandbox) as [number, number];
});
afterAll(() => rig?.close());

/**
 * Each CLI run's own guard against a hang (runCli kills it then and fails with what it printed).
 * A run takes about 1.2 s and 0.5 s of CPU on a quiet machine; at a load of 25 on two cores it gets
 * a twelfth of a core, and the first test's five runs overran vitest's 30 s. The tests' timeouts are
 * the sum of their runs' guards, so that a slow machine is not taken for a hang and a hung run is
 * reported by its own guard, with its output.
 */
const CLI_MS = 60_000;
const cli = (args: string[]) => runCli(args, rig.env, { cwd: rig.dir, timeoutMs: CLI_MS });

type Info = { PRJ_ID: string; INVOICE_DATE?: string; ITEMS: Array<{ NAME: string; RATE: string }> };
const infos = (): Info[] => rig.sandbox.bills().map((b) => JSON.parse(b.info) as Info);

describe('the errors file round trip', () => {
  it('imports the fixed rows to fix as they are, creating each bill exactly once', async () => {
    const file = rig.file(
      'eu-bills.csv',
      [
        'project_id;vendor_id;invoice_date;item_name;rate',
        // 2: proves day first; not in the errors file
        `${p1};55;13/02/2026;Service call;375,00`,
        // 3: the same bill as line 2 once fixed (no bill_ref: known by content and place)
        `${p1};55;13/02/2026;Service call;37S,00`,
        // 4: an ambiguous date, read day first because of line 2
        `${p2};55;03/02/2026;Tiles;12,50`,
        // 5: ambiguous date again, bad rate
        `${p2};55;04/02/2026;Grout;abc`,
      ].join('\r\n') + '\r\n',
    );
    const first = await cli(['import', 'bills', file]);
    expect(first.stderr).not.toMatch(/\n\s+at /);
    expect(first.code).toBe(1);
    const errorsPath = file.replace(/\.csv$/, '.csv.errors.csv');
    expect(first.stdout).toContain(`rows to fix: ${errorsPath} (2 rows; fix them and import that file as it is)`);
    expect(infos().map((i) => [i.ITEMS[0]!.NAME, i.INVOICE_DATE])).toEqual([
      ['Service call', '2026-02-13T00:00:00'],
      ['Tiles', '2026-02-03T00:00:00'],
    ]);

    const text = readFileSync(errorsPath, 'utf8');
    expect(text.charCodeAt(0)).toBe(0xfeff); // UTF-8 with a BOM, so a spreadsheet opens it as UTF-8
    const rows = parse(text.slice(1), { delimiter: ';' }) as string[][];
    expect(rows[0]).toEqual(['project_id', 'vendor_id', 'invoice_date', 'item_name', 'rate', 'source_line', 'error']);
    // Read cells are written to read the same alone (dates ISO); failed cells exactly as typed.
    expect(rows.slice(1).map((r) => r.slice(0, 6))).toEqual([
      [String(p1), '55', '2026-02-13', 'Service call', '37S,00', '3'],
      [String(p2), '55', '2026-02-04', 'Grout', 'abc', '5'],
    ]);
    expect(rows[1]![6]).toMatch(/column rate: expected a number like 1\.234,50/);

    // `jobs report ID --errors` writes the same rows to standard output.
    const importId = /\[import (import-[^\]]+)\]/.exec(first.stdout)![1]!;
    const again = await cli(['jobs', 'report', importId, '--errors']);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(text);

    // The user fixes the two cells in a spreadsheet and imports the file as it is.
    writeFileSync(errorsPath, text.replace('37S,00', '375,00').replace(';abc;', ';4,75;'));
    const fixed = await cli(['import', 'bills', errorsPath]);
    expect(fixed.stderr).not.toMatch(/\n\s+at |unexpected error/);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toMatch(/created 2, exists 0, skipped 0, failed 0, unknown 0; invalid rows 0/);
    expect(existsSync(errorsPath.replace(/\.csv$/, '.csv.errors.csv'))).toBe(false);
    expect(infos().map((i) => [i.PRJ_ID, i.ITEMS[0]!.NAME, i.ITEMS[0]!.RATE, i.INVOICE_DATE])).toEqual([
      [String(p1), 'Service call', '375.00', '2026-02-13T00:00:00'],
      [String(p2), 'Tiles', '12.50', '2026-02-03T00:00:00'],
      [String(p1), 'Service call', '375.00', '2026-02-13T00:00:00'],
      [String(p2), 'Grout', '4.75', '2026-02-04T00:00:00'],
    ]);

    // Running either file again creates nothing twice.
    const rerunFixed = await cli(['import', 'bills', errorsPath]);
    expect(rerunFixed.code).toBe(0);
    expect(rerunFixed.stdout).toMatch(/created 0, exists 0, skipped 2/);
    const rerunOriginal = await cli(['import', 'bills', file]);
    expect(rerunOriginal.code).toBe(1);
    expect(parseReport(readFileSync(`${file}.report.csv`, 'utf8')).map((r) => r.status)).toEqual(['skipped', 'invalid', 'skipped', 'invalid']);
    expect(rig.sandbox.bills()).toHaveLength(4);
  }, 5 * CLI_MS);

  it('a dry run writes the rows to fix too, and a clean run removes a stale one', async () => {
    const file = rig.file('dry.csv', `project_id,vendor_id,item_name,rate\n${p1},55,Bolts,"1,234.567"\n`);
    const dry = await cli(['import', 'bills', file, '--dry-run']);
    expect(dry.code).toBe(1);
    const errorsPath = `${file}.errors.csv`;
    const rows = parse(readFileSync(errorsPath, 'utf8').slice(1)) as string[][];
    expect(rows[1]!.slice(0, 5)).toEqual([String(p1), '55', 'Bolts', '1,234.567', '2']);
    expect(rows[1]![5]).toContain('has more than two decimals; a rate is sent with exactly two and is never rounded');
    writeFileSync(file, `project_id,vendor_id,item_name,rate\n${p1},55,Bolts,"1,234.57"\n`);
    const clean = await cli(['import', 'bills', file, '--dry-run']);
    expect(clean.code).toBe(0);
    expect(existsSync(errorsPath)).toBe(false);
  }, 2 * CLI_MS);
});
