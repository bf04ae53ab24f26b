/**
 * Excel's row limit (issue 27): an .xlsx export of more projects than a sheet holds stops with
 * exit 2 (a usage error) as soon as the limit is passed, and leaves no file, no temporary file;
 * and the streaming of a huge cell and of a failed listing.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { exitCodeOf, type BuildsyncError } from '../src/errors/index.ts';
import { exportProjects } from '../src/export/index.ts';
import { XLSX_MAX_ROWS } from '../src/export/xlsx/sheet-rows.ts';
import { PROJECT_FIELDS } from '../src/api/project-fields.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'export-xlsx-limit-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it("is Excel's 1,048,576 rows less the header", () => {
  expect(XLSX_MAX_ROWS).toBe(1_048_575);
});

it('stops as soon as the limit is passed, with exit 2 naming it, and leaves no file', async () => {
  let listed = 0;
  // A listing that never ends: the export must stop on its own at the limit.
  async function* endless() {
    for (;;) yield { ID: ++listed, NAME: `Project ${listed}` };
  }
  const out = path.join(dir, 'projects.xlsx');
  const err = await exportProjects(endless(), { out, format: 'xlsx', myDocuments: 'exclude', xlsxMaxRows: 1000 }).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: 'BUILDSYNC_USAGE' });
  expect(exitCodeOf((err as BuildsyncError).code)).toBe(2);
  expect((err as Error).message).toContain('an .xlsx sheet holds at most 1,000 rows');
  expect((err as Error).message).toContain(`${out} was not written; export as csv or jsonl instead`);
  expect(listed).toBe(1001);
  expect(await readdir(dir)).toEqual([]);
});

it('writes exactly the limit', async () => {
  async function* some() {
    for (let i = 1; i <= 1000; i++) yield { ID: i };
  }
  const r = await exportProjects(some(), { out: path.join(dir, 'full.xlsx'), format: 'xlsx', myDocuments: 'exclude', xlsxMaxRows: 1000 });
  expect(r.projects).toBe(1000);
  expect(await readdir(dir)).toEqual(['full.xlsx']);
});

it('does not limit csv', async () => {
  async function* some() {
    for (let i = 1; i <= 1001; i++) yield { ID: i };
  }
  const r = await exportProjects(some(), { out: path.join(dir, 'p.csv'), format: 'csv', myDocuments: 'exclude', xlsxMaxRows: 1000 });
  expect(r.projects).toBe(1001);
});

it('writes a 3 MB cell across batches, and leaves nothing when the listing fails mid-way', async () => {
  const { zipParts, sheetRows } = await import('./helpers/xlsx-parts.ts');
  const { readFile } = await import('node:fs/promises');
  const huge = `<p>${'Demolition & framing — ü '.repeat(120_000)}</p>`;
  async function* some() {
    for (let i = 1; i <= 3000; i++) yield { ID: i, NAME: `Project ${i}`, SCOPE_OF_WORK: i === 1500 ? encodeURIComponent(huge) : 'short' };
  }
  const out = path.join(dir, 'big.xlsx');
  await exportProjects(some(), { out, format: 'xlsx', myDocuments: 'exclude' });
  const rows = sheetRows(zipParts(await readFile(out)).get('xl/worksheets/sheet1.xml')!.data.toString('utf8'));
  expect(rows).toHaveLength(3001);
  expect(rows[1500]![PROJECT_FIELDS.indexOf('SCOPE_OF_WORK')]!.text).toBe(huge);
  expect(rows[3000]![PROJECT_FIELDS.indexOf('NAME')]!.text).toBe('Project 3000');

  async function* failing() {
    for (let i = 1; i <= 5000; i++) yield { ID: i };
    throw new Error('connection reset');
  }
  await expect(exportProjects(failing(), { out: path.join(dir, 'failed.xlsx'), format: 'xlsx', myDocuments: 'exclude' })).rejects.toThrow('connection reset');
  expect(await readdir(dir)).toEqual(['big.xlsx']);
});
