/**
 * How close planning an estimate import (read + validate + map + group + hash, then the dry
 * run's report lines) comes to raw csv-parse on the same file, and how much memory it needs.
 *
 *   npx tsx bench/import-plan.ts [rows] [--tsx]   (default 1,000,000 rows: 100,000 estimates x 10)
 *
 * The file is generated once into bench/data/ (git-ignored; about 170 MB for 1,000,000 rows).
 * Raw csv-parse (`columns: true`, records counted, nothing else) and the dry run each run in a
 * child process of their own, so that the dry run's peak RSS (`process.resourceUsage().maxRSS`)
 * is its own and both start from the same state.
 *
 * The children run an esbuild bundle of this file with plain node, as `npm run build` makes the
 * CLI for production images (the same way as bench/export.ts), so that the figures are the
 * shipped build's rather than tsx's loader's (under tsx, code loaded by dynamic import behaves
 * differently in V8: objects survive young-generation collections that do not under the bundle).
 * `--tsx` runs both children through tsx instead. The last line printed is one JSON object with
 * the figures. Goal: ratio >= 0.6 and peak RSS < 512 MB.
 */
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse';

const SELF = fileURLToPath(import.meta.url);
const here = path.dirname(SELF);
/** Under node_modules so that the bundle's bare imports (csv-parse, zod, …) resolve. */
const BUNDLE = path.resolve(here, '../node_modules/.cache/buildsync-bench/import-plan.mjs');
const ROWS_PER_ESTIMATE = 10;

async function main(rows: number, useTsx: boolean): Promise<void> {
  const file = path.join(here, 'data', `estimates-${rows}.csv`);
  await generate(file, rows);
  const size = (await stat(file)).size;
  console.log(`${file}: ${rows.toLocaleString('en-US')} rows, ${(size / 1e6).toFixed(0)} MB; children run ${useTsx ? 'through tsx' : 'as an esbuild bundle'}`);
  let entry: string[];
  if (useTsx) entry = ['--import', 'tsx', SELF];
  else {
    const { build } = await import('esbuild');
    await build({ entryPoints: [SELF], outfile: BUNDLE, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning' });
    entry = [BUNDLE];
  }

  const raw = await runChild<RawResult>(entry, 'raw', file);
  console.log(`raw csv-parse (columns: true): ${raw.seconds.toFixed(1)} s, ${Math.round(raw.rows / raw.seconds).toLocaleString('en-US')} rows/s`);

  const dry = await runChild<ChildResult>(entry, 'dry', file);
  const rowsPerS = dry.rows / dry.seconds;
  const rawPerS = raw.rows / raw.seconds;
  console.log(
    `dry run (planEstimates + dryRunReport): ${dry.seconds.toFixed(1)} s, ${Math.round(rowsPerS).toLocaleString('en-US')} rows/s, ` +
      `${dry.records.toLocaleString('en-US')} estimates, ${dry.lines.toLocaleString('en-US')} report lines, peak RSS ${dry.peakRssMb} MB`,
  );
  const ratio = rowsPerS / rawPerS;
  const cpuRatio = raw.cpuSeconds / dry.cpuSeconds;
  console.log(`CPU time: raw ${raw.cpuSeconds.toFixed(1)} s, dry run ${dry.cpuSeconds.toFixed(1)} s`);
  console.log(`ratio ${ratio.toFixed(2)} (goal >= 0.6; by CPU time ${cpuRatio.toFixed(2)}), peak RSS ${dry.peakRssMb} MB (goal < 512)`);
  console.log(
    JSON.stringify({
      bench: 'import-plan',
      ratio: Math.round(ratio * 100) / 100,
      peak_rss_mb: dry.peakRssMb,
      cpu_ratio: Math.round(cpuRatio * 100) / 100,
      seconds: Math.round(dry.seconds * 10) / 10,
      cpu_seconds: Math.round(dry.cpuSeconds * 10) / 10,
      raw_cpu_seconds: Math.round(raw.cpuSeconds * 10) / 10,
      rows_per_s: Math.round(rowsPerS),
      raw_rows_per_s: Math.round(rawPerS),
      loader: useTsx ? 'tsx' : 'bundle',
    }),
  );
}

interface ChildResult {
  rows: number;
  records: number;
  lines: number;
  seconds: number;
  /** CPU time (user + system, all threads): the machine is shared, so wall time varies with others' load. */
  cpuSeconds: number;
  peakRssMb: number;
}

/** The dry run, measured inside the child from the call to planEstimates to the last report line. */
async function child(file: string): Promise<void> {
  const { planEstimates, dryRunReport } = await import('../src/import/plan.ts');
  const cpu = process.cpuUsage();
  const t = performance.now();
  const plan = await planEstimates(file, {});
  // Every report line is built, one at a time, as the dry run writes its report (dryRunReport).
  let lines = 0;
  for (const _ of dryRunReport(plan)) lines++;
  const seconds = (performance.now() - t) / 1000;
  const used = process.cpuUsage(cpu);
  if (plan.statics.length > 0) throw new Error(`the generated file has invalid rows: ${plan.statics[0]!.message}`);
  const result: ChildResult = {
    rows: plan.rows,
    records: plan.records.length,
    lines,
    seconds,
    cpuSeconds: (used.user + used.system) / 1e6,
    // maxRSS is in kilobytes (libuv's ru_maxrss).
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

interface RawResult {
  rows: number;
  seconds: number;
  cpuSeconds: number;
}

/** Runs this file's `role` (`raw` or `dry`) in a child process started with `entry`; its last stdout line is the result. */
function runChild<T>(entry: string[], role: 'raw' | 'dry', file: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...entry, `--${role}`, file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    proc.on('error', reject);
    proc.on('close', (code) => {
      if (code !== 0) return reject(new Error(`the ${role} child exited with ${code}`));
      const last = out.trim().split('\n').pop() ?? '';
      resolve(JSON.parse(last) as T);
    });
  });
}

async function rawParse(file: string): Promise<RawResult> {
  const cpu = process.cpuUsage();
  const t = performance.now();
  let rows = 0;
  await new Promise<void>((resolve, reject) => {
    const parser = parse({ columns: true });
    parser.on('data', () => rows++);
    parser.on('end', resolve);
    parser.on('error', reject);
    createReadStream(file, { highWaterMark: 256 * 1024 }).on('error', reject).pipe(parser);
  });
  const used = process.cpuUsage(cpu);
  return { rows, seconds: (performance.now() - t) / 1000, cpuSeconds: (used.user + used.system) / 1e6 };
}

const HEADER = 'project_id,estimate_name,category,subcategory,item,description,cost_code_id,unit,qty,unit_cost,line_item_markup,general_notes,markup_name,markup_value,markup_type\n';
const CATEGORIES = ['Demolition', 'Sitework', 'Concrete', 'Framing', 'Cabinetry', 'Electrical', 'Plumbing', 'Finishes'];
const SUBCATS = ['Labor', 'Materials', 'Equipment', 'Subcontract'];
const ITEMS = ['Shaker wall cabinet 30in', 'Metal stud framing', 'Footing excavation', 'Drywall hang and finish', 'LVP install', '200A panel and breakers', 'Rough-in plumbing', 'Paint walls'];
const UNITS = ['ea', 'lf', 'sf', 'cy', 'hr'];

/** Writes `rows` rows (groups of 10: one category row, seven items, two markup rows) unless the file exists with that many. */
async function generate(file: string, rows: number): Promise<void> {
  const marker = `${file}.done`;
  try {
    await stat(marker);
    return;
  } catch {
    // not generated yet
  }
  await mkdir(path.dirname(file), { recursive: true });
  const out = createWriteStream(file);
  const write = (s: string): Promise<void> | undefined => (out.write(s) ? undefined : new Promise((r) => out.once('drain', () => r())));
  await write(HEADER);
  let chunk = '';
  const estimates = Math.ceil(rows / ROWS_PER_ESTIMATE);
  let written = 0;
  for (let e = 0; e < estimates && written < rows; e++) {
    const project = 100_000 + e;
    const name = `Estimate ${e} - ${ITEMS[e % ITEMS.length]!.split(' ')[0]} package`;
    const cat = CATEGORIES[e % CATEGORIES.length]!;
    const lines: string[] = [`${project},${name},${cat},,,"Scope of ${cat.toLowerCase()}, per drawings A-101 to A-104",${100 + (e % 50)},,,,,Coordinate access with the owner,,,`];
    for (let k = 0; k < 7; k++) {
      const item = ITEMS[(e + k) % ITEMS.length]!;
      const qty = ((e * 7 + k * 13) % 900) + 1;
      const cost = `"$${(1 + ((e + k) % 1999)).toLocaleString('en-US')}.${String((e * 3 + k) % 100).padStart(2, '0')}"`;
      lines.push(`${project},${name},${cat},${SUBCATS[k % SUBCATS.length]},${item},"${item}, installed complete",${200 + k},${UNITS[k % UNITS.length]},${qty},${cost},${k % 3 === 0 ? '10%' : ''},Per spec section 0${k}-1000; verify field dimensions,,,`);
    }
    lines.push(`${project},${name},,,,,,,,,,,Company Overhead,8%,1`);
    lines.push(`${project},${name},,,,,,,,,,,Company Margin,12.5,1`);
    for (const l of lines) {
      if (written++ >= rows) break;
      chunk += `${l}\n`;
    }
    if (chunk.length > 1 << 20) {
      await write(chunk);
      chunk = '';
    }
  }
  await write(chunk);
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  createWriteStream(marker).end();
}

// Last, so that the constants above are initialised before either runs.
const args = process.argv.slice(2);
if (args[0] === '--dry') await child(args[1]!);
else if (args[0] === '--raw') process.stdout.write(`${JSON.stringify(await rawParse(args[1]!))}\n`);
else {
  const tsxAt = args.indexOf('--tsx');
  if (tsxAt >= 0) args.splice(tsxAt, 1);
  const rows = Number(args[0] ?? 1_000_000);
  if (!Number.isInteger(rows) || rows < ROWS_PER_ESTIMATE) {
    console.error('usage: npx tsx bench/import-plan.ts [rows] [--tsx]');
    process.exit(2);
  }
  await main(rows, tsxAt >= 0);
}
