/**
 * Quick measurement behind the choice of a hand-written CSV formatter for the project export
 * (src/export/project-writer.ts): formats 200,000 realistic ~2 KB project records with
 * csv-stringify (sync and stream) and with formatProjectCsvRow, then runs the whole
 * exportProjects engine into a temp file. Not the end-to-end export benchmark (that one needs
 * the client and the sandbox).
 *
 * And behind the hand-written .xlsx writer (src/export/xlsx/): the engine's xlsx export against
 * exceljs' streaming `WorkbookWriter` writing the same cells (numbers, booleans, dates, inline
 * text), on at most 20,000 records (`WorkbookWriter` is that slow).
 *
 *   npm run bench -- export-format [records]
 *
 * Last line: {"bench":"export-format","csv_stringify_ratio":…,"exceljs_ratio":…}: the library's
 * best time over the hand-written one's (above 1: the hand-written one is faster).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { stringify } from 'csv-stringify';
import { stringify as stringifySync } from 'csv-stringify/sync';
import { PROJECT_FIELDS } from '../src/api/project-fields.ts';
import { formatProjectCsvRow, PROJECT_CSV_HEADER } from '../src/export/project-writer.ts';
import { exportProjects } from '../src/export/index.ts';

const TOTAL = Number(process.argv[2] ?? 200_000);
// Distinct records kept in memory; the run cycles through them so the bench itself stays small.
const DISTINCT = Math.min(TOTAL, 20_000);

function makeRecord(i: number): Record<string, unknown> {
  const scope = encodeURIComponent(
    `<p>Scope for project ${i}: demolition of the existing kitchen, new cabinets, "quartz" counters, ` +
      `electrical to code, plumbing rough-in &amp; finish, drywall, paint, trim. Café área #${i % 97}.</p>` +
      `<ul><li>Phase 1, site prep</li><li>Phase 2, framing</li><li>Phase 3, finishes</li></ul>`.repeat(3),
  );
  const r: Record<string, unknown> = {};
  for (const f of PROJECT_FIELDS) r[f] = i % 7;
  Object.assign(r, {
    ID: 100_000 + i,
    NAME: `Project ${i} – ${['Kitchen remodel', 'Smith, John', 'Office "B" fit-out', '-Basement'][i % 4]}`,
    CREATOR_NAME: 'Alex Builder',
    LMOD: '2025-03-14T09:26:53',
    DATE_CREATED: '2024-11-02T17:00:00',
    ADDRESS: `${i} Main Street, Suite ${i % 40}`,
    CITY: 'Springfield',
    STATE: 'IL',
    ZIP: '62704',
    PROJECT_NUMBER: `P-${i}`,
    LAT: 39.7817 + i / 1e6,
    LON: -89.6501 - i / 1e6,
    IS_ARCHIVED: i % 5 === 0,
    IS_INACTIVE: false,
    IS_TEMPLATE: false,
    IS_UNGROUPED: true,
    CUSTOM_COLOR: '#33aa77',
    SCOPE_OF_WORK: scope,
    PROJECT_NOTES: `Gate code ${i % 10_000}.\nCall before arriving, ask for Sam.`,
    JOBSITE_INSTRUCTIONS: 'Park on the street; no work before 8am.',
    TOTAL_MONEY: (i * 37.25) % 100_000,
    PROJECT_TYPE: 'Residential',
    ATTACH_FOLDER_ID: null,
    PRIMARY_SCHEDULE: null,
    ESTIMATE_UNQUALIFIED_COMMITS: null,
  });
  return r;
}

const records = Array.from({ length: DISTINCT }, (_, i) => makeRecord(i));
const jsonBytes = records.reduce((n, r) => n + Buffer.byteLength(JSON.stringify(r)), 0) * (TOTAL / DISTINCT);
console.log(`${TOTAL} records, ${(jsonBytes / TOTAL).toFixed(0)} B of JSON each, ${(jsonBytes / 1e6).toFixed(0)} MB in all`);

/** The best time of each measurement by name, for the last line's ratios. */
const best = new Map<string, number>();

function report(name: string, ms: number, outBytes: number) {
  best.set(name, Math.min(best.get(name) ?? Infinity, ms));
  console.log(
    `${name.padEnd(28)} ${ms.toFixed(0).padStart(6)} ms  ${((outBytes / 1e6) / (ms / 1000)).toFixed(0).padStart(5)} MB/s of CSV  ` +
      `${((jsonBytes / 1e6) / (ms / 1000)).toFixed(0).padStart(5)} MB/s of JSON input  ${(TOTAL / (ms / 1000) / 1000).toFixed(0)}k rec/s`,
  );
}

function handWritten(): void {
  const t = performance.now();
  let bytes = Buffer.byteLength(PROJECT_CSV_HEADER);
  let batch = '';
  for (let i = 0; i < TOTAL; i++) {
    batch += formatProjectCsvRow(records[i % DISTINCT]!);
    if (batch.length >= 256 * 1024) {
      bytes += Buffer.from(batch).byteLength;
      batch = '';
    }
  }
  bytes += Buffer.from(batch).byteLength;
  report('hand-written formatter', performance.now() - t, bytes);
}

function csvStringifySync(): void {
  const t = performance.now();
  let bytes = 0;
  // In slices, as the sync API holds the whole output in one string.
  for (let i = 0; i < TOTAL; i += DISTINCT) {
    const out = stringifySync(records.slice(0, Math.min(DISTINCT, TOTAL - i)), {
      header: i === 0,
      columns: PROJECT_FIELDS as string[],
    });
    bytes += Buffer.byteLength(out);
  }
  report('csv-stringify sync', performance.now() - t, bytes);
}

async function csvStringifyStream(): Promise<void> {
  const t = performance.now();
  let bytes = 0;
  const s = stringify({ header: true, columns: PROJECT_FIELDS as string[] });
  s.on('data', (c: Buffer) => (bytes += c.length));
  const done = new Promise((r) => s.on('end', r));
  for (let i = 0; i < TOTAL; i++) {
    if (!s.write(records[i % DISTINCT])) await new Promise((r) => s.once('drain', r));
  }
  s.end();
  await done;
  report('csv-stringify stream', performance.now() - t, bytes);
}

async function wholeEngine(format: 'csv' | 'jsonl' | 'xlsx', total = TOTAL): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-export-'));
  async function* source() {
    for (let i = 0; i < total; i++) yield records[i % DISTINCT]!;
  }
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  try {
    const r = await exportProjects(source(), { out: path.join(dir, `p.${format}`), format, myDocuments: 'exclude' });
    report(`exportProjects ${format} to disk`, r.ms * (TOTAL / total), r.bytes);
    console.log(`${''.padEnd(28)} peak RSS ${(peak / 1e6).toFixed(0)} MB (incl. ${DISTINCT} records held by the bench)`);
  } finally {
    clearInterval(timer);
    await rm(dir, { recursive: true, force: true });
  }
}

handWritten();
csvStringifySync();
await csvStringifyStream();
handWritten();
/** exceljs' streaming writer, the cells typed as the engine's .xlsx types them. */
async function exceljsWorkbookWriter(total: number): Promise<void> {
  const { default: ExcelJS } = await import('exceljs');
  const { excelSerial } = await import('../src/export/xlsx/sheet-rows.ts');
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-export-'));
  const t = performance.now();
  try {
    const book = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path.join(dir, 'p.xlsx'), useSharedStrings: false, useStyles: true });
    const sheet = book.addWorksheet('Projects', { views: [{ state: 'frozen', ySplit: 1 }] });
    sheet.columns = PROJECT_FIELDS.map((f) => ({ header: f, key: f, style: f === 'LMOD' || f === 'DATE_CREATED' ? { numFmt: 'yyyy-mm-dd hh:mm' } : {} }));
    sheet.getRow(1).font = { bold: true };
    for (let i = 0; i < total; i++) {
      const r = records[i % DISTINCT]!;
      const values: Record<string, unknown> = {};
      for (const f of PROJECT_FIELDS) {
        const v = r[f];
        if (f === 'LMOD' || f === 'DATE_CREATED') {
          const serial = typeof v === 'string' ? excelSerial(v) : undefined;
          values[f] = serial === undefined ? v : new Date(Date.UTC(1899, 11, 30) + serial * 86_400_000);
        } else {
          values[f] = f === 'SCOPE_OF_WORK' && typeof v === 'string' ? decodeURIComponent(v) : v;
        }
      }
      sheet.addRow(values).commit();
    }
    sheet.commit();
    await book.commit();
    report('exceljs WorkbookWriter', (performance.now() - t) * (TOTAL / total), 0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await wholeEngine('csv');
await wholeEngine('jsonl');
await wholeEngine('xlsx');
const XLSX_COMPARED = Math.min(TOTAL, 20_000);
console.log(`\n.xlsx writers on ${XLSX_COMPARED} records (times scaled to ${TOTAL}):`);
await wholeEngine('csv', XLSX_COMPARED);
await wholeEngine('xlsx', XLSX_COMPARED);
await exceljsWorkbookWriter(XLSX_COMPARED);
const ratio = (library: number, ours: number) => Math.round((library / ours) * 100) / 100;
const stringifyBest = Math.min(best.get('csv-stringify sync') ?? Infinity, best.get('csv-stringify stream') ?? Infinity);
console.log(
  JSON.stringify({
    bench: 'export-format',
    csv_stringify_ratio: ratio(stringifyBest, best.get('hand-written formatter') ?? NaN),
    // The engine's .xlsx export against exceljs' streaming writer, on the same records.
    exceljs_ratio: ratio(best.get('exceljs WorkbookWriter') ?? NaN, best.get('exportProjects xlsx to disk') ?? NaN),
  }),
);
