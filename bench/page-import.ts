/**
 * The import page's memory on a big QuickBooks report (README, The import page): a 300,000-row
 * "Bill Details" CSV imported through the page's HTTP routes, the dashboard's peak RSS beside the
 * CLI's dry run of the same file (the floor).
 *
 *   npm run bench -- page-import [rows] [--concurrency N]     (default 300,000 rows, 10)
 *
 * The file is generated once into bench/data/ (git-ignored), byte for byte as QuickBooks Online
 * writes the report (the layout of test/helpers/fix-loop-flow.ts: CRLF, a title block, the header
 * on line 5, split lines under their bill, `Total for …` after a bill of several lines, bill
 * payments, a grand `TOTAL` that adds up, a blank line and the `Cash Basis …` footer; cells quoted
 * when they hold a comma). In processes of their own, from the shipped bundle (`npm run build`):
 * the sandbox (no rate limit: `limits: 'none'`, BUILDSYNC_LIMITS=none), one `buildsync worker`
 * (BUILDSYNC_CONCURRENCY, 10) and `buildsync dashboard --allow-imports`.
 *
 * - **floor**: `buildsync import bills FILE --dry-run --mapping quickbooks --vendors VENDORS.csv`, its peak RSS
 *   (VmHWM, read from /proc until it exits) and time;
 * - **page**: the requests the page's script sends (src/dashboard/page-script/), in its order:
 *   `POST /import/upload` (the file as the body), `POST /import/read` (the page state of the
 *   reading), `POST /import/check` (the vendor IDs typed, one per vendor name), `POST
 *   /import/send`, then `GET /import/status.json` once a second until the import is done. Every
 *   POST carries the dashboard's own `Origin`, as the browser's do (src/dashboard/same-origin.ts).
 *   The dashboard's VmRSS is sampled every 50 ms (its reader is a worker thread of the same
 *   process, so VmRSS and VmHWM count it) and its VmHWM read at the end.
 *
 * `ratio` is the dashboard's peak RSS over the dry run's. The goal (issue 38): the dashboard with
 * its reader ≤ 300 MB. The last line is one JSON object.
 */
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { Agent, fetch, type Response } from 'undici';
import { spawnCli, type CliProcess } from '../test/helpers/cli.ts';
import { deleteKeys } from '../test/helpers/redis.ts';
import { forkSandbox, type ForkedSandbox } from './lib/sandbox-process.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '..');
const BUNDLE = path.join(ROOT, 'dist', 'buildsync.mjs');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const GOAL_MB = 300;

const VENDORS = [
  'Summit Lumber & Millwork', 'Keystone Electric', 'Northgate Glass', 'Blue River Plumbing', 'Acme Concrete Supply',
  'Harbor Drywall, Inc.', 'Pinecrest Roofing', 'Valley HVAC Services', 'Granite State Masonry', 'Ironwood Steel Erectors',
  'Clearview Windows & Doors', 'Redline Excavation', 'Brightside Painting', 'Copperline Mechanical', 'Oakridge Cabinetry',
  'Metro Fire Protection', 'Southgate Insulation', 'Crown Tile & Stone', 'Evergreen Landscaping', 'Lakeshore Elevator Co.',
];
const ACCOUNTS = ['Job Materials', 'Subcontractors', 'Equipment Rental', 'Permits and Fees'];
const ITEMS = ['2x6 studs, 16ft', 'Delivery', '200A panel and breakers', 'Storefront glass', 'Rough-in plumbing', 'Ready-mix 4000 psi', 'Short-load fee', 'Drywall hang and finish', 'Labor, 8 hrs', 'Fuel surcharge'];
const MEMOS = ['Framing package', 'Panel upgrade', 'Storefront', 'Rough-in', '', 'Progress billing #2', 'Change order 7, per RFI 12'];
const HEADER = ['Type', 'Bill No.', 'Vendor', 'Bill Date', 'Due Date', 'Memo', 'Account', 'Line Description', 'Line Amount', 'Customer'];

/** A cell as QuickBooks writes it: quoted when it holds a comma, a quote or a line break. */
const csvCell = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const line = (cells: string[]) => `${cells.map(csvCell).join(',')}\r\n`;
/** Cents as QuickBooks shows an amount: `1,250.00`, `-3,480.00`. */
const money = (cents: number) => `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100).toLocaleString('en-US')}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;
/** A date as QuickBooks writes it in the US: MM/DD/YYYY. */
const mmddyyyy = (d: Date) => `${String(d.getUTCMonth() + 1).padStart(2, '0')}/${String(d.getUTCDate()).padStart(2, '0')}/${d.getUTCFullYear()}`;
const DAY_MS = 86_400_000;

/**
 * Writes the report: bills of 1 to 4 lines (a `Total for` line after each of several), a bill
 * payment after every 25th bill, until `rows` rows (the lines, totals and payments) lie between
 * the header and the grand total. Returns how many bills it holds.
 */
async function generate(file: string, projects: readonly string[], rows: number): Promise<number> {
  const marker = `${file}.bills`;
  if (existsSync(marker)) return Number(readFileSync(marker, 'utf8'));
  await mkdir(path.dirname(file), { recursive: true });
  const out = createWriteStream(`${file}.tmp`);
  let chunk = '';
  const put = async (cells: string[]) => {
    chunk += line(cells);
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  };
  for (const title of [['Bill Details'], ['ACME BUILDERS LLC'], ['March 1 - March 31, 2026'], []]) await put(title);
  await put(HEADER);
  let written = 0;
  let bills = 0;
  let total = 0;
  while (written < rows) {
    const b = bills++;
    const vendor = VENDORS[b % VENDORS.length]!;
    const ref = `QB-${100_000 + b}`;
    const date = new Date(Date.UTC(2026, 2, 1 + (b % 31)));
    const due = new Date(date.getTime() + 30 * DAY_MS);
    const lines = Math.max(1, Math.min(1 + (b % 4), rows - written - 1));
    let billCents = 0;
    for (let k = 0; k < lines; k++) {
      const cents = 1_000 + ((b * 7_919 + k * 104_729) % 1_250_000);
      billCents += cents;
      const account = ACCOUNTS[(b + k) % ACCOUNTS.length]!;
      const item = ITEMS[(b * 3 + k) % ITEMS.length]!;
      await put(k === 0
        ? ['Bill', ref, vendor, mmddyyyy(date), mmddyyyy(due), MEMOS[b % MEMOS.length]!, account, item, money(cents), projects[b % projects.length]!]
        : ['', '', '', '', '', '', account, item, money(cents), '']);
    }
    written += lines;
    total += billCents;
    if (lines > 1) {
      await put([`Total for ${ref}`, '', '', '', '', '', '', '', money(billCents), '']);
      written++;
    }
    if (b % 25 === 24 && written < rows) {
      const paid = -(1_000 + (b % 50_000));
      await put(['Bill Payment (Check)', String(4_000 + b), vendor, mmddyyyy(date), '', '', 'Checking', '', money(paid), '']);
      total += paid;
      written++;
    }
  }
  await put(['TOTAL', '', '', '', '', '', '', '', money(total), '']);
  await put([]);
  await put(['Cash Basis Tuesday, March 31, 2026 10:15 AM']);
  out.write(chunk);
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  await rename(`${file}.tmp`, file);
  await writeFile(marker, String(bills));
  return bills;
}

/** A process's VmRSS and VmHWM (peak) in kB; undefined once it is gone. */
async function memoryOf(pid: number): Promise<{ rssKb: number; hwmKb: number } | undefined> {
  try {
    const s = await readFile(`/proc/${pid}/status`, 'utf8');
    return { rssKb: Number(/VmRSS:\s+(\d+)/.exec(s)?.[1] ?? 0), hwmKb: Number(/VmHWM:\s+(\d+)/.exec(s)?.[1] ?? 0) };
  } catch {
    return undefined;
  }
}

/** Samples a process's VmRSS every 50 ms; `phase(name)` starts a new phase, each with its own peak. */
function rssSampler(pid: number) {
  const phases: Array<{ name: string; peakKb: number }> = [];
  let hwmKb = 0;
  const timer = setInterval(() => {
    void memoryOf(pid).then((m) => {
      if (m === undefined) return;
      hwmKb = Math.max(hwmKb, m.hwmKb);
      const p = phases.at(-1);
      if (p !== undefined) p.peakKb = Math.max(p.peakKb, m.rssKb);
    });
  }, 50);
  return {
    phase: (name: string) => phases.push({ name, peakKb: 0 }),
    async stop() {
      clearInterval(timer);
      const m = await memoryOf(pid);
      if (m !== undefined) hwmKb = Math.max(hwmKb, m.hwmKb);
      return { hwmMb: Math.round(hwmKb / 1024), phases: phases.map((p) => ({ name: p.name, peakMb: Math.round(p.peakKb / 1024) })) };
    },
  };
}

/** The CLI's dry run of the file: its peak RSS (VmHWM until it exits), its time and what it printed. */
async function dryRun(file: string, vendorsCsv: string, env: Record<string, string>): Promise<{ peakMb: number; seconds: number; summary: string }> {
  const reportFile = path.join(here, 'data', 'page-import-dry-run.report.csv');
  const cli = spawnCli(['import', 'bills', file, '--dry-run', '--mapping', 'quickbooks', '--vendors', vendorsCsv, '--report', reportFile], env, { bin: BUNDLE, keepBytes: 1 << 20 });
  let peakKb = 0;
  const poll = setInterval(() => void memoryOf(cli.child.pid!).then((m) => (peakKb = Math.max(peakKb, m?.hwmKb ?? 0))), 20);
  const r = await cli.result;
  clearInterval(poll);
  if (r.code !== 0) throw new Error(`the dry run exited ${r.code}:\n${r.stderr.slice(-3000)}`);
  const summary = `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => /\d+ (bills?|rows?)/.test(l)).slice(-3).join(' | ');
  return { peakMb: Math.round(peakKb / 1024), seconds: r.ms / 1000, summary };
}

/** The page's HTTP client: every request as the page's script sends it, with the dashboard's own Origin. */
function pageClient(url: string) {
  // As long as the dashboard takes: a browser's fetch has no time limit of its own (undici's is 300 s).
  const dispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
  const answer = async (res: Response) => {
    const text = await res.text();
    if (!res.ok) throw new Error(`${res.url}: ${res.status} ${text.slice(0, 2000)}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  return {
    post: async (route: string, body: unknown) =>
      answer(await fetch(`${url}${route}`, { dispatcher, method: 'POST', headers: { 'Content-Type': 'application/json', Origin: url }, body: JSON.stringify(body) })),
    upload: async (query: string, name: string, body: Buffer) =>
      answer(await fetch(`${url}/import/upload?${query}`, { dispatcher, method: 'POST', headers: { 'Content-Type': 'application/octet-stream', 'X-Filename': encodeURIComponent(name), Origin: url }, body })),
    get: async (route: string) => answer(await fetch(`${url}${route}`, { dispatcher })),
  };
}

interface Reading {
  upload: string;
  columns: Array<{ header: string; column: string }>;
  fillDown: Array<{ column: string; checked: boolean }>;
  vendors: Array<{ name: string; vendorId: string }>;
  layout?: { chosen?: string };
}

/** What the page has chosen after a reading, as its script's `state()` (page-script/import-state.ts) sends it, nothing changed by hand. */
function pageState(j: Reading, vendorIds: Record<string, string>) {
  return {
    upload: j.upload, kind: 'bills', account: 'default', layout: 'detect', sheet: '', hidden: 'stop',
    dateFormat: 'auto', decimalSeparator: 'auto', credits: 'ignore', discounts: false, ignoreTax: false,
    fillDown: j.fillDown.filter((f) => f.checked).map((f) => f.column), vendorIds, edits: [],
    columns: Object.fromEntries(j.columns.map((c) => [c.header, c.column ?? ''])),
  };
}

interface PageRun {
  /** The dashboard's VmRSS before the upload. */
  idleMb: number;
  peakMb: number;
  phases: Array<{ name: string; peakMb: number; seconds: number }>;
  seconds: number;
  summary: string;
  status: string;
}

/** The import through the page's routes, the dashboard's RSS sampled all along. */
async function pageImport(dashboard: CliProcess, url: string, file: string, bills: number): Promise<PageRun> {
  const http = pageClient(url);
  const idleMb = Math.round(((await memoryOf(dashboard.child.pid!))?.rssKb ?? 0) / 1024);
  console.log(`  the dashboard idle: VmRSS ${idleMb} MB`);
  const sampler = rssSampler(dashboard.child.pid!);
  const timed: Array<{ name: string; seconds: number }> = [];
  const t0 = performance.now();
  const step = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    sampler.phase(name);
    const t = performance.now();
    const v = await run().catch(async (err: unknown) => {
      const mem = await sampler.stop();
      console.log(`  ${name} failed after ${((performance.now() - t) / 1000).toFixed(1)} s; the dashboard's peak RSS so far ${mem.hwmMb} MB (${mem.phases.map((p) => `${p.name} ${p.peakMb} MB`).join(', ')})`);
      throw err;
    });
    timed.push({ name, seconds: (performance.now() - t) / 1000 });
    console.log(`  ${name}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
    return v;
  };
  const body = await readFile(file);
  const name = path.basename(file);
  const first = (await step('upload', () => http.upload('kind=bills&account=default&layout=detect', name, body))) as unknown as Reading;
  const vendorIds = Object.fromEntries(VENDORS.map((v, i) => [v, String(56 + i)]));
  const reading = (await step('read', () => http.post('/import/read', pageState(first, {})))) as unknown as Reading;
  const check = await step('check', () => http.post('/import/check', pageState(reading, vendorIds)));
  const invalid = (check.invalid as unknown[]).length;
  const summary = `${check.rows as number} rows: ${check.recordCount as number} bills to create, ${invalid} invalid`;
  console.log(`  the check: ${summary}`);
  if (check.recordCount !== bills || invalid !== 0) throw new Error(`the check found ${summary}; the file holds ${bills} bills and no invalid row`);
  const sent = await step('send', () => http.post('/import/send', { upload: reading.upload, skipInvalid: false }));
  const id = encodeURIComponent(String(sent.importId));
  const status = await step('follow', async () => {
    for (let last = 0; ; await sleep(1_000)) {
      const s = await http.get(`/import/status.json?id=${id}`);
      const c = s.counts as { created: number };
      if (s.done === true) return s;
      if (performance.now() - last > 30_000) {
        last = performance.now();
        console.log(`    created ${c.created} of ${s.records as number}, ${s.eta as string}`);
      }
    }
  });
  const seconds = (performance.now() - t0) / 1000;
  const mem = await sampler.stop();
  const counts = status.counts as Record<string, number>;
  return {
    idleMb,
    peakMb: mem.hwmMb,
    phases: mem.phases.map((p, i) => ({ ...p, seconds: timed[i]!.seconds })),
    seconds,
    summary,
    status: `${status.state as string}: created ${counts.created}, exists ${counts.exists}, failed ${counts.failed}, unknown ${counts.unknown} of ${status.records as number}`,
  };
}

/** The CLI's environment: the sandbox's account with no budget limit, Redis under the bench's prefix. */
function cliEnv(sandbox: ForkedSandbox, prefix: string, concurrency: number): Record<string, string> {
  const user = sandbox.users[0]!;
  return {
    HOME: process.env.HOME ?? '/tmp',
    REDIS_URL,
    BUILDSYNC_PREFIX: prefix,
    BUILDSYNC_BASE_URL: sandbox.url,
    BUILDSYNC_EMAIL: user.email,
    BUILDSYNC_PASSWORD: user.password,
    BUILDSYNC_API_KEY: user.apiKey,
    BUILDSYNC_LIMITS: 'none',
    BUILDSYNC_CONCURRENCY: String(concurrency),
    // A throwaway Redis that keeps nothing on disk (the tests' and benches' own).
    BUILDSYNC_ALLOW_VOLATILE_REDIS: '1',
    LOG_LEVEL: 'warn',
  };
}

async function main(rows: number, concurrency: number): Promise<void> {
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed: ${build.stderr}`);
  const sandbox = await forkSandbox({ limits: 'none' });
  const redis = new Redis(REDIS_URL);
  const prefix = `bench-page-import-${process.pid}`;
  const started: CliProcess[] = [];
  try {
    // Projects named once among those the user may put bills on (the Customer column names them).
    const names = sandbox.projectNames.filter((n, i, all) => !/[\r\n]/.test(n) && all.indexOf(n) === all.lastIndexOf(n) && i >= 0);
    const file = path.join(here, 'data', `quickbooks-bill-details-${rows}.csv`);
    const bills = await generate(file, names, rows);
    const vendorsCsv = path.join(here, 'data', 'page-import-vendors.csv');
    await writeFile(vendorsCsv, `vendor,vendor_id\n${VENDORS.map((v, i) => `${csvCell(v)},${56 + i}`).join('\n')}\n`);
    const size = (await stat(file)).size;
    console.log(`${file}: ${rows.toLocaleString('en-US')} rows, ${bills.toLocaleString('en-US')} bills, ${(size / 1e6).toFixed(1)} MB`);
    const env = cliEnv(sandbox, prefix, concurrency);

    const floor = await dryRun(file, vendorsCsv, env);
    console.log(`floor: buildsync import bills FILE --dry-run --mapping quickbooks --vendors VENDORS.csv: ${floor.seconds.toFixed(1)} s, peak RSS ${floor.peakMb} MB (${floor.summary})`);

    const worker = spawnCli(['worker'], env, { bin: BUNDLE, keepBytes: 1 << 20 });
    started.push(worker);
    await worker.waitFor(/worker running/, { stream: 'stderr', timeoutMs: 60_000 });
    const mb = Math.max(50, Math.ceil(size / 1024 / 1024) + 1);
    const dashboard = spawnCli(['dashboard', '--port', '0', '--allow-imports', '--max-upload-mb', String(mb)], env, { bin: BUNDLE, keepBytes: 1 << 20 });
    started.push(dashboard);
    const url = (await dashboard.waitFor(/dashboard on (http:\/\/127\.0\.0\.1:\d+)\/queues/, { timeoutMs: 60_000 }))[1]!;
    console.log(`page: ${url}/import (--max-upload-mb ${mb}), one worker at BUILDSYNC_CONCURRENCY=${concurrency}, BUILDSYNC_LIMITS=none`);
    const page = await pageImport(dashboard, url, file, bills);
    const stats = await sandbox.stats();
    console.log(`  the import: ${page.status}; the sandbox holds ${stats.bills} bills`);
    if (stats.bills !== bills) throw new Error(`the sandbox holds ${stats.bills} bills; the file has ${bills}`);
    for (const p of page.phases) console.log(`  ${p.name}: ${p.seconds.toFixed(1)} s, dashboard peak VmRSS ${p.peakMb} MB`);
    const ratio = page.peakMb / floor.peakMb;
    console.log(`dashboard peak RSS ${page.peakMb} MB (goal <= ${GOAL_MB}), ${ratio.toFixed(2)} x the dry run's ${floor.peakMb} MB; page ${page.seconds.toFixed(1)} s (upload to done)`);
    console.log(JSON.stringify({
      bench: 'page-import',
      ratio: Number(ratio.toFixed(2)),
      peak_rss_mb: page.peakMb,
      floor_rss_mb: floor.peakMb,
      idle_rss_mb: page.idleMb,
      goal_met: page.peakMb <= GOAL_MB,
      seconds: Number(page.seconds.toFixed(1)),
      dry_run_seconds: Number(floor.seconds.toFixed(1)),
      ...Object.fromEntries(page.phases.flatMap((p) => [[`${p.name}_peak_rss_mb`, p.peakMb], [`${p.name}_seconds`, Number(p.seconds.toFixed(1))]])),
      rows,
      bills,
      file_mb: Number((size / 1e6).toFixed(1)),
    }));
  } finally {
    for (const p of started.reverse()) {
      p.child.kill('SIGTERM');
      await p.result.catch(() => undefined);
    }
    await sandbox.close();
    await deleteKeys(redis, `${prefix}:*`);
    redis.disconnect();
  }
}

const args = process.argv.slice(2);
const at = args.indexOf('--concurrency');
const concurrency = at >= 0 ? Number(args.splice(at, 2)[1]) : 10;
const rows = Number(args[0] ?? 300_000);
if (!Number.isInteger(rows) || rows < 10 || !Number.isInteger(concurrency) || concurrency < 1) {
  console.error('usage: npm run bench -- page-import [rows] [--concurrency N]');
  process.exit(2);
}
main(rows, concurrency).catch((err) => {
  console.error(err);
  process.exit(1);
});
