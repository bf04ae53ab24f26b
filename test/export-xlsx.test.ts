/**
 * `export projects --format xlsx` (issue 27), end to end through the binary against the sandbox:
 * the workbook read back with an independent reader (test/helpers/xlsx-parts.ts: the zip's
 * parts inflated with node:zlib, the sheet XML checked cell by cell), then converted to CSV by
 * LibreOffice and compared with the tool's own CSV export of the same listing.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_FIELDS } from '../src/api/project-fields.ts';
import { CLI_BUNDLE, CLI_NODE_FLAGS } from './helpers/cli-path.ts';
import { runCli, type CliResult } from './helpers/cli.ts';
import { exportRig, tempFiles, type ExportRig } from './helpers/export-rig.ts';
import { REDIS_URL } from './helpers/redis.ts';
import { hasSoffice, libreOfficeCsv, sheetRows, SOFFICE, zipParts, type SheetCell } from './helpers/xlsx-parts.ts';

const col = (name: string) => PROJECT_FIELDS.indexOf(name);

/** The projects the issue names, laid over the sandbox's generated ones. */
const SPECIAL: Record<string, Record<string, unknown>> = {
  zeros: { NAME: 'Zero lead', PROJECT_NUMBER: '02134', ZIP: '00501', LMOD: '2024-03-05T14:22:11.37', DATE_CREATED: '2023-12-31T23:59:59', IS_ARCHIVED: true, ATTACH_FOLDER_ID: null, TOTAL_MONEY: -1234.5 },
  long: { NAME: 'Long digits', PROJECT_NUMBER: '123456789012345678901', ZIP: '1234567890123', CUSTOM_COLOR: '#00ff00' },
  formulas: { NAME: '=HYPERLINK("http://evil.example","click")', ADDRESS: '+1 Main St', CITY: '-Springfield', STATE: '@SUM(A1)', PROJECT_NOTES: '=1+1' },
  unicode: { NAME: 'Müller & Söhne — 東京 <Ōsaka> 🏗', CREATOR_NAME: 'Zoë Ångström', ADDRESS: '  spaced  ', PROJECT_NOTES: 'tab\there _x0041_ stays' },
};

let rig: ExportRig;
const ids: Record<string, number> = {};
beforeAll(async () => {
  rig = await exportRig({ projects: 30 });
  for (const [key, fields] of Object.entries(SPECIAL)) ids[key] = rig.sandbox.addProject(fields);
});
afterAll(async () => {
  await rig?.close();
});

function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(args, { ...process.env, ...rig.env, REDIS_URL, BUILDSYNC_PREFIX: rig.prefix, LOG_LEVEL: 'warn', ...env }, { cwd: rig.dir, timeoutMs: 60_000 });
}

async function readSheet(file: string) {
  const parts = zipParts(await readFile(file));
  const xml = parts.get('xl/worksheets/sheet1.xml')!.data.toString('utf8');
  return { parts, xml, rows: sheetRows(xml) };
}

function rowOf(rows: SheetCell[][], id: number): SheetCell[] {
  const row = rows.find((r) => r[0]?.v === String(id));
  if (!row) throw new Error(`no row for project ${id}`);
  return row;
}

const expectedCount = () =>
  rig.sandbox.visibleProjectIds(rig.sandbox.credentials.email, true).filter((id) => rig.sandbox.project(id)?.NAME !== 'My Documents').length;

describe('export projects --format xlsx', () => {
  it('writes one sheet Projects with typed cells, the header bold, frozen and filtered', async () => {
    const r = await cli(['export', 'projects', '--no-queue', '--format', 'xlsx', '--out', 'typed.xlsx']);
    expect(r.code, r.stderr).toBe(0);
    const file = path.join(rig.dir, 'typed.xlsx');
    expect(r.stdout).toContain(`wrote ${expectedCount()} projects to ${file}`);
    const { parts, xml, rows } = await readSheet(file);

    // Every part deflated; one sheet named Projects.
    expect([...parts.keys()].sort()).toEqual(['[Content_Types].xml', '_rels/.rels', 'xl/_rels/workbook.xml.rels', 'xl/styles.xml', 'xl/workbook.xml', 'xl/worksheets/sheet1.xml']);
    for (const [name, part] of parts) expect(part.method, name).toBe(8);
    const workbook = parts.get('xl/workbook.xml')!.data.toString('utf8');
    expect([...workbook.matchAll(/<sheet\b[^>]*name="([^"]+)"/g)].map((m) => m[1])).toEqual(['Projects']);

    // Header: the seed's fields in order, bold (its style's font is bold), frozen, filtered.
    const styles = parts.get('xl/styles.xml')!.data.toString('utf8');
    const xfs = [.../<cellXfs[^>]*>([\s\S]*?)<\/cellXfs>/.exec(styles)![1]!.matchAll(/<xf\b[^>]*>/g)].map((m) => m[0]);
    const fonts = [.../<fonts[^>]*>([\s\S]*?)<\/fonts>/.exec(styles)![1]!.matchAll(/<font>([\s\S]*?)<\/font>/g)].map((m) => m[1]!);
    expect(rows[0]!.map((c) => c.text)).toEqual([...PROJECT_FIELDS]);
    for (const c of rows[0]!) {
      const font = Number(/fontId="(\d+)"/.exec(xfs[c.s ?? 0]!)![1]);
      expect(fonts[font]).toContain('<b/>');
    }
    expect(xml).toMatch(/<pane\b[^>]*ySplit="1"[^>]*state="frozen"/);
    expect(xml).toContain(`<autoFilter ref="A1:BM${expectedCount() + 1}"/>`);
    expect(rows).toHaveLength(expectedCount() + 1);

    // Never a formula, whatever a text starts with.
    expect(xml).not.toMatch(/<f[\s>]/);

    // The date style: numFmt yyyy-mm-dd hh:mm.
    const dateStyle = rowOf(rows, ids.zeros!)[col('LMOD')]!.s!;
    const numFmtId = /numFmtId="(\d+)"/.exec(xfs[dateStyle]!)![1];
    expect(styles).toMatch(new RegExp(`<numFmt numFmtId="${numFmtId}" formatCode="yyyy\\\\-mm\\\\-dd\\\\ hh:mm"/>`));

    const zeros = rowOf(rows, ids.zeros!);
    expect(zeros[col('PROJECT_NUMBER')]).toMatchObject({ t: 'inlineStr', text: '02134' });
    expect(zeros[col('ZIP')]).toMatchObject({ t: 'inlineStr', text: '00501' });
    expect(zeros[col('IS_ARCHIVED')]).toMatchObject({ t: 'b', v: '1' });
    expect(zeros[col('IS_TEMPLATE')]).toMatchObject({ t: 'b', v: '0' });
    expect(zeros[col('TOTAL_MONEY')]).toMatchObject({ t: undefined, v: '-1234.5' });
    expect(zeros[col('ATTACH_FOLDER_ID')]).toMatchObject({ t: undefined, v: undefined, text: undefined });
    // Dates: the wall-clock time as the serial (no zone shift), seconds and milliseconds kept.
    const serial = (iso: string) => (Date.parse(`${iso}Z`) - Date.UTC(1899, 11, 30)) / 86_400_000;
    expect(zeros[col('LMOD')]).toMatchObject({ t: undefined, s: dateStyle });
    expect(Number(zeros[col('LMOD')]!.v)).toBeCloseTo(serial('2024-03-05T14:22:11.37'), 9);
    expect(Number(zeros[col('DATE_CREATED')]!.v)).toBeCloseTo(serial('2023-12-31T23:59:59'), 9);
    // Integers and decimals: number cells.
    expect(zeros[col('ID')]).toMatchObject({ t: undefined, v: String(ids.zeros) });
    expect(Number(zeros[col('LAT')]!.v)).toBe(rig.sandbox.project(ids.zeros!)!.LAT);

    const long = rowOf(rows, ids.long!);
    expect(long[col('PROJECT_NUMBER')]).toMatchObject({ t: 'inlineStr', text: '123456789012345678901' });
    expect(long[col('ZIP')]).toMatchObject({ t: 'inlineStr', text: '1234567890123' });

    const formulas = rowOf(rows, ids.formulas!);
    for (const name of ['NAME', 'ADDRESS', 'CITY', 'STATE', 'PROJECT_NOTES']) {
      expect(formulas[col(name)], name).toMatchObject({ t: 'inlineStr', text: SPECIAL.formulas![name] });
    }

    const unicode = rowOf(rows, ids.unicode!);
    expect(unicode[col('NAME')]!.text).toBe(SPECIAL.unicode!.NAME);
    expect(unicode[col('CREATOR_NAME')]!.text).toBe('Zoë Ångström');
    expect(unicode[col('ADDRESS')]!.xml).toContain('<t xml:space="preserve">  spaced  </t>');
    expect(unicode[col('PROJECT_NOTES')]!.text).toBe('tab\there _x0041_ stays');

    // SCOPE_OF_WORK percent-decoded, as in the CSV.
    const scope = rowOf(rows, ids.zeros!)[col('SCOPE_OF_WORK')]!;
    expect(scope.text).toBe(decodeURIComponent(rig.sandbox.project(ids.zeros!)!.SCOPE_OF_WORK as string));
    expect(await tempFiles(rig.dir)).toEqual([]);
  });

  it.skipIf(!hasSoffice)('reads in LibreOffice as the same values as the CSV export', async () => {
    expect(SOFFICE, 'LibreOffice is missing: apt-get install libreoffice-calc-nogui').toBeDefined();
    const x = await cli(['export', 'projects', '--no-queue', '--out', 'same.xlsx']);
    expect(x.code, x.stderr).toBe(0);
    const c = await cli(['export', 'projects', '--no-queue', '--out', 'same.csv']);
    expect(c.code, c.stderr).toBe(0);
    const work = await mkdtemp(path.join(tmpdir(), 'export-xlsx-lo-'));
    try {
      const converted = libreOfficeCsv(path.join(rig.dir, 'same.xlsx'), path.join(work, 'out'), path.join(work, 'profile'));
      const fromExcel = parse(await readFile(converted, 'utf8'), { relax_column_count: true }) as string[][];
      const fromCsv = parse(await readFile(path.join(rig.dir, 'same.csv'), 'utf8')) as string[][];
      expect(fromExcel).toHaveLength(fromCsv.length);
      expect(fromExcel[0]).toEqual(fromCsv[0]);
      let compared = 0;
      for (let i = 1; i < fromCsv.length; i++) {
        const want = fromCsv[i]!.map(normalised);
        const got = PROJECT_FIELDS.map((_, j) => normalised(fromExcel[i]![j] ?? ''));
        expect(got, `row ${i}: project ${fromCsv[i]![0]}`).toEqual(want);
        compared++;
      }
      expect(compared).toBe(expectedCount());
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }, 120_000);

  it('chooses .xlsx for an --out ending in .xlsx, writes it to standard output with --out -, and refuses a conflicting --format', async () => {
    const r = await cli(['export', 'projects', '--no-queue', '--out', 'by-name.xlsx']);
    expect(r.code, r.stderr).toBe(0);
    expect((await readFile(path.join(rig.dir, 'by-name.xlsx'))).subarray(0, 2).toString()).toBe('PK');

    const bad = await cli(['export', 'projects', '--no-queue', '--format', 'csv', '--out', 'bad.xlsx']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--out bad.xlsx names an .xlsx workbook but --format is csv');
    expect(await readdir(rig.dir)).not.toContain('bad.xlsx');

    // Standard output as bytes (runCli decodes text).
    const child = spawn(process.execPath, [...CLI_NODE_FLAGS, CLI_BUNDLE, 'export', 'projects', '--no-queue', '--format', 'xlsx', '--out', '-'], {
      cwd: rig.dir,
      env: { ...process.env, ...rig.env, REDIS_URL, BUILDSYNC_PREFIX: rig.prefix, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => chunks.push(b));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const rows = sheetRows(zipParts(Buffer.concat(chunks)).get('xl/worksheets/sheet1.xml')!.data.toString('utf8'));
    expect(rows).toHaveLength(expectedCount() + 1);
  });

  it('keeps the changes file of --changes as CSV beside the workbook', async () => {
    const r = await cli(['export', 'projects', '--no-queue', '--out', 'with-changes.xlsx', '--changes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(path.join(rig.dir, 'with-changes-changes.csv'));
    const changes = parse(await readFile(path.join(rig.dir, 'with-changes-changes.csv'), 'utf8')) as string[][];
    expect(changes[0]!.slice(0, 2)).toEqual(['change', 'ID']);
    expect(changes).toHaveLength(expectedCount() + 1);
  });

  it('runs as a queued job and on a schedule with --format xlsx', async () => {
    await rig.startHost();
    const job = await rig.submit({ format: 'xlsx', out: path.join(rig.dir, 'queued.xlsx') });
    const done = await rig.settle(job);
    expect(done.state, done.job.failedReason).toBe('completed');
    const { rows } = await readSheet(path.join(rig.dir, 'queued.xlsx'));
    expect(rows).toHaveLength(expectedCount() + 1);

    const s = await cli(['schedule', 'export-projects', '--cron', '0 2 * * *', '--format', 'xlsx', '--out-dir', rig.dir, '--name', 'xlsx-nightly']);
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toContain(`${rig.dir}/projects-YYYY-MM-DD.xlsx`);
    const list = await cli(['schedule', 'list', '--json']);
    expect((JSON.parse(list.stdout) as { schedules: { name: string; format: string }[] }).schedules).toContainEqual(expect.objectContaining({ name: 'xlsx-nightly', format: 'xlsx' }));
  });
});

/**
 * A cell as both files mean it: the CSV's `'` formula guard removed, booleans and numbers compared
 * as values, date-times to the second (LibreOffice writes `YYYY-MM-DD HH:MM:SS`), line breaks as LF.
 */
function normalised(cell: string): string {
  let s = cell.replace(/\r\n?/g, '\n');
  if (/^'[=+\-@\t\r]/.test(s)) s = s.slice(1);
  if (/^(true|false)$/i.test(s)) return s.toLowerCase();
  const dt = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d+)?$/.exec(s);
  if (dt) return `${dt[1]} ${dt[2]}`;
  if (/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(s) && !/^-?0\d/.test(s)) return `number ${Number(s)}`;
  return s;
}
