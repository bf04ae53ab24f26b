/**
 * The import page runs on the CLI's own import path (README, The import page; issue 38): its Check
 * is the import's streamed plan, run in the reader thread and keeping only what the page shows (the
 * first records, the invalid rows, counts), and its Send queues the same import job as the CLI
 * from the same streamed plan, reading the upload again with the check's options. The reference is
 * the CLI's dry run of the same file with the mapping the page downloads. And a check that takes
 * more memory than the reader thread has is a clear error for that upload, never the dashboard's
 * end. Real Redis, the sandbox, a worker, the dashboard over HTTP, the CLI's bundle.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHOWN_ROWS } from '../src/import-service/index.ts';
import { runCli } from './helpers/cli.ts';
import { parseReport } from './helpers/import-e2e-rig.ts';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { choices, pageClient, waitFor } from './helpers/page-client.ts';
import { REDIS_URL } from './helpers/redis.ts';

const HEADERS = ['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate'];
/** More bills than the check shows: it must count them all and keep only the first SHOWN_ROWS. */
const BILLS = SHOWN_ROWS + 60;
/** Lines (physical, the header is line 1) whose rate is not a number: their whole bill is invalid. */
const BAD_LINES = [10, 301, 480];

type Check = {
  rows: number;
  recordCount: number;
  alreadyCreated: number;
  records: Array<{ label: string; lines: number[]; payload: string }>;
  invalid: Array<{ line: number; column: string | null; message: string }>;
  shown: Array<{ line: number }>;
};

/** BILLS bills of two lines each over the importable projects; the rates of BAD_LINES are not numbers. */
function billsCsv(projects: number[], tag: string): string {
  const lines = [HEADERS.join(',')];
  for (let b = 0; b < BILLS; b++) {
    for (let item = 0; item < 2; item++) {
      const line = lines.length + 1;
      const rate = BAD_LINES.includes(line) ? 'ten' : `${10 + b}.${item}0`;
      lines.push(`${tag}-${b},${projects[b % projects.length]},55,Item ${item} of ${b},${rate}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

describe('the page\'s Check and Send run the CLI\'s streamed import', () => {
  let rig: ImportPageRig;
  let work: string;

  beforeAll(async () => {
    rig = await startImportPageRig({ limits: 'none', browser: false });
    work = mkdtempSync(join(tmpdir(), 'bs-page-path-'));
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('a check of more bills than it shows counts them all, lists the first and every bad row; Send creates exactly the bills the CLI\'s dry run plans', { timeout: 240_000 }, async () => {
    const client = pageClient(rig.dashboard.url);
    const csv = billsCsv(importableProjects(rig.sandbox), 'SP');
    const up = await client.upload('many-bills.csv', csv);
    expect(up.status, up.text).toBe(200);
    const upload = (up.json as { upload: string }).upload;
    const state = { upload, kind: 'bills', account: 'default', sheet: '', columns: choices(HEADERS), dateFormat: 'auto', decimalSeparator: 'auto' };
    const checked = await client.post('/import/check', state);
    expect(checked.status, checked.text).toBe(200);
    const check = checked.json as Check;
    const badBills = new Set(BAD_LINES.map((l) => Math.floor((l - 2) / 2)));
    expect(check.rows).toBe(BILLS * 2);
    expect(check.recordCount).toBe(BILLS - badBills.size);
    expect(check.alreadyCreated).toBe(0);
    // Only the first SHOWN_ROWS records travel to the page, in the file's order.
    expect(check.records).toHaveLength(SHOWN_ROWS);
    const firsts = check.records.map((r) => r.lines[0]!);
    expect(firsts).toEqual([...firsts].sort((a, b) => a - b));
    // Every bad row with its cell, and the rows table shows them beside the first rows.
    expect(check.invalid.filter((i) => i.column === 'rate').map((i) => i.line)).toEqual(BAD_LINES);
    const shownLines = new Set(check.shown.map((r) => r.line));
    for (const l of BAD_LINES) expect(shownLines.has(l)).toBe(true);

    // The CLI's dry run of the same file with the mapping the page downloads: the reference.
    const mapping = await client.post('/import/mapping.json', state);
    expect(mapping.status, mapping.text).toBe(200);
    const file = join(work, 'many-bills.csv');
    const mapFile = join(work, 'mapping.json');
    const report = join(work, 'many-bills.report.csv');
    writeFileSync(file, csv);
    writeFileSync(mapFile, mapping.text);
    const cli = await runCli(['import', 'bills', file, '--mapping', mapFile, '--dry-run', '--print-payloads', '--report', report], { ...rig.env, REDIS_URL, BUILDSYNC_PREFIX: rig.t.prefix }, { cwd: work, timeoutMs: 60_000 });
    expect(cli.code, cli.stderr).toBe(1);
    const payloads = cli.stdout.trim().split('\n');
    expect(payloads).toHaveLength(BILLS - badBills.size);
    // The records the check shows are the CLI's first ones, payload for payload.
    expect(check.records.map((r) => r.payload)).toEqual(payloads.slice(0, SHOWN_ROWS));
    const invalidLines = parseReport(readFileSync(report, 'utf8')).filter((r) => r.status === 'invalid').map((r) => Number(r.line));

    const before = rig.sandbox.bills().length;
    const sent = await client.send(upload);
    expect(sent.status, sent.text).toBe(200);
    const importId = (sent.json as { importId: string }).importId;
    await waitFor('the import is done', async () => ((await client.call(`/import/status.json?id=${importId}`)).json as { done: boolean }).done, 180_000);
    // Exactly the bills the CLI planned, each sent once, and none of the invalid ones.
    expect(rig.sandbox.bills().slice(before).map((b) => b.info).sort()).toEqual([...payloads].sort());
    // Its report counts the rows the CLI's report marks invalid, and names the file as uploaded.
    const status = (await client.call(`/import/status.json?id=${importId}`)).json as { invalidRows: number; counts: { created: number } };
    expect(status.invalidRows).toBe(invalidLines.length);
    expect(status.counts.created).toBe(payloads.length);
    const pageReport = await client.call(`/import/report.csv?id=${importId}`);
    expect(parseReport(pageReport.text).filter((r) => r.status === 'invalid').map((r) => Number(r.line))).toEqual(invalidLines);
    expect(pageReport.text).not.toContain('buildsync-uploads-');
  });
});

describe('a check that takes more memory than the reader thread has', () => {
  let rig: ImportPageRig;

  beforeAll(async () => {
    // Enough for the first reading (the head of the file), too little for one estimate of every row.
    rig = await startImportPageRig({ limits: 'none', browser: false, worker: false, env: { BUILDSYNC_UPLOAD_READER_MB: '48' } });
  }, 60_000);

  afterAll(() => rig?.close());

  it('is a clear error for that upload, and the dashboard goes on serving /import', { timeout: 240_000 }, async () => {
    const client = pageClient(rig.dashboard.url);
    const headers = ['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'qty', 'unit_cost'];
    const [project] = importableProjects(rig.sandbox);
    // One estimate of every row: the plan holds it whole until its last row, as it must.
    const rows = Array.from({ length: 120_000 }, (_, i) => `${project},Tower,General,Labor ${i % 50},Crew day ${i} ${'x'.repeat(40)},2,640`);
    const up = await client.upload('one-big-estimate.csv', `${headers.join(',')}\n${rows.join('\n')}\n`, 'estimates');
    expect(up.status, up.text).toBe(200);
    const checked = await client.post('/import/check', { upload: (up.json as { upload: string }).upload, kind: 'estimates', account: 'default', sheet: '', columns: choices(headers) });
    expect(checked.status, checked.text).toBe(400);
    expect((checked.json as { error: string }).error).toBe('one-big-estimate.csv could not be read: reading it took more than the 48 MB of memory one reading may take here. Export the sheet you import as CSV, or split the file.');
    expect((await client.call('/import')).status).toBe(200);
    // And the next upload is read and checked by a reader started again.
    const small = await client.upload('small.csv', `${headers.join(',')}\n${project},Tower,General,Labor,Crew day,2,640\n`, 'estimates');
    expect(small.status, small.text).toBe(200);
    const again = await client.post('/import/check', { upload: (small.json as { upload: string }).upload, kind: 'estimates', account: 'default', sheet: '', columns: choices(headers) });
    expect(again.status, again.text).toBe(200);
    expect((again.json as { recordCount: number }).recordCount).toBe(1);
  });
});
