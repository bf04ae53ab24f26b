import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { defaultExportPath, exportProjects } from '../src/export/index.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'export-progress-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('reports growing counts per written batch and the totals at the end', async () => {
  const scope = encodeURIComponent('<p>Replace the roof, gutters and flashing.</p>'.repeat(10));
  async function* source() {
    yield { ID: 1, NAME: 'My Documents' };
    for (let i = 0; i < 4000; i++) yield { ID: 10 + i, NAME: `Project ${i}`, SCOPE_OF_WORK: scope };
  }
  const out = path.join(dir, 'p.csv');
  const seen: { projects: number; bytes: number }[] = [];
  const result = await exportProjects(source(), {
    out,
    format: 'csv',
    myDocuments: 'exclude',
    onProgress: (p) => seen.push(p),
  });

  const size = (await stat(out)).size;
  expect(result).toMatchObject({ path: out, projects: 4000, bytes: size, skippedMyDocuments: 1 });
  expect(result.ms).toBeGreaterThanOrEqual(0);
  expect(seen.length).toBeGreaterThan(3); // ~2 MB of rows in 256 KB batches
  for (let i = 1; i < seen.length; i++) {
    expect(seen[i]!.projects).toBeGreaterThanOrEqual(seen[i - 1]!.projects);
    expect(seen[i]!.bytes).toBeGreaterThan(seen[i - 1]!.bytes);
  }
  expect(seen.at(-1)).toEqual({ projects: 4000, bytes: size });
});

it('names the default file after the local date of the run', () => {
  const date = new Date(2026, 10, 21, 23, 59); // local time, month 10 = November
  expect(defaultExportPath('csv', date)).toBe(path.join('exports', 'projects-2026-11-21.csv'));
  expect(defaultExportPath('jsonl', new Date(2027, 0, 3, 0, 1), '/srv/out')).toBe('/srv/out/projects-2027-01-03.jsonl');
  expect(defaultExportPath('csv')).toMatch(/^exports[/\\]projects-\d{4}-\d{2}-\d{2}\.csv$/);
});

it('refuses an unknown format or My Documents mode before creating anything', async () => {
  async function* none() {}
  const out = path.join(dir, 'p.ods');
  await expect(
    exportProjects(none(), { out, format: 'ods' as 'csv', myDocuments: 'exclude' }),
  ).rejects.toMatchObject({ code: 'BUILDSYNC_USAGE', message: 'unknown export format "ods"; use csv, jsonl or xlsx' });
  await expect(
    exportProjects(none(), { out, format: 'csv', myDocuments: 'some' as 'all' }),
  ).rejects.toMatchObject({ code: 'BUILDSYNC_USAGE' });
  await expect(stat(out)).rejects.toMatchObject({ code: 'ENOENT' });
});

it('writes just the header for an empty listing', async () => {
  async function* none() {}
  const out = path.join(dir, 'empty.csv');
  const result = await exportProjects(none(), { out, format: 'csv', myDocuments: 'exclude' });
  expect(result.projects).toBe(0);
  expect((await stat(out)).size).toBe(result.bytes);
  expect(result.bytes).toBeGreaterThan(100);
});
