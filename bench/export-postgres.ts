/**
 * `export projects --to postgres` against the CSV export of the same listing (issue 17).
 *
 *   npm run bench -- export-postgres [projects] [--tsx] [--generating]      (default 200,000 projects)
 *
 * The sandbox serves `projects` projects from a child process of its own, prerendered (every
 * record's JSON rendered once, then served from memory: the real service's CPU time is not spent
 * on the export's two cores; bench/export.ts says more), or with `--generating` generating every
 * listing as the tests' sandbox does. Then, each in a child of
 * its own so that peak RSS (`process.resourceUsage().maxRSS`) is per pipeline:
 *
 * - csv:    `runExport` to a CSV file (the floor: the same listing, parsed and written);
 * - pg:     `runExport --to postgres` into an empty `buildsync_projects` (200k rows COPied
 *           straight into it, in one transaction; the change state written to Redis);
 * - pg-again: the same with nothing changed: no project sent, no row updated.
 * These three run BENCH_ROUNDS times (default 2; the table and state dropped between rounds), and
 * the best time of each is compared: the machine is shared, and the fastest run is the least
 * disturbed. Each child reports its CPU seconds too. Last, `csv --changes` once.
 *
 * PostgreSQL: BENCH_PG_URL, or postgres@127.0.0.1:5432/test; the bench works in a schema of its
 * own (dropped at the end). Redis: REDIS_URL, under a prefix of its own (removed at the end).
 * Children run as an esbuild bundle (as bench/export.ts does), `--tsx` runs them through tsx.
 * Goals: pg / csv at most 1.5, peak RSS at most 150 MB, pg-again / csv at most 1.2 with 0 rows
 * updated. The last stdout line is one JSON object.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { childRole, type ChildRole } from './lib/child-role.ts';
import { childEntryFor, serveSandbox } from './lib/export-roles.ts';
import { BENCH_SPEC, cpuSeconds, openBenchDatabase, peakRssMb, pgRun, type PgMeasured as Measured, type PgTarget as Target } from './lib/postgres-export.ts';

const SELF = fileURLToPath(import.meta.url);
/** How children are started (bench/lib/export-roles.ts `childEntryFor`). */
let childEntry: string[] = [];

async function client(t: Target) {
  const { ServiceClient } = await import('../src/api/index.ts');
  return new ServiceClient({ baseUrl: t.url, email: t.email, password: t.password, apiKey: t.apiKey, acceptEncoding: 'identity', connections: 1 });
}

/** Rounds of csv, pg, pg-again; the best of each is compared (BENCH_ROUNDS). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

const SPEC = BENCH_SPEC;

async function csvRun(t: Target, out: string): Promise<Measured> {
  const { runExport } = await import('../src/export/run-export.ts');
  const started = performance.now();
  const c = await client(t);
  try {
    const r = await runExport(c, { ...SPEC, out });
    return { seconds: (performance.now() - started) / 1000, cpu_s: cpuSeconds(), peak_rss_mb: peakRssMb(), projects: r.projects };
  } finally {
    await c.close();
  }
}

/** The CSV export with `--changes` (change state in Redis, changes file): what tracking costs on its own. */
async function csvChangesRun(t: Target, out: string): Promise<Measured> {
  const { runExport } = await import('../src/export/run-export.ts');
  const { Redis } = await import('ioredis');
  const redis = new Redis(t.redisUrl, { maxRetriesPerRequest: null });
  const started = performance.now();
  const c = await client(t);
  try {
    const r = await runExport(c, { ...SPEC, out, changes: true }, { changeState: { redis, prefix: `${t.prefix}-changes`, account: 'bench' } });
    return { seconds: (performance.now() - started) / 1000, cpu_s: cpuSeconds(), peak_rss_mb: peakRssMb(), projects: r.projects };
  } finally {
    await c.close();
    redis.disconnect();
  }
}

function child(args: string[], onLine?: (line: string) => boolean): Promise<ChildRole> {
  return childRole(childEntry, args, onLine);
}

async function measure(role: string, t: Target, out: string): Promise<Measured> {
  const { last } = await child([role, JSON.stringify(t), out]);
  return JSON.parse(last) as Measured;
}

async function main(projects: number, useTsx: boolean, generating: boolean): Promise<void> {
  childEntry = await childEntryFor(SELF, 'export-postgres', useTsx);
  const db = await openBenchDatabase();
  if ('unavailable' in db) {
    console.error(`export-postgres: ${db.unavailable}`);
    process.exit(1);
  }
  const { pgUrl, redisUrl, prefix } = db;
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-export-pg-'));
  console.log(`starting the sandbox with ${projects.toLocaleString('en-US')} projects (a process of its own, ${generating ? 'generating every listing' : 'prerendered'})…`);
  const sandbox = await child(['sandbox', String(projects), ...(generating ? [] : ['--prerender'])], (line) => line.startsWith('{'));
  try {
    const t: Target = { ...(JSON.parse(sandbox.last) as Omit<Target, 'pgUrl' | 'redisUrl' | 'prefix'>), pgUrl, redisUrl, prefix };
    const out = path.join(dir, 'projects.csv');
    const rounds: { csv: Measured; first: Measured; again: Measured }[] = [];
    for (let r = 1; r <= ROUNDS; r++) {
      if (r > 1) {
        // The next first load starts again from nothing: no table, no change state.
        await db.reset();
      }
      const csv = await measure('csv', t, out);
      console.log(`round ${r} csv:      ${csv.seconds.toFixed(2)} s (cpu ${csv.cpu_s} s), peak RSS ${csv.peak_rss_mb} MB, ${csv.projects} projects`);
      const first = await measure('pg', t, out);
      console.log(`round ${r} pg:       ${first.seconds.toFixed(2)} s (cpu ${first.cpu_s} s), peak RSS ${first.peak_rss_mb} MB, inserted ${first.inserted}, updated ${first.updated}, removed ${first.removed}`);
      const again = await measure('pg', t, out);
      console.log(`round ${r} pg-again: ${again.seconds.toFixed(2)} s (cpu ${again.cpu_s} s), peak RSS ${again.peak_rss_mb} MB, inserted ${again.inserted}, updated ${again.updated}, removed ${again.removed}`);
      rounds.push({ csv, first, again });
    }
    // Best of the rounds for each pipeline (the machine is shared: the fastest run is the least disturbed).
    const best = (pick: (r: (typeof rounds)[number]) => Measured) => rounds.map(pick).reduce((a, b) => (b.seconds < a.seconds ? b : a));
    const csv = best((r) => r.csv);
    const first = best((r) => r.first);
    const again = best((r) => r.again);
    const peakRss = Math.max(...rounds.flatMap((r) => [r.first.peak_rss_mb, r.again.peak_rss_mb]));
    const changes = await measure('csv-changes', t, out);
    console.log(`csv --changes: ${changes.seconds.toFixed(2)} s (cpu ${changes.cpu_s} s), peak RSS ${changes.peak_rss_mb} MB (first run: every project added)`);
    const { stateBytes, stateEntries } = await db.stateSize();
    const n = await db.tableRows();
    const ratio = first.seconds / csv.seconds;
    const ratioAgain = again.seconds / csv.seconds;
    const unchangedOk = rounds.every((r) => r.again.updated === 0 && r.again.inserted === 0 && r.again.removed === 0);
    console.log(`best of ${ROUNDS}: ratio pg / csv ${ratio.toFixed(3)} (goal <= 1.5); unchanged re-run / csv ${ratioAgain.toFixed(3)} (goal <= 1.2, 0 rows updated: ${unchangedOk ? 'yes' : 'NO'}); peak RSS ${peakRss} MB (goal <= 150)`);
    console.log(`change state in Redis: ${stateEntries} projects, ${(stateBytes / 1e6).toFixed(1)} MB (MEMORY USAGE), ${Math.round(stateBytes / Math.max(1, stateEntries))} bytes per project; table rows ${n}`);
    console.log(
      JSON.stringify({
        bench: 'export-postgres',
        ratio: Number(ratio.toFixed(3)),
        ratio_unchanged: Number(ratioAgain.toFixed(3)),
        peak_rss_mb: peakRss,
        rounds: ROUNDS,
        seconds: Number(first.seconds.toFixed(2)),
        seconds_unchanged: Number(again.seconds.toFixed(2)),
        csv_seconds: Number(csv.seconds.toFixed(2)),
        cpu_s: first.cpu_s,
        cpu_s_unchanged: again.cpu_s,
        csv_cpu_s: csv.cpu_s,
        csv_peak_rss_mb: csv.peak_rss_mb,
        csv_changes_seconds: Number(changes.seconds.toFixed(2)),
        csv_changes_peak_rss_mb: changes.peak_rss_mb,
        projects: first.projects,
        inserted: first.inserted,
        updated_unchanged: again.updated,
        inserted_unchanged: again.inserted,
        table_rows: n,
        state_bytes_per_project: Math.round(stateBytes / Math.max(1, stateEntries)),
        cpu_ratio: Number((first.cpu_s / csv.cpu_s).toFixed(3)),
        sandbox: generating ? 'generating' : 'prerendered',
        loader: useTsx ? 'tsx' : 'bundle',
      }),
    );
  } finally {
    sandbox.kill();
    await sandbox.done.catch(() => {});
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const [role, ...rest] = process.argv.slice(2);
const emit = (m: Measured) => process.stdout.write(`${JSON.stringify(m)}\n`);
switch (role) {
  case 'sandbox':
    await serveSandbox(Number(rest[0]), rest[1] === '--prerender');
    break;
  case 'csv':
    emit(await csvRun(JSON.parse(rest[0]!) as Target, rest[1]!));
    break;
  case 'csv-changes':
    emit(await csvChangesRun(JSON.parse(rest[0]!) as Target, rest[1]!));
    break;
  case 'pg':
    emit(await pgRun(JSON.parse(rest[0]!) as Target, rest[1]!));
    break;
  default: {
    const args = process.argv.slice(2);
    const tsxAt = args.indexOf('--tsx');
    if (tsxAt >= 0) args.splice(tsxAt, 1);
    const generatingAt = args.indexOf('--generating');
    if (generatingAt >= 0) args.splice(generatingAt, 1);
    const projects = args[0] !== undefined ? Number(args[0]) : 200_000;
    if (!Number.isInteger(projects) || projects < 1) {
      console.error('usage: npm run bench -- export-postgres [projects] [--tsx] [--generating]');
      process.exit(2);
    }
    await main(projects, tsxAt >= 0, generatingAt >= 0);
  }
}
