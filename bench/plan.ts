/**
 * How fast `buildsync import bills FILE --detach` plans and submits a big file, how much memory
 * it needs, and what each pending record costs in Redis (issue 15, "Planning streams").
 *
 *   npm run bench -- plan [bills] [xlsxRows]   (defaults 100,000 one-line bills; a 200,000-row .xlsx)
 *
 * In one run, on this machine's Redis (REDIS_URL, default redis://127.0.0.1:6379) and a sandbox
 * in a process of its own:
 * - the floor: a bare BullMQ `Queue.addBulk` of as many jobs as there are bills, each job's data
 *   the bill's payload (the same size as the file's), in batches of 1,000;
 * - the CLI (an esbuild bundle of src/cli/main.ts, as `npm run build` makes it) running
 *   `import bills FILE --detach` on a generated CSV of that many one-line bills with bill_ref,
 *   timed from spawn to exit (start-up, the project listing, both passes over the file, the
 *   plan into Redis and the record jobs), its peak RSS (`process.resourceUsage().maxRSS` at exit);
 * - Redis `INFO memory` used_memory before and after the CLI's run, divided by the records it left
 *   pending (no worker runs);
 * - the same import of a generated .xlsx of `xlsxRows` one-line bills (shared strings, as Excel
 *   writes them): its peak RSS.
 * The floor and the CSV import run twice each, interleaved, and the faster of each counts (the
 * machine is shared). Every key the bench writes is under a prefix of its own, deleted at the end.
 * Goals: ratio (the CLI's records/s over addBulk's jobs/s) >= 0.5; peak RSS <= 250 MB for both
 * files; <= 1,024 Redis bytes per pending record. The last line printed is one JSON object.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { writeExcelXlsx } from '../test/helpers/excel-xml.ts';
import { forkSandbox, type ForkedSandbox } from './lib/sandbox-process.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const BUNDLE = path.resolve(here, '../node_modules/.cache/buildsync-bench/plan-cli.mjs');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const BATCH = 1_000;

/** One row of the generated files: a one-line bill. */
function billRow(i: number, projects: readonly number[]): { ref: string; project: number; vendor: number; title: string; day: number; item: string; rate: string; qty: number; notes: string } {
  const ref = `INV-${100000 + i}`;
  return {
    ref,
    project: projects[i % projects.length]!,
    vendor: 100 + (i % 7),
    title: `Bill ${ref}`,
    day: 1 + (i % 28),
    item: `Item of ${ref}`,
    rate: `${(i % 900) + 10}.50`,
    qty: 1 + (i % 5),
    notes: `Delivered to site ${i % 13}`,
  };
}

/** What the planner makes of `billRow(i)`: the job data of the floor, the same size as a real bill's. */
function billPayload(i: number, projects: readonly number[]): Record<string, unknown> {
  const r = billRow(i, projects);
  const date = `2026-03-${String(r.day).padStart(2, '0')}T00:00:00`;
  return { PRJ_ID: r.project, VENDOR_ID: r.vendor, TITLE: r.title, INVOICE_DATE: date, NOTES: r.notes, ITEMS: [{ NAME: r.item, RATE: r.rate, QTY: r.qty }] };
}

async function writeCsv(file: string, n: number, projects: readonly number[]): Promise<void> {
  const out = createWriteStream(file);
  const write = (s: string): Promise<void> | undefined => (out.write(s) ? undefined : new Promise((r) => out.once('drain', () => r())));
  let chunk = 'bill_ref,project_id,vendor_id,title,invoice_date,item_name,rate,qty,notes\n';
  for (let i = 0; i < n; i++) {
    const r = billRow(i, projects);
    chunk += `${r.ref},${r.project},${r.vendor},${r.title},2026-03-${String(r.day).padStart(2, '0')},${r.item},${r.rate},${r.qty},${r.notes}\n`;
    if (chunk.length > 1 << 20) {
      await write(chunk);
      chunk = '';
    }
  }
  await write(chunk);
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

/** An .xlsx as Excel writes one: every text in the shared strings, dates as serial numbers with a date format. */
function writeXlsx(file: string, n: number, projects: readonly number[]): void {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const s = (text: string): number => {
    let at = index.get(text);
    if (at === undefined) {
      at = strings.length;
      strings.push(text);
      index.set(text, at);
    }
    return at;
  };
  const headers = ['bill_ref', 'project_id', 'vendor_id', 'title', 'invoice_date', 'item_name', 'rate', 'qty', 'notes'];
  const rows: string[] = [`<row r="1">${headers.map((h, c) => `<c r="${String.fromCharCode(65 + c)}1" t="s"><v>${s(h)}</v></c>`).join('')}</row>`];
  // 2026-03-01 as an Excel serial date (1900 system).
  const march1 = 46082;
  for (let i = 0; i < n; i++) {
    const r = billRow(i, projects);
    const at = i + 2;
    rows.push(
      `<row r="${at}"><c r="A${at}" t="s"><v>${s(r.ref)}</v></c><c r="B${at}"><v>${r.project}</v></c><c r="C${at}"><v>${r.vendor}</v></c>` +
        `<c r="D${at}" t="s"><v>${s(r.title)}</v></c><c r="E${at}" s="1"><v>${march1 + r.day - 1}</v></c><c r="F${at}" t="s"><v>${s(r.item)}</v></c>` +
        `<c r="G${at}"><v>${r.rate}</v></c><c r="H${at}"><v>${r.qty}</v></c><c r="I${at}" t="s"><v>${s(r.notes)}</v></c></row>`,
    );
  }
  writeExcelXlsx(file, { sheets: [{ name: 'Bills', rows: rows.join('') }], sharedStrings: strings, deflate: true });
}

async function usedMemory(redis: Redis): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);
}

/** Deletes every key under `prefix` (DEL, not UNLINK: freed before the next measurement starts). */
async function cleanPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

/** The floor: `addBulk` of `n` jobs carrying the bills' payloads, in batches of 1,000; seconds. */
async function floor(redis: Redis, n: number, projects: readonly number[]): Promise<number> {
  const prefix = `bench-plan-floor-${randomUUID().slice(0, 8)}`;
  const queue = new Queue('buildsync-records', { connection: redis, prefix });
  await queue.waitUntilReady();
  try {
    const t = performance.now();
    for (let i = 0; i < n; i += BATCH) {
      const jobs = [];
      for (let j = i; j < Math.min(n, i + BATCH); j++) jobs.push({ name: 'send-bill', data: billPayload(j, projects) });
      await queue.addBulk(jobs);
    }
    return (performance.now() - t) / 1000;
  } finally {
    await queue.close();
    await cleanPrefix(redis, prefix);
  }
}

interface CliRun {
  seconds: number;
  peakRssMb: number;
  redisBytes: number;
  records: number;
  jobs: number;
}

/** `import bills FILE --detach` through the bundle, with nothing else under its prefix. */
async function importDetached(redis: Redis, sb: ForkedSandbox, dir: string, file: string): Promise<CliRun> {
  const prefix = `bench-plan-${randomUUID().slice(0, 8)}`;
  const rssFile = path.join(dir, `${prefix}.rss`);
  const user = sb.users[0]!;
  const env = {
    PATH: process.env.PATH ?? '',
    BUILDSYNC_BASE_URL: sb.url,
    BUILDSYNC_EMAIL: user.email,
    BUILDSYNC_PASSWORD: user.password,
    BUILDSYNC_API_KEY: user.apiKey,
    BUILDSYNC_LIMITS: 'none',
    BUILDSYNC_PREFIX: prefix,
    BUILDSYNC_ALLOW_VOLATILE_REDIS: '1',
    REDIS_URL,
    LOG_LEVEL: 'warn',
    BENCH_RSS_FILE: rssFile,
  };
  const before = await usedMemory(redis);
  try {
    const t = performance.now();
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', path.join(dir, 'rss.mjs'), BUNDLE, 'import', 'bills', file, '--detach', '--report', path.join(dir, 'report.csv')], {
        cwd: dir,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
      child.on('error', reject);
      child.on('close', (c) => resolve({ code: c, stdout: out, stderr: err }));
    });
    const seconds = (performance.now() - t) / 1000;
    if (code !== 0) throw new Error(`import bills ${file} --detach exited ${code}: ${stderr.trim().slice(-2000)}`);
    const importId = stdout.trim().split('\n').pop()!;
    const meta = JSON.parse((await redis.get(`${prefix}:import:${importId}:meta`)) ?? 'null') as { records: number; invalidRows: number } | null;
    if (meta === null) throw new Error(`import ${importId}: no meta under ${prefix}`);
    if (meta.invalidRows > 0) throw new Error(`the generated file has ${meta.invalidRows} invalid rows; see ${path.join(dir, 'report.csv')}`);
    const planned = await redis.hlen(`${prefix}:import:${importId}:plan`);
    const queue = new Queue('buildsync-records', { connection: redis, prefix });
    const jobs = await queue.count();
    await queue.close();
    if (planned !== meta.records || jobs === 0) throw new Error(`import ${importId}: ${meta.records} records, ${planned} in the plan, ${jobs} record jobs waiting`);
    const after = await usedMemory(redis);
    const peakRssMb = Math.round(Number(await readFile(rssFile, 'utf8')) / 1024);
    return { seconds, peakRssMb, redisBytes: after - before, records: meta.records, jobs };
  } finally {
    await cleanPrefix(redis, prefix);
  }
}

async function main(bills: number, xlsxRows: number): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'buildsync-bench-plan-'));
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const sb = await forkSandbox({});
  try {
    const { build } = await import('esbuild');
    await build({ entryPoints: [path.resolve(here, '../src/cli/main.ts')], outfile: BUNDLE, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', loader: { '.lua': 'text' }, logLevel: 'warning' });
    // The CLI's own peak RSS, read by the kernel's accounting when it exits.
    await writeFile(path.join(dir, 'rss.mjs'), "import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS)));\n");
    const projects = sb.projectIds.slice(0, 50);
    const csvFile = path.join(dir, `bills-${bills}.csv`);
    const xlsxFile = path.join(dir, `bills-${xlsxRows}.xlsx`);
    await writeCsv(csvFile, bills, projects);
    writeXlsx(xlsxFile, xlsxRows, projects);
    console.log(`fixtures in ${dir}: ${bills.toLocaleString('en-US')} one-line bills (CSV), ${xlsxRows.toLocaleString('en-US')} rows (.xlsx)`);

    let floorS = Infinity;
    let best: CliRun | undefined;
    for (let round = 0; round < 2; round++) {
      const f = await floor(redis, bills, projects);
      console.log(`addBulk floor: ${f.toFixed(2)} s, ${Math.round(bills / f).toLocaleString('en-US')} jobs/s`);
      floorS = Math.min(floorS, f);
      const run = await importDetached(redis, sb, dir, csvFile);
      console.log(
        `import bills --detach: ${run.seconds.toFixed(2)} s, ${Math.round(run.records / run.seconds).toLocaleString('en-US')} records/s, peak RSS ${run.peakRssMb} MB, ` +
          `Redis ${Math.round(run.redisBytes / run.records)} bytes per pending record (${run.jobs.toLocaleString('en-US')} record jobs)`,
      );
      if (best === undefined || run.seconds < best.seconds) best = { ...run, peakRssMb: Math.max(run.peakRssMb, best?.peakRssMb ?? 0) };
      else best.peakRssMb = Math.max(best.peakRssMb, run.peakRssMb);
    }
    const xlsx = await importDetached(redis, sb, dir, xlsxFile);
    console.log(`import bills FILE.xlsx --detach (${xlsxRows.toLocaleString('en-US')} rows): ${xlsx.seconds.toFixed(2)} s, peak RSS ${xlsx.peakRssMb} MB`);
    const ratio = best!.records / best!.seconds / (bills / floorS);
    const perRecord = Math.round(best!.redisBytes / best!.records);
    console.log(`ratio ${ratio.toFixed(2)} (goal >= 0.5), peak RSS ${best!.peakRssMb} MB and ${xlsx.peakRssMb} MB (goal <= 250), ${perRecord} Redis bytes per pending record (goal <= 1024)`);
    console.log(
      JSON.stringify({
        bench: 'plan',
        ratio: Math.round(ratio * 100) / 100,
        peak_rss_mb: best!.peakRssMb,
        xlsx_peak_rss_mb: xlsx.peakRssMb,
        redis_bytes_per_record: perRecord,
        seconds: Math.round(best!.seconds * 100) / 100,
        floor_seconds: Math.round(floorS * 100) / 100,
        xlsx_seconds: Math.round(xlsx.seconds * 100) / 100,
        records: best!.records,
        xlsx_rows: xlsxRows,
      }),
    );
  } finally {
    await sb.close();
    await redis.quit();
    await rm(dir, { recursive: true, force: true });
  }
}

const [billsArg, xlsxArg] = process.argv.slice(2);
const bills = Number(billsArg ?? 100_000);
const xlsxRows = Number(xlsxArg ?? 200_000);
if (!Number.isInteger(bills) || bills < 1 || !Number.isInteger(xlsxRows) || xlsxRows < 1) {
  console.error('usage: npm run bench -- plan [bills] [xlsxRows]');
  process.exit(2);
}
await main(bills, xlsxRows);
