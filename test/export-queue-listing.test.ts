/**
 * Issue 3: exports run through the queue (submitExport + an in-process worker host) against the
 * sandbox over real sockets and a real Redis: what ends up in the file.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_FIELDS } from '../src/api/project-fields.ts';
import type { ExportJobData, ExportJobResult } from '../src/queue/index.ts';
import { exportRig, type ExportRig } from './helpers/export-rig.ts';

let rig: ExportRig;
beforeEach(async () => {
  rig = await exportRig({ projects: 60 });
  await rig.startHost();
});
afterEach(async () => {
  await rig.close();
});

const email = () => rig.sandbox.credentials.email;
const isMyDocuments = (id: number) => rig.sandbox.project(id)?.NAME === 'My Documents';

/** Runs one export job to `name` in the rig's dir; returns the file's text and the job's result. */
async function exportTo(name: string, data: Partial<ExportJobData>) {
  const out = path.join(rig.dir, name);
  const job = await rig.submit({ ...data, out });
  const done = await rig.settle(job);
  expect(done.job.failedReason).toBeUndefined();
  expect(done.state).toBe('completed');
  const result = done.job.returnvalue as ExportJobResult;
  expect(result.path).toBe(out);
  return { text: await readFile(out, 'utf8'), result };
}

function csvRows(text: string): Record<string, string>[] {
  const rows = parse(text, { columns: false }) as string[][];
  const header = rows[0]!;
  return rows.slice(1).map((row) => Object.fromEntries(header.map((h, i) => [h, row[i]!])));
}
const csvIds = (text: string) => csvRows(text).map((r) => Number(r.ID));
const jsonlRecords = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const jsonlIds = (text: string) => jsonlRecords(text).map((r) => r.ID as number);
const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

describe('project export through the queue', () => {
  it('writes every visible project exactly once, in CSV and JSONL, from v2 and from paged, deleted ones never', async () => {
    const expected = sorted(rig.sandbox.visibleProjectIds(email(), true));
    const deleted = rig.sandbox.deletedProjectIds();
    expect(deleted.length).toBeGreaterThan(0);

    const files = await Promise.all([
      exportTo('v2.csv', { source: 'v2', format: 'csv', myDocuments: 'all' }),
      exportTo('v2.jsonl', { source: 'v2', format: 'jsonl', myDocuments: 'all' }),
      exportTo('paged.csv', { source: 'paged', pageSize: 7, format: 'csv', myDocuments: 'all' }),
      exportTo('paged.jsonl', { source: 'paged', pageSize: 7, format: 'jsonl', myDocuments: 'all' }),
    ]);
    const [v2Csv, v2Jsonl, pagedCsv, pagedJsonl] = [
      csvIds(files[0].text),
      jsonlIds(files[1].text),
      csvIds(files[2].text),
      jsonlIds(files[3].text),
    ];
    for (const ids of [v2Csv, v2Jsonl, pagedCsv, pagedJsonl]) {
      expect(new Set(ids).size).toBe(ids.length); // no project twice
      expect(sorted(ids)).toEqual(expected); // none missing, none extra
      expect(ids.filter((id) => deleted.includes(id))).toEqual([]);
    }
    for (const f of files) expect(f.result.projects).toBe(expected.length);
  });

  it('includes client/subcontractor projects only when asked', async () => {
    const withThem = rig.sandbox.visibleProjectIds(email(), true);
    const without = rig.sandbox.visibleProjectIds(email(), false);
    const clientSub = withThem.filter((id) => !without.includes(id));
    expect(clientSub).toHaveLength(7); // sandbox DECISIONS.md "Accounts"

    const off = csvIds((await exportTo('off.csv', { includeClientSub: false, myDocuments: 'all' })).text);
    expect(sorted(off)).toEqual(sorted(without));
    expect(off.filter((id) => clientSub.includes(id))).toEqual([]);

    const on = csvIds((await exportTo('on.csv', { includeClientSub: true, myDocuments: 'all' })).text);
    expect(on).toEqual(expect.arrayContaining(clientSub));
  });

  it('handles My Documents per mode: exclude none, official the lowest ID only, all of them', async () => {
    const mine = rig.sandbox.visibleProjectIds(email(), true).filter(isMyDocuments);
    expect(mine).toHaveLength(3); // the official one and two stale ones
    const official = Math.min(...mine);

    const exclude = await exportTo('exclude.csv', { myDocuments: 'exclude' });
    expect(csvIds(exclude.text).filter(isMyDocuments)).toEqual([]);
    expect(exclude.result.skippedMyDocuments).toBe(3);

    const off = await exportTo('official.jsonl', { myDocuments: 'official', format: 'jsonl' });
    expect(jsonlIds(off.text).filter(isMyDocuments)).toEqual([official]);
    expect(off.result.skippedMyDocuments).toBe(2);

    const all = await exportTo('all.csv', { myDocuments: 'all' });
    expect(sorted(csvIds(all.text).filter(isMyDocuments))).toEqual(sorted(mine));
  });

  it('writes the header in seed order and applies each cell rule to the sandbox\'s awkward records', async () => {
    const { text } = await exportTo('cells.csv', {});
    expect(text.slice(0, text.indexOf('\r\n'))).toBe(PROJECT_FIELDS.join(','));
    const rows = csvRows(text);
    expect(Object.keys(rows[0]!)).toEqual([...PROJECT_FIELDS]);
    const byId = new Map(rows.map((r) => [Number(r.ID), r]));
    const byName = (name: string) => {
      const row = rows.find((r) => r.NAME === name);
      expect(row, `a row named ${JSON.stringify(name)}`).toBeDefined();
      return row!;
    };

    // Comma, quotes, a line break and non-ASCII survive the round trip through a CSV parser.
    byName('Smith, Jones & Partners — Office Fit-out');
    byName('The "Lakeside" Residence');
    byName('Warehouse A\nPhase 2 (mezzanine)');
    byName('Café Ñandú — 北京 Showroom');
    expect(text).toContain('"The ""Lakeside"" Residence"');
    // Formula guard on text that a spreadsheet would run.
    byName("'=SUM(A1:A9) Tower");
    byName("'@Harbor Lofts");
    byName('\'-12 Parking Deck, Level "B2"');
    expect(rows.some((r) => r.NAME === '=SUM(A1:A9) Tower')).toBe(false);

    let checkedScope = 0;
    let sawFalse = false;
    let sawTrue = false;
    let sawNull = false;
    for (const [id, row] of byId) {
      const record = rig.sandbox.project(id)!;
      // SCOPE_OF_WORK percent-decoded; the HTML inside comes through as text.
      if (typeof record.SCOPE_OF_WORK === 'string' && record.SCOPE_OF_WORK.includes('%')) {
        expect(row.SCOPE_OF_WORK).toBe(decodeURIComponent(record.SCOPE_OF_WORK));
        expect(row.SCOPE_OF_WORK).toMatch(/<\w+>/);
        checkedScope++;
      }
      // Booleans as true/false, null as an empty cell.
      for (const f of PROJECT_FIELDS) {
        const v = record[f];
        if (v === true) {
          sawTrue = true;
          expect(row[f]).toBe('true');
        }
        if (v === false) {
          sawFalse = true;
          expect(row[f]).toBe('false');
        }
        if (v === null) {
          sawNull = true;
          expect(row[f]).toBe('');
        }
      }
    }
    expect(checkedScope).toBeGreaterThan(10);
    expect(sawTrue && sawFalse && sawNull).toBe(true);
  });

  it('writes JSON Lines records as the service sent them', async () => {
    const { text } = await exportTo('records.jsonl', { format: 'jsonl' });
    const records = jsonlRecords(text);
    expect(text.endsWith('\n')).toBe(true);
    for (const r of records.slice(0, 20)) expect(r).toEqual(rig.sandbox.project(r.ID as number));
    const awkward = records.find((r) => r.NAME === 'Warehouse A\nPhase 2 (mezzanine)');
    expect(awkward).toBeDefined();
    // SCOPE_OF_WORK stays percent-encoded in JSONL: as sent.
    expect(String(records.find((r) => typeof r.SCOPE_OF_WORK === 'string' && r.SCOPE_OF_WORK !== '')!.SCOPE_OF_WORK)).toMatch(/%3C/);
  });
});
