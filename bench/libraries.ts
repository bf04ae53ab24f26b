/**
 * The hand-written parts beside the libraries that could replace them, each measured in one run
 * on the same input, every implementation in a child process of its own (its time and peak RSS
 * its own), rounds alternated, the median time and the highest peak RSS kept:
 *
 *  - zip reader (src/tables/xlsx/zip.ts, every part inflated and checked) against yauzl
 *    (`lazyEntries`, `openReadStream`) and fflate's streaming `Unzip`, on an .xlsx of one big sheet;
 *  - zip writer (src/export/xlsx/zip-writer.ts) against yazl and fflate's streaming `Zip`, writing
 *    the same parts at the same deflate level (1) to a file;
 *  - the listing reader (src/api/json-array-stream.ts) against stream-json (`parser()` +
 *    `streamArray()`), on a JSON array of realistic project records read from a file.
 *
 * The CSV formatter and the .xlsx writer are compared with csv-stringify and exceljs' streaming
 * writer by `npm run bench -- export-format`; docs/benchmarks.md ("Libraries") holds both.
 *
 *   npm run bench -- libraries [rows] [projects] [rounds]
 *
 * Last line: {"bench":"libraries","zip_read_ratio":…,"zip_write_ratio":…,"listing_ratio":…,…}
 * where each ratio is the best library's median CPU time over ours (above 1: ours is faster), and
 * `*_rss_ratio` the same for peak RSS.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { childRole } from './lib/child-role.ts';

const SELF = fileURLToPath(import.meta.url);
const LEVEL = 1;

/** A worksheet's XML as a spreadsheet program writes a long estimate: inline text, numbers. */
function* sheetXml(rows: number): Generator<string> {
  yield '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>';
  let batch = '';
  for (let r = 1; r <= rows; r++) {
    batch +=
      `<row r="${r}"><c r="A${r}" t="inlineStr"><is><t>Project ${1000 + (r % 300)}</t></is></c>` +
      `<c r="B${r}" t="inlineStr"><is><t>Kitchen remodel, phase ${r % 7}</t></is></c>` +
      `<c r="C${r}" t="inlineStr"><is><t>Framing lumber 2x4 #${r}</t></is></c>` +
      `<c r="D${r}"><v>${(r % 40) + 1}</v></c><c r="E${r}"><v>${((r * 37) % 10_000) / 100}</v></c>` +
      `<c r="F${r}"><v>${45000 + (r % 900)}</v></c></row>`;
    if (batch.length > 256 * 1024) {
      yield batch;
      batch = '';
    }
  }
  yield batch + '</sheetData></worksheet>';
}

const SMALL_PARTS: Array<[string, string]> = [
  ['[Content_Types].xml', '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'],
  ['_rels/.rels', '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"/>'],
  ['xl/workbook.xml', '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"/>'],
  ['xl/_rels/workbook.xml.rels', '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"/>'],
  ['xl/styles.xml', '<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"/>'],
];
const SHEET = 'xl/worksheets/sheet1.xml';

function projectRecord(i: number): Record<string, unknown> {
  return {
    ID: 100_000 + i,
    NAME: `Project ${i} – ${['Kitchen remodel', 'Smith, John', 'Office "B" fit-out', 'Café área'][i % 4]}`,
    CREATED_BY: 12,
    CREATOR_NAME: 'Alex Builder',
    LMOD: '2025-03-14T09:26:53',
    DATE_CREATED: '2024-11-02T17:00:00',
    LMOD_CON_ID: 7,
    ADDRESS: `${i} Main Street, Suite ${i % 40}`,
    CITY: 'Springfield',
    STATE: 'IL',
    ZIP: '62704',
    PROJECT_NUMBER: `P-${i}`,
    LAT: 39.7817 + i / 1e6,
    LON: -89.6501 - i / 1e6,
    COUNTRY_SETTING: 1,
    CURRENCY: 1,
    COMPANY_ID: 3,
    IS_ARCHIVED: i % 5 === 0,
    IS_INACTIVE: false,
    IS_TEMPLATE: false,
    IS_UNGROUPED: true,
    CUSTOM_COLOR: '#33aa77',
    SCOPE_OF_WORK: encodeURIComponent(`<p>Scope for project ${i}: demolition, new cabinets, "quartz" counters, electrical to code.</p>`.repeat(4)),
    PROJECT_NOTES: `Gate code ${i % 10_000}.\nCall before arriving, ask for Sam.`,
    JOBSITE_INSTRUCTIONS: 'Park on the street; no work before 8am.',
    TOTAL_TIME: i % 300,
    TOTAL_MONEY: (i * 37.25) % 100_000,
    PROJECT_TYPE: 'Residential',
    ATTACH_FOLDER_ID: null,
    PRIMARY_SCHEDULE: null,
  };
}

// ---- the roles, each run in a child of its own -------------------------------------------------

type Role = (input: string, out: string) => Promise<number>;

const ROLES: Record<string, Role> = {
  async 'zip-read:ours'(input) {
    const { openZip } = await import('../src/tables/xlsx/zip.ts');
    const handle = await open(input, 'r');
    try {
      const zip = await openZip(input, handle);
      let bytes = 0;
      for (const entry of zip.entries()) for await (const chunk of zip.read(entry)) bytes += chunk.length;
      return bytes;
    } finally {
      await handle.close();
    }
  },
  async 'zip-read:yauzl'(input) {
    const yauzl = await import('yauzl');
    return new Promise((resolve, reject) => {
      yauzl.open(input, { lazyEntries: true, validateEntrySizes: true }, (err, zip) => {
        if (err) return reject(err);
        let bytes = 0;
        zip.on('error', reject);
        zip.on('end', () => resolve(bytes));
        zip.on('entry', (entry) => {
          zip.openReadStream(entry, (e, stream) => {
            if (e) return reject(e);
            stream.on('data', (c: Buffer) => (bytes += c.length));
            stream.on('error', reject);
            stream.on('end', () => zip.readEntry());
          });
        });
        zip.readEntry();
      });
    });
  },
  async 'zip-read:fflate'(input) {
    const { Unzip, UnzipInflate } = await import('fflate');
    let bytes = 0;
    let failed: unknown;
    const unzip = new Unzip((file) => {
      file.ondata = (err, data) => {
        if (err) failed = err;
        bytes += data.length;
      };
      file.start();
    });
    unzip.register(UnzipInflate);
    for await (const chunk of createReadStream(input, { highWaterMark: 64 * 1024 })) unzip.push(chunk as Buffer);
    unzip.push(new Uint8Array(0), true);
    if (failed) throw failed;
    return bytes;
  },

  async 'zip-write:ours'(rows, out) {
    const { ZipWriter } = await import('../src/export/xlsx/zip-writer.ts');
    const file = await open(out, 'w');
    try {
      const zip = new ZipWriter({ write: async (c) => void (await file.write(c)) }, out);
      for (const [name, xml] of SMALL_PARTS) await zip.add(name, xml);
      const sheet = await zip.stream(SHEET);
      for (const xml of sheetXml(Number(rows))) await sheet.write(Buffer.from(xml, 'utf8'));
      await sheet.end();
      await zip.finish();
    } finally {
      await file.close();
    }
    return (await stat(out)).size;
  },
  async 'zip-write:yazl'(rows, out) {
    const { ZipFile } = await import('yazl');
    const zip = new ZipFile();
    for (const [name, xml] of SMALL_PARTS) zip.addBuffer(Buffer.from(xml, 'utf8'), name, { compressionLevel: LEVEL });
    zip.addReadStream(Readable.from(sheetXml(Number(rows)), { objectMode: false }), SHEET, { compressionLevel: LEVEL });
    zip.end();
    await pipeline(zip.outputStream, createWriteStream(out));
    return (await stat(out)).size;
  },
  async 'zip-write:fflate'(rows, out) {
    const { Zip, ZipDeflate } = await import('fflate');
    const file = createWriteStream(out);
    let failed: unknown;
    let finished = false;
    // fflate calls back synchronously inside `push`; the file stream's back-pressure is honoured
    // between pushes, as a caller streaming an export would.
    const zip = new Zip((err, data, final) => {
      if (err) failed = err;
      else file.write(data);
      if (final) finished = true;
    });
    const drained = async () => {
      if (failed) throw failed;
      if (file.writableNeedDrain) await new Promise<void>((resolve) => file.once('drain', () => resolve()));
    };
    const enc = new TextEncoder();
    for (const [name, xml] of SMALL_PARTS) {
      const part = new ZipDeflate(name, { level: LEVEL });
      zip.add(part);
      part.push(enc.encode(xml), true);
      await drained();
    }
    const sheet = new ZipDeflate(SHEET, { level: LEVEL });
    zip.add(sheet);
    let previous: string | undefined;
    for (const xml of sheetXml(Number(rows))) {
      if (previous !== undefined) sheet.push(enc.encode(previous));
      previous = xml;
      await drained();
    }
    sheet.push(enc.encode(previous ?? ''), true);
    zip.end();
    await drained();
    if (!finished) throw new Error('fflate did not finish the archive');
    await new Promise<void>((resolve, reject) => file.end((err?: Error | null) => (err ? reject(err) : resolve())));
    return (await stat(out)).size;
  },

  async 'listing:ours'(input) {
    const { parseJsonArrayStream } = await import('../src/api/json-array-stream.ts');
    let n = 0;
    for await (const batch of parseJsonArrayStream(createReadStream(input, { highWaterMark: 64 * 1024 }))) n += batch.length;
    return n;
  },
  async 'listing:stream-json'(input) {
    const { parser } = await import('stream-json');
    const { streamArray } = await import('stream-json/streamers/stream-array.js');
    const { default: chain } = await import('stream-chain');
    let n = 0;
    const c = chain([createReadStream(input, { highWaterMark: 64 * 1024 }), parser(), streamArray()]);
    c.on('data', () => void n++);
    await new Promise<void>((resolve, reject) => {
      c.on('end', resolve);
      c.on('error', reject);
    });
    return n;
  },
};

async function runRole(name: string, input: string, out: string): Promise<void> {
  const role = ROLES[name];
  if (!role) throw new Error(`no role ${name}`);
  const t = performance.now();
  const cpu = process.cpuUsage();
  const result = await role(input, out);
  const ms = performance.now() - t;
  const used = process.cpuUsage(cpu);
  const rssMb = process.resourceUsage().maxRSS / 1024;
  console.log(JSON.stringify({ role: name, ms, cpuMs: (used.user + used.system) / 1000, rssMb, result }));
}

// ---- the parent: inputs, rounds, the table ----------------------------------------------------

interface Figure {
  /** Wall time of each round. */
  ms: number[];
  /** CPU time of each round (every thread of the child, zlib's pool included). */
  cpuMs: number[];
  rssMb: number;
  result: number;
}

async function measure(names: string[], input: string, out: string, rounds: number): Promise<Map<string, Figure>> {
  const figures = new Map<string, Figure>(names.map((n) => [n, { ms: [], cpuMs: [], rssMb: 0, result: 0 }]));
  for (let round = 0; round < rounds; round++) {
    // Alternate the order so that neither side always runs on a warmer page cache.
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const child = await childRole(['--import', 'tsx', SELF], ['--role', name, input, out]);
      await child.done;
      const line = JSON.parse(child.last) as { ms: number; cpuMs: number; rssMb: number; result: number };
      const f = figures.get(name)!;
      f.ms.push(line.ms);
      f.cpuMs.push(line.cpuMs);
      f.rssMb = Math.max(f.rssMb, line.rssMb);
      f.result = line.result;
    }
  }
  return figures;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

function table(title: string, figures: Map<string, Figure>, unit: string): { time: number; rss: number } {
  console.log(`\n${title}`);
  const ours = [...figures.entries()].find(([n]) => n.endsWith(':ours'))![1];
  let time = Infinity;
  let rss = Infinity;
  for (const [name, f] of figures) {
    const m = median(f.ms);
    const cpu = median(f.cpuMs);
    // The ratio is taken on CPU time: on a shared machine wall time measures the neighbours too.
    const tr = cpu / median(ours.cpuMs);
    const rr = f.rssMb / ours.rssMb;
    if (!name.endsWith(':ours')) {
      time = Math.min(time, tr);
      rss = Math.min(rss, rr);
    }
    console.log(
      `  ${name.padEnd(20)} CPU ${cpu.toFixed(0).padStart(6)} ms (${f.cpuMs.map((x) => x.toFixed(0)).join(', ')}), wall ${m.toFixed(0).padStart(6)} ms  ` +
        `peak RSS ${f.rssMb.toFixed(0).padStart(4)} MB  ${tr.toFixed(2)}× ours in CPU time, ${rr.toFixed(2)}× in memory  ${f.result} ${unit}`,
    );
  }
  return { time, rss };
}

async function main(): Promise<void> {
  const started = performance.now();
  const rows = Number(process.argv[2] ?? 300_000);
  const projects = Number(process.argv[3] ?? 60_000);
  const rounds = Number(process.argv[4] ?? 3);
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-libraries-'));
  try {
    const workbook = path.join(dir, 'book.xlsx');
    const listing = path.join(dir, 'listing.json');
    const out = path.join(dir, 'out.zip');
    await runRoleInline('zip-write:ours', String(rows), workbook);
    let json = '[';
    const chunks: string[] = [];
    for (let i = 0; i < projects; i++) {
      json += (i ? ',' : '') + JSON.stringify(projectRecord(i));
      if (json.length > 1 << 20) {
        chunks.push(json);
        json = '';
      }
    }
    chunks.push(json + ']');
    await writeFile(listing, chunks.join(''));
    const bookSize = (await stat(workbook)).size;
    const listingSize = (await stat(listing)).size;
    console.log(
      `inputs: ${rows} rows in an .xlsx of ${(bookSize / 1e6).toFixed(1)} MB; ${projects} projects, ` +
        `${(listingSize / 1e6).toFixed(0)} MB of JSON; ${rounds} rounds, each role in its own process`,
    );

    const read = table(
      'zip reader (every part inflated and checked)',
      await measure(['zip-read:ours', 'zip-read:yauzl', 'zip-read:fflate'], workbook, out, rounds),
      'bytes',
    );
    const write = table(
      'zip writer (5 small parts and one streamed sheet, deflate level 1, to a file)',
      await measure(['zip-write:ours', 'zip-write:yazl', 'zip-write:fflate'], String(rows), out, rounds),
      'bytes written',
    );
    const listingFig = table(
      'listing reader (a JSON array from a file, every element parsed)',
      await measure(['listing:ours', 'listing:stream-json'], listing, out, rounds),
      'elements',
    );
    const round2 = (x: number) => Math.round(x * 100) / 100;
    console.log(
      JSON.stringify({
        bench: 'libraries',
        zip_read_ratio: round2(read.time),
        zip_read_rss_ratio: round2(read.rss),
        zip_write_ratio: round2(write.time),
        zip_write_rss_ratio: round2(write.rss),
        listing_ratio: round2(listingFig.time),
        listing_rss_ratio: round2(listingFig.rss),
        seconds: round2((performance.now() - started) / 1000),
      }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function runRoleInline(name: string, input: string, out: string): Promise<void> {
  const role = ROLES[name];
  if (!role) throw new Error(`no role ${name}`);
  await role(input, out);
}

const [, , first, roleName = '', roleInput = '', roleOut = ''] = process.argv;
if (first === '--role') await runRole(roleName, roleInput, roleOut);
else await main();
