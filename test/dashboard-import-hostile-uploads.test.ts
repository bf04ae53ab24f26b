/**
 * No upload can end the dashboard (README, The import page): every reading of an upload runs in a
 * thread with a memory and a time limit; uploads take at most `--max-uploads-total-mb` on disk;
 * a crashed dashboard's uploads are removed when the next one starts. Real dashboard, sandbox
 * and Redis; plain HTTP requests as the page's own script makes them.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { excelParts, zip } from './helpers/excel-xml.ts';
import { HOSTILE_WORKBOOKS } from './helpers/hostile-workbooks.ts';
import { startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { pageClient, uploadDirs } from './helpers/page-client.ts';

const deepSheet = HOSTILE_WORKBOOKS.find((c) => c.file === 'deep-sheet.xlsx')!;
const ESTIMATES = 'project_id,estimate_name,category,subcategory,item,qty,unit_cost\n';

/** POSTs FILE's bytes as the page's `Read file` does. */
function uploadBytes(client: ReturnType<typeof pageClient>, name: string, body: Buffer | string, kind = 'estimates') {
  return client.call(`/import/upload?kind=${kind}&sheet=`, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream', 'X-Filename': name }, body });
}

describe('a hostile upload is an error for that upload, and the dashboard goes on serving', () => {
  let rig: ImportPageRig;
  let parent: string;
  let files: string;

  beforeAll(async () => {
    parent = mkdtempSync(join(tmpdir(), 'bs-hostile-uploads-'));
    files = mkdtempSync(join(tmpdir(), 'bs-hostile-files-'));
    rig = await startImportPageRig({ limits: 'hour=500', browser: false, worker: false, uploadDir: parent });
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
    rmSync(parent, { recursive: true, force: true });
    rmSync(files, { recursive: true, force: true });
  });

  it('the deep-nesting workbook: the upload answers the limit and the part, the upload is not kept, and /import still answers 200', { timeout: 120_000 }, async () => {
    const client = pageClient(rig.dashboard.url);
    const up = await uploadBytes(client, 'deep-sheet.xlsx', readFileSync(deepSheet.write(files)));
    expect(up.status).toBe(400);
    expect(up.json.error).toBe(
      'deep-sheet.xlsx: xl/worksheets/sheet1.xml holds more than 64 elements nested in one another, past the limit of 64 elements nested in one another per part: ' +
        'the workbook is damaged or was not written by a spreadsheet program. Open it in Excel or LibreOffice and save it again as .xlsx, or export the sheet as CSV.',
    );
    expect(uploadDirs(parent)).toEqual([]);
    const page = await client.call('/import');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Read file');
    // And it still reads a good file.
    const good = await uploadBytes(client, 'good.csv', `${ESTIMATES}10008,Kitchen,General,Labor,Crew day,2,640\n`);
    expect(good.status, good.text).toBe(200);
    expect(good.json.columns.map((c: { header: string }) => c.header)).toEqual(['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'qty', 'unit_cost']);
  });
});

describe('a reader thread that runs out of memory or time is a clear error, and the dashboard goes on serving', () => {
  let rig: ImportPageRig;

  beforeAll(async () => {
    // 16 MB of heap (the smallest limit the knob takes): a reading that must hold more runs out.
    rig = await startImportPageRig({ limits: 'hour=500', browser: false, worker: false, env: { BUILDSYNC_UPLOAD_READER_MB: '16' } });
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
  });

  it('out of memory: 400 naming the memory limit; /import answers 200 afterwards', { timeout: 120_000 }, async () => {
    const client = pageClient(rig.dashboard.url);
    // A workbook whose shared strings (read whole before any row, as every .xlsx reader must) hold
    // 30 million characters, within the reader's bounds (50 million) but more than a 16 MB heap holds.
    // Deflated as Excel does: the upload itself is small.
    const header = ['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'qty', 'unit_cost'];
    const items = Array.from({ length: 2_000 }, (_, i) => `Crew day ${i} ${'x'.repeat(15_000)}`);
    const cell = (ref: string, v: string | number): string => (typeof v === 'number' ? `<c r="${ref}"><v>${v}</v></c>` : `<c r="${ref}" t="s"><v>${v}</v></c>`);
    const row = (r: number, cells: (string | number)[]): string => `<row r="${r}">${cells.map((v, k) => cell(`${'ABCDEFG'[k]}${r}`, v)).join('')}</row>`;
    const rows = [row(1, header.map((_, k) => String(k))), ...items.map((_, i) => row(i + 2, [10008, '7', '8', '9', String(header.length + 3 + i), 2, 640]))].join('');
    const xlsx = zip(excelParts({ sheets: [{ name: 'Estimates', rows }], sharedStrings: [...header, 'Kitchen', 'General', 'Labor', ...items], deflate: true }), true);
    const up = await uploadBytes(client, 'big.xlsx', xlsx);
    expect(up.status, up.text.slice(0, 500)).toBe(400);
    expect(up.json.error).toBe('big.xlsx could not be read: reading it took more than the 16 MB of memory one reading may take here. Export the sheet you import as CSV, or split the file.');
    expect((await client.call('/import')).status).toBe(200);
  });
});

describe('uploads on disk: a total quota, and a crashed dashboard\'s uploads removed at the next start', () => {
  let parent: string;
  let rig: ImportPageRig | undefined;

  beforeAll(() => {
    parent = mkdtempSync(join(tmpdir(), 'bs-upload-quota-'));
  });

  afterAll(async () => {
    await rig?.close();
    rmSync(parent, { recursive: true, force: true });
  });

  it('removes at start the uploads of a dashboard no longer running, and keeps those of one that runs', { timeout: 120_000 }, async () => {
    // A dashboard that was SIGKILLed: its directory names a process that no longer runs.
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const deadPid = child.pid!;
    child.kill('SIGKILL');
    await once(child, 'exit');
    const crashed = join(parent, 'buildsync-uploads-crashed');
    mkdirSync(join(crashed, 'u-1'), { recursive: true });
    writeFileSync(join(crashed, 'dashboard.pid'), String(deadPid));
    writeFileSync(join(crashed, 'u-1', 'left-behind.csv'), ESTIMATES);
    // One that still runs (this test's own process).
    const running = join(parent, 'buildsync-uploads-running');
    mkdirSync(join(running, 'u-2'), { recursive: true });
    writeFileSync(join(running, 'dashboard.pid'), String(process.pid));

    rig = await startImportPageRig({ limits: 'hour=500', browser: false, worker: false, uploadDir: parent, maxUploadMb: 1, maxUploadsTotalMb: 1 });
    const client = pageClient(rig.dashboard.url);
    // Removed at start, before any upload.
    await expect.poll(() => existsSync(crashed), { timeout: 10_000 }).toBe(false);
    expect(existsSync(join(running, 'u-2'))).toBe(true);

    // The quota: 1 MB for every upload together. The first is kept; the second would pass it.
    const row = `10008,Kitchen,General,Labor,Crew day ${'x'.repeat(500)},2,640\n`;
    const body = ESTIMATES + row.repeat(Math.floor(600_000 / row.length));
    const first = await uploadBytes(client, 'first.csv', body);
    expect(first.status, first.text).toBe(200);
    const second = await uploadBytes(client, 'second.csv', body);
    expect(second.status).toBe(507);
    expect(second.json.error).toMatch(/^second\.csv cannot be kept: the uploads on this dashboard already take 1 MB of the 1 MB it keeps for them\. Space comes back as earlier uploads are sent or expire \(after /);
    expect(uploadDirs(parent).filter((d) => !d.startsWith(running))).toHaveLength(1);
  });
});
