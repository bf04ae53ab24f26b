/**
 * The project export against a plain download of the same listing (issues 3 and 15).
 *
 *   npm run bench -- export [projects] [--runs N] [--tsx] [--encoding E] [--naive] [--no-postgres]
 *   (default 200,000 projects, 1 run, bundled children, identity, no naive pipeline, the
 *   PostgreSQL runs when PostgreSQL answers)
 *
 * The sandbox serves `projects` projects (about 2.3 KB of JSON each: ~460 MB for 200,000) over
 * loopback from a child process of its own, so its memory is not counted. Then, each in a child
 * process of its own so that peak RSS (`process.resourceUsage().maxRSS`) is per pipeline:
 *
 * - download: GET /api/v2/Projects with undici, the body read to its end and decompressed the way
 *             the export's client does it (zlib streams; nothing to do for identity), then
 *             discarded: the floor (seconds). The ratio is export / download. (The client itself
 *             reads listings over node:http, for memory: src/api/http-transport.ts);
 * - export:   `runExport` with a `ServiceClient`, v2, CSV (seconds, peak RSS);
 * - naive (only with `--naive`): undici, the whole body as one string, one `JSON.parse`,
 *             csv-stringify to a CSV of the same columns and cell rules (seconds, peak RSS:
 *             over 2 GB). Its CSV is compared byte for byte with the export's, which checks that
 *             the export's speed did not cost its CSV rules.
 *
 * The children run an esbuild bundle of this file with plain node (as `npm run build` makes the
 * CLI for images), so that tsx's loader thread and on-the-fly transforms (~35 MB) are not counted
 * as the pipeline's; `--tsx` runs them through tsx instead. An `idle` child that loads the same
 * code and does nothing shows the runtime's own share of every peak RSS.
 *
 * All of them ask for `Accept-Encoding: identity`. Over loopback compression buys nothing and
 * costs the sandbox CPU on the same two cores; identity keeps the comparison about parsing and
 * writing, which is what the export engine decides. (The client's default is gzip/deflate/br;
 * `--encoding gzip` measures that path: the download decodes it chunk by chunk as the export
 * does, the naive pipeline in one go.)
 *
 * - postgres (issue 17; skipped with `--no-postgres`, or when PostgreSQL does not answer, which
 *             the output says): `runExport --to postgres` into an empty `buildsync_projects`
 *             (every project COPied in one transaction, the change state written to Redis), then
 *             again with nothing changed (no project sent, no row updated). These run against a
 *             second sandbox, `prerender`ed (src/sandbox/rendered-records.ts: the same bytes,
 *             served from memory), and are compared with a CSV export from that sandbox in the
 *             same run (`postgres_ratio`, `postgres_unchanged_ratio`, `postgres_cpu_ratio`: best
 *             of the runs against the best). Why: the real service's CPU time is not spent on the
 *             export's machine, but the generating sandbox spends ~2.7 s per listing on the same
 *             two cores, which the CSV export can spare and the PostgreSQL export (with
 *             PostgreSQL's backend parsing the rows on those cores too) cannot. The first load
 *             against the generating sandbox is reported beside it, against the export above
 *             (`postgres_ratio_generating_sandbox`). bench/export-postgres.ts measures the same
 *             with more detail (rounds, CPU, bytes of the change state). BENCH_PG_URL names the
 *             database (bench/lib/postgres-export.ts).
 *
 * - xlsx (issue 27): `runExport --format xlsx` against the prerendered sandbox, compared with the
 *             CSV export from that sandbox in the same run (`xlsx_ratio`: best against best, goal
 *             at most 1.6; `xlsx_peak_rss_mb`, goal at most 200). The prerendered sandbox is
 *             started for it whether or not PostgreSQL answers, and its CSV export serves both
 *             comparisons.
 *
 * The last stdout line is one JSON object with the figures. Goals: ratio (export / download
 * seconds, in the same run) at most 1.3 and the export's peak RSS at most 150 MB (issue 15);
 * postgres_ratio at most 1.5, postgres_unchanged_ratio at most 1.2 with 0 rows updated, the
 * PostgreSQL runs' peak RSS at most 150 MB (issue 17).
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { childRole, type ChildRole } from './lib/child-role.ts';
import { childEntryFor, serveSandbox } from './lib/export-roles.ts';
import { openBenchDatabase, pgRun, type PgMeasured, type PgTarget } from './lib/postgres-export.ts';

const SELF = fileURLToPath(import.meta.url);
/** How children are started (bench/lib/export-roles.ts `childEntryFor`). */
let childEntry: string[] = [];

interface Target {
  url: string;
  email: string;
  password: string;
  apiKey: string;
  /** Accept-Encoding of all three pipelines. @defaultValue 'identity' */
  encoding?: string;
}

interface Measured {
  seconds: number;
  /** CPU time of the child (user + system) over the same span: steadier than seconds on a busy machine. */
  cpu_seconds?: number;
  peak_rss_mb: number;
  bytes: number;
  projects?: number;
}

const LISTING = '/api/v2/Projects?includeClientSub=true';

function headers(t: Target): Record<string, string> {
  return {
    authorization: `Basic ${Buffer.from(`${t.email}:${t.password}`).toString('base64')}`,
    apikey: t.apiKey,
    'accept-encoding': t.encoding ?? 'identity',
    accept: 'application/json',
  };
}

/** The runtime and the export's code loaded, nothing run: every pipeline's floor of RSS. */
async function idle(): Promise<Measured> {
  await import('../src/api/index.ts');
  await import('../src/export/run-export.ts');
  await import('../src/api/project-fields.ts');
  return { seconds: 0, peak_rss_mb: peakRssMb(), bytes: 0 };
}

function cpuSeconds(since: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1e6;
}

function peakRssMb(): number {
  // maxRSS is in kilobytes (getrusage ru_maxrss on Linux).
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

// ---- the roles, each run in a child process -------------------------------------------------

async function download(t: Target): Promise<Measured> {
  const { request } = await import('undici');
  const started = performance.now();
  const cpu = process.cpuUsage();
  const res = await request(t.url + LISTING, { headers: headers(t) });
  if (res.statusCode !== 200) throw new Error(`listing answered ${res.statusCode}`);
  const coding = String(res.headers['content-encoding'] ?? 'identity');
  // The same streaming decoders as the client's (src/api/decode-body.ts), so both pay for them.
  const decoder =
    coding === 'gzip' ? zlib.createGunzip() : coding === 'br' ? zlib.createBrotliDecompress() : coding === 'deflate' ? zlib.createInflate() : undefined;
  const body: AsyncIterable<Buffer> = decoder ? res.body.pipe(decoder) : (res.body as AsyncIterable<Buffer>);
  let bytes = 0;
  for await (const chunk of body) bytes += chunk.byteLength;
  return { seconds: (performance.now() - started) / 1000, cpu_seconds: cpuSeconds(cpu), peak_rss_mb: peakRssMb(), bytes };
}

/**
 * The CSV rules of README, Reports, re-runs and `unknown` expressed as csv-stringify options: the seed's columns in
 * order, CRLF, booleans true/false, null empty, SCOPE_OF_WORK percent-decoded, text starting
 * with = + - @ TAB CR prefixed with `'` (numbers are not: a negative amount stays a number),
 * cells holding a quote, comma, CR or LF quoted.
 */
async function naive(t: Target, out: string): Promise<Measured> {
  const { PROJECT_FIELDS } = await import('../src/api/project-fields.ts');
  const { request } = await import('undici');
  const { stringify } = await import('csv-stringify');
  const started = performance.now();
  const res = await request(t.url + LISTING, { headers: headers(t) });
  if (res.statusCode !== 200) throw new Error(`listing answered ${res.statusCode}`);
  const body = Buffer.from(await res.body.arrayBuffer());
  const coding = String(res.headers['content-encoding'] ?? 'identity');
  const text = (coding === 'gzip' ? zlib.gunzipSync(body) : coding === 'br' ? zlib.brotliDecompressSync(body) : coding === 'deflate' ? zlib.inflateSync(body) : body).toString('utf8');
  const projects = JSON.parse(text) as Record<string, unknown>[];
  const guard = (s: string) => (/^[=+\-@\t\r]/.test(s) ? `'${s}` : s);
  await pipeline(
    Readable.from(projects),
    stringify({
      header: true,
      columns: [...PROJECT_FIELDS],
      record_delimiter: 'windows',
      quoted_match: /[\r\n]/,
      cast: {
        boolean: (v) => (v ? 'true' : 'false'),
        string: (v, ctx) => guard(ctx.column === 'SCOPE_OF_WORK' ? decodeURIComponent(v) : v),
        object: (v) => (v === null ? '' : guard(JSON.stringify(v))),
      },
    }),
    createWriteStream(out),
  );
  return { seconds: (performance.now() - started) / 1000, peak_rss_mb: peakRssMb(), bytes: 0, projects: projects.length };
}

async function exportReal(t: Target, out: string, format: 'csv' | 'xlsx' = 'csv'): Promise<Measured> {
  const { ServiceClient } = await import('../src/api/index.ts');
  // run-export.ts, not the engine's index: the index pulls in the import planner too.
  const { runExport } = await import('../src/export/run-export.ts');
  const started = performance.now();
  const cpu = process.cpuUsage();
  const client = new ServiceClient({ baseUrl: t.url, email: t.email, password: t.password, apiKey: t.apiKey, acceptEncoding: t.encoding ?? 'identity', connections: 1 });
  try {
    // `all` My Documents records: the same rows as the naive pipeline writes.
    const r = await runExport(client, { source: 'v2', includeClientSub: true, pageSize: 500, format, myDocuments: 'all', out });
    return { seconds: (performance.now() - started) / 1000, cpu_seconds: cpuSeconds(cpu), peak_rss_mb: peakRssMb(), bytes: r.bytes, projects: r.projects };
  } finally {
    await client.close();
  }
}

// ---- the parent --------------------------------------------------------------------------

function child(args: string[], onLine?: (line: string) => boolean): Promise<ChildRole> {
  return childRole(childEntry, args, onLine);
}

async function measure(role: string, t: Target, out?: string): Promise<Measured> {
  const { last } = await child([role, JSON.stringify(t), ...(out ? [out] : [])]);
  return JSON.parse(last) as Measured;
}

async function sha256(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}

async function main(projects: number, runs: number, useTsx: boolean, encoding: string, withNaive: boolean, withPostgres: boolean): Promise<void> {
  childEntry = await childEntryFor(SELF, 'export', useTsx);
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-export-'));
  const opened = withPostgres ? await openBenchDatabase() : undefined;
  const db = opened && !('unavailable' in opened) ? opened : undefined;
  if (opened && 'unavailable' in opened) console.log(`PostgreSQL runs skipped: ${opened.unavailable}`);
  console.log(`starting the sandbox with ${projects.toLocaleString('en-US')} projects (a process of its own)…`);
  const sandbox = await child(['sandbox', String(projects)], (line) => line.startsWith('{'));
  // The .xlsx and PostgreSQL runs' own sandbox serves the same records prerendered (see the module comment).
  console.log(`starting a prerendered sandbox for the .xlsx${db ? ' and PostgreSQL' : ''} runs…`);
  const prerendered = await child(['sandbox', String(projects), '--prerender'], (line) => line.startsWith('{')).catch(async (err: unknown) => {
    sandbox.kill();
    throw err;
  });
  try {
    const t = { ...(JSON.parse(sandbox.last) as Target), encoding };
    const tPre = { ...(JSON.parse(prerendered.last) as Target), encoding };
    // A sandbox's target with the bench's database, Redis and prefix.
    const withDb = (target: Target): PgTarget | undefined => (db ? { ...target, pgUrl: db.pgUrl, redisUrl: db.redisUrl, prefix: db.prefix } : undefined);
    const pgTarget = withDb(tPre);
    const pgGenerating = withDb(t);
    const pgBest = {
      first: undefined as PgMeasured | undefined,
      again: undefined as PgMeasured | undefined,
      /** The first load against the generating sandbox (beside `best.export`). */
      generating: undefined as PgMeasured | undefined,
      peakRss: 0,
      unchangedTouched: 0,
    };
    let downloadCpu = Infinity;
    const best = { download: Infinity, naive: undefined as Measured | undefined, export: undefined as Measured | undefined };
    /** Against the prerendered sandbox: the CSV export (the .xlsx and PostgreSQL runs' floor) and the .xlsx export. */
    const pre = { csv: undefined as Measured | undefined, xlsx: undefined as Measured | undefined, xlsxPeakRss: 0 };
    let listingBytes = 0;
    const floor = await measure('idle', t);
    for (let run = 1; run <= runs; run++) {
      const d = await measure('download', t);
      listingBytes = d.bytes;
      best.download = Math.min(best.download, d.seconds);
      downloadCpu = Math.min(downloadCpu, d.cpu_seconds!);
      const e = await measure('export', t, path.join(dir, 'export.csv'));
      if (!best.export || e.seconds < best.export.seconds) best.export = e;
      let naiveLine = '';
      if (withNaive) {
        const n = await measure('naive', t, path.join(dir, 'naive.csv'));
        if (!best.naive || n.seconds < best.naive.seconds) best.naive = n;
        naiveLine = `, naive ${n.seconds.toFixed(2)} s (${n.peak_rss_mb} MB)`;
      }
      const csv = await measure('export', tPre, path.join(dir, 'export-prerendered.csv'));
      const xlsx = await measure('export-xlsx', tPre, path.join(dir, 'export-prerendered.xlsx'));
      if (!pre.csv || csv.seconds < pre.csv.seconds) pre.csv = csv;
      if (!pre.xlsx || xlsx.seconds < pre.xlsx.seconds) pre.xlsx = xlsx;
      pre.xlsxPeakRss = Math.max(pre.xlsxPeakRss, xlsx.peak_rss_mb);
      const xlsxLine = `; prerendered sandbox: export ${csv.seconds.toFixed(2)} s, xlsx ${xlsx.seconds.toFixed(2)} s (${xlsx.peak_rss_mb} MB, ${(xlsx.bytes / 1e6).toFixed(1)} MB)`;
      let pgLine = '';
      if (db && pgTarget && pgGenerating) {
        const pg = async (target: PgTarget) => JSON.parse((await child(['pg', JSON.stringify(target), path.join(dir, 'pg.csv')])).last) as PgMeasured;
        await db.reset();
        const generating = await pg(pgGenerating);
        await db.reset();
        const first = await pg(pgTarget);
        const again = await pg(pgTarget);
        if (!pgBest.generating || generating.seconds < pgBest.generating.seconds) pgBest.generating = generating;
        if (!pgBest.first || first.seconds < pgBest.first.seconds) pgBest.first = first;
        if (!pgBest.again || again.seconds < pgBest.again.seconds) pgBest.again = again;
        pgBest.peakRss = Math.max(pgBest.peakRss, generating.peak_rss_mb, first.peak_rss_mb, again.peak_rss_mb);
        pgBest.unchangedTouched += (again.inserted ?? 0) + (again.updated ?? 0) + (again.removed ?? 0);
        pgLine =
          `, postgres ${generating.seconds.toFixed(2)} s; prerendered sandbox: ` +
          `postgres ${first.seconds.toFixed(2)} s (${first.peak_rss_mb} MB, ${first.inserted} inserted), unchanged ${again.seconds.toFixed(2)} s (${again.peak_rss_mb} MB, ${again.updated} updated)`;
      }
      console.log(`run ${run}/${runs}: download ${d.seconds.toFixed(2)} s, export ${e.seconds.toFixed(2)} s (${e.peak_rss_mb} MB)${naiveLine}${xlsxLine}${pgLine}`);
    }
    const pgFirst = pgBest.first;
    const pgAgain = pgBest.again;
    const pgCsv = pre.csv;
    const xlsxRun = pre.xlsx!;
    const xlsxRatio = xlsxRun.seconds / pre.csv!.seconds;
    const pgGen = pgBest.generating;
    const pgRows = db && pgFirst ? await db.tableRows() : undefined;
    const naiveRun = best.naive;
    const exportRun = best.export!;
    const same = naiveRun ? (await sha256(path.join(dir, 'naive.csv'))) === (await sha256(path.join(dir, 'export.csv'))) : undefined;
    const ratio = exportRun.seconds / best.download;

    console.log('');
    console.log(`listing: ${(listingBytes / 1e6).toFixed(0)} MB of JSON (decoded), ${exportRun.projects!.toLocaleString('en-US')} projects, Accept-Encoding: ${encoding}, loopback; best of ${runs}; children run ${useTsx ? 'through tsx' : 'as an esbuild bundle'}`);
    console.log(`${'pipeline'.padEnd(10)} ${'seconds'.padStart(8)} ${'peak RSS'.padStart(10)}`);
    console.log(`${'idle'.padEnd(10)} ${'-'.padStart(8)} ${`${floor.peak_rss_mb} MB`.padStart(10)}`);
    console.log(`${'download'.padEnd(10)} ${best.download.toFixed(2).padStart(8)} ${'-'.padStart(10)}   CPU ${downloadCpu.toFixed(2)} s`);
    if (naiveRun) console.log(`${'naive'.padEnd(10)} ${naiveRun.seconds.toFixed(2).padStart(8)} ${`${naiveRun.peak_rss_mb} MB`.padStart(10)}`);
    console.log(`${'export'.padEnd(10)} ${exportRun.seconds.toFixed(2).padStart(8)} ${`${exportRun.peak_rss_mb} MB`.padStart(10)}   CPU ${exportRun.cpu_seconds!.toFixed(2)} s`);
    console.log(
      `ratio export / download: ${ratio.toFixed(3)} (goal <= 1.3); export peak RSS ${exportRun.peak_rss_mb} MB (goal <= 150 MB)` +
        (same === undefined ? '; CSV not compared (--naive compares it)' : `; CSV identical to the naive pipeline's: ${same ? 'yes' : 'NO'}`),
    );
    console.log('prerendered sandbox (the service\'s CPU time off the two cores):');
    console.log(`${'export'.padEnd(10)} ${pre.csv!.seconds.toFixed(2).padStart(8)} ${`${pre.csv!.peak_rss_mb} MB`.padStart(10)}   CPU ${pre.csv!.cpu_seconds!.toFixed(2)} s`);
    console.log(`${'xlsx'.padEnd(10)} ${xlsxRun.seconds.toFixed(2).padStart(8)} ${`${xlsxRun.peak_rss_mb} MB`.padStart(10)}   CPU ${xlsxRun.cpu_seconds!.toFixed(2)} s, ${(xlsxRun.bytes / 1e6).toFixed(1)} MB written`);
    console.log(`ratio xlsx / export: ${xlsxRatio.toFixed(3)} (goal <= 1.6); xlsx peak RSS ${pre.xlsxPeakRss} MB (goal <= 200 MB)`);
    if (pgFirst && pgAgain && pgCsv && pgGen) {
      console.log(
        `${'postgres'.padEnd(10)} ${pgGen.seconds.toFixed(2).padStart(8)} ${`${pgGen.peak_rss_mb} MB`.padStart(10)}   CPU ${pgGen.cpu_s.toFixed(2)} s, against the generating sandbox: ${(pgGen.seconds / exportRun.seconds).toFixed(3)} x the export`,
      );
      console.log(
        `${'postgres'.padEnd(10)} ${pgFirst.seconds.toFixed(2).padStart(8)} ${`${pgFirst.peak_rss_mb} MB`.padStart(10)}   CPU ${pgFirst.cpu_s.toFixed(2)} s, ${pgFirst.inserted} rows inserted into an empty table (${pgRows} in it)`,
      );
      console.log(
        `${'unchanged'.padEnd(10)} ${pgAgain.seconds.toFixed(2).padStart(8)} ${`${pgAgain.peak_rss_mb} MB`.padStart(10)}   CPU ${pgAgain.cpu_s.toFixed(2)} s, the same listing again: ${pgBest.unchangedTouched} rows inserted, updated or removed`,
      );
      console.log(
        `ratio postgres / export: ${(pgFirst.seconds / pgCsv.seconds).toFixed(3)} (goal <= 1.5); unchanged / export: ${(pgAgain.seconds / pgCsv.seconds).toFixed(3)} (goal <= 1.2, 0 rows touched: ${pgBest.unchangedTouched === 0 ? 'yes' : 'NO'}); postgres peak RSS ${pgBest.peakRss} MB (goal <= 150 MB)`,
      );
    }
    console.log(
      JSON.stringify({
        bench: 'export',
        ratio: Number(ratio.toFixed(3)),
        peak_rss_mb: exportRun.peak_rss_mb,
        seconds: Number(exportRun.seconds.toFixed(2)),
        download_seconds: Number(best.download.toFixed(2)),
        export_cpu_seconds: Number(exportRun.cpu_seconds!.toFixed(2)),
        xlsx_ratio: Number(xlsxRatio.toFixed(3)),
        xlsx_peak_rss_mb: pre.xlsxPeakRss,
        xlsx_seconds: Number(xlsxRun.seconds.toFixed(2)),
        xlsx_csv_seconds: Number(pre.csv!.seconds.toFixed(2)),
        xlsx_mb: Number((xlsxRun.bytes / 1e6).toFixed(1)),
        download_cpu_seconds: Number(downloadCpu.toFixed(2)),
        ...(pgFirst && pgAgain && pgCsv && pgGen
          ? {
              postgres_ratio: Number((pgFirst.seconds / pgCsv.seconds).toFixed(3)),
              postgres_unchanged_ratio: Number((pgAgain.seconds / pgCsv.seconds).toFixed(3)),
              postgres_cpu_ratio: Number((pgFirst.cpu_s / pgCsv.cpu_seconds!).toFixed(3)),
              postgres_ratio_generating_sandbox: Number((pgGen.seconds / exportRun.seconds).toFixed(3)),
              postgres_export_seconds: Number(pgCsv.seconds.toFixed(2)),
              postgres_peak_rss_mb: pgBest.peakRss,
              postgres_seconds: Number(pgFirst.seconds.toFixed(2)),
              postgres_unchanged_seconds: Number(pgAgain.seconds.toFixed(2)),
              postgres_unchanged_rows_touched: pgBest.unchangedTouched,
              postgres_table_rows: pgRows,
            }
          : { postgres: db ? 'failed' : withPostgres ? 'unavailable' : 'skipped' }),
        ...(naiveRun ? { naive_seconds: Number(naiveRun.seconds.toFixed(2)), naive_peak_rss_mb: naiveRun.peak_rss_mb, same_csv: same } : {}),
        projects: exportRun.projects,
        idle_rss_mb: floor.peak_rss_mb,
        loader: useTsx ? 'tsx' : 'bundle',
        encoding,
        listing_mb: Math.round(listingBytes / 1e6),
        runs,
      }),
    );
  } finally {
    sandbox.kill();
    prerendered.kill();
    await sandbox.done.catch(() => {});
    await prerendered.done.catch(() => {});
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const [role, ...rest] = process.argv.slice(2);
const emit = (m: Measured) => process.stdout.write(`${JSON.stringify(m)}\n`);
switch (role) {
  case 'sandbox':
    await serveSandbox(Number(rest[0]), rest[1] === '--prerender');
    break;
  case 'download':
    emit(await download(JSON.parse(rest[0]!) as Target));
    break;
  case 'naive':
    emit(await naive(JSON.parse(rest[0]!) as Target, rest[1]!));
    break;
  case 'export':
    emit(await exportReal(JSON.parse(rest[0]!) as Target, rest[1]!));
    break;
  case 'export-xlsx':
    emit(await exportReal(JSON.parse(rest[0]!) as Target, rest[1]!, 'xlsx'));
    break;
  case 'idle':
    emit(await idle());
    break;
  case 'pg':
    process.stdout.write(`${JSON.stringify(await pgRun(JSON.parse(rest[0]!) as PgTarget, rest[1]!))}\n`);
    break;
  default: {
    const args = process.argv.slice(2);
    const runsAt = args.indexOf('--runs');
    const runs = runsAt >= 0 ? Number(args.splice(runsAt, 2)[1]) : 1;
    const encAt = args.indexOf('--encoding');
    const encoding = encAt >= 0 ? args.splice(encAt, 2)[1]! : 'identity';
    const tsxAt = args.indexOf('--tsx');
    if (tsxAt >= 0) args.splice(tsxAt, 1);
    const naiveAt = args.indexOf('--naive');
    if (naiveAt >= 0) args.splice(naiveAt, 1);
    const noPgAt = args.indexOf('--no-postgres');
    if (noPgAt >= 0) args.splice(noPgAt, 1);
    const projects = args[0] !== undefined ? Number(args[0]) : 200_000;
    if (!Number.isInteger(projects) || projects < 1 || !Number.isInteger(runs) || runs < 1) {
      console.error('usage: npm run bench -- export [projects] [--runs N] [--tsx] [--encoding identity|gzip|br|deflate] [--naive] [--no-postgres]');
      process.exit(2);
    }
    await main(projects, runs, tsxAt >= 0, encoding, naiveAt >= 0, noPgAt < 0);
  }
}
