/**
 * Excel's row limit (issue 27): an .xlsx export of more projects than a sheet holds stops with
 * exit 2 (a usage error) as soon as the limit is passed, and leaves no file, no temporary file.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { exitCodeOf, type BuildsyncError } from '../src/errors/index.ts';
import { exportProjects } from '../src/export/index.ts';
import { XLSX_MAX_ROWS } from '../src/export/xlsx/sheet-rows.ts';

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
