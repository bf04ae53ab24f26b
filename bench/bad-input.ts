/**
 * Peak memory of the CLI on inputs far larger than any real row (docs/reading-rules.md limits): a
 * 200 MB cell, a 200 MB header line, a 100,000-column header, a 200 MB file with an open quote;
 * and the hostile workbooks of test/helpers/hostile-workbooks.ts (XML nested 100,000 deep, the
 * `<col hidden>`, sheet, shared-string and merge bombs, rows repeated, backward or past 1,048,576,
 * 20,000 hidden rows), small files that inflate to megabytes of XML.
 * Each must stop with a short error (exit 2) in memory that does not grow with the input.
 *
 *   npm run bench -- bad-input [MB]     (default 200)
 *   npm run bench -- bad-input xlsx     (the hostile workbooks only: small files, a minute)
 *
 * The files are generated once into bench/data/ (git-ignored). Each case runs the shipped
 * esbuild bundle (`npm run build`) under plain node, as a child whose peak RSS is read from
 * /proc/PID/status (VmHWM) until it exits; the floor beside it is the same bundle printing
 * `--version` (what the process costs before it reads anything). The last line is one JSON
 * object; goal: every case's peak RSS <= 300 MB, its error line < 1,000 characters.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { HOSTILE_WORKBOOKS } from '../test/helpers/hostile-workbooks.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '..');
const BUNDLE = path.join(ROOT, 'dist', 'buildsync.mjs');
const HEADER = 'project_id,estimate_name,category,subcategory,item,qty,unit_cost\n';

interface Case {
  name: string;
  file: string;
  /** Writes the file: `write(chunk)` as often as needed. */
  make(write: (s: string) => Promise<void>, mb: number): Promise<void>;
}

const cases: Case[] = [
  {
    name: 'cell-200mb',
    file: 'huge-cell.csv',
    async make(write, mb) {
      await write(HEADER);
      await write('10008,Kitchen,General,Labor,');
      const block = 'x'.repeat(1024 * 1024);
      for (let i = 0; i < mb; i++) await write(block);
      await write(',1,640\n');
    },
  },
  {
    name: 'header-line-200mb',
    file: 'huge-header.csv',
    async make(write, mb) {
      const block = 'project_id'.padEnd(1024 * 1024, 'y');
      for (let i = 0; i < mb; i++) await write(block);
      await write('\n1\n');
    },
  },
  {
    name: 'columns-100000',
    file: 'wide-header.csv',
    async make(write) {
      await write(Array.from({ length: 100_000 }, (_, i) => `c${i}`).join(','));
      await write('\n');
      await write(Array.from({ length: 100_000 }, () => '1').join(','));
      await write('\n');
    },
  },
  {
    name: 'open-quote-200mb',
    file: 'open-quote.csv',
    async make(write, mb) {
      await write(HEADER);
      await write('10008,"Kitchen,General,Labor,Crew day,1,640\n');
      const row = '10009,Bath,Tile,Floor,Porcelain,40,4.25\n';
      const block = row.repeat(Math.floor((1024 * 1024) / row.length));
      for (let i = 0; i < mb; i++) await write(block);
    },
  },
];

async function generate(c: Case, mb: number): Promise<string> {
  const file = path.join(here, 'data', `${mb}mb-${c.file}`);
  if (existsSync(file)) return file;
  await mkdir(path.dirname(file), { recursive: true });
  const out = createWriteStream(`${file}.tmp`);
  const write = async (s: string): Promise<void> => {
    if (!out.write(s)) await once(out, 'drain');
  };
  await c.make(write, mb);
  await new Promise<void>((resolve) => out.end(resolve));
  const { rename } = await import('node:fs/promises');
  await rename(`${file}.tmp`, file);
  return file;
}

/** Runs the bundle with `args`; its peak RSS (VmHWM) in MB, exit code, stderr and time. */
function run(args: string[]): Promise<{ code: number | null; peakMb: number; stderr: string; seconds: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [BUNDLE, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn' } });
    let stderr = '';
    let peakKb = 0;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const poll = setInterval(() => {
      readFile(`/proc/${child.pid}/status`, 'utf8').then(
        (s) => {
          const kb = Number(/VmHWM:\s+(\d+)/.exec(s)?.[1] ?? 0);
          if (kb > peakKb) peakKb = kb;
        },
        () => {},
      );
    }, 20);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(poll);
      resolve({ code, peakMb: Math.round(peakKb / 1024), stderr, seconds: (performance.now() - t0) / 1000 });
    });
  });
}

async function main(mb: number, only: 'all' | 'xlsx'): Promise<void> {
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed: ${build.stderr}`);
  const floor = await run(['--version']);
  console.log(`floor: the bundle printing --version peaks at ${floor.peakMb} MB`);
  const results: Record<string, number> = {};
  let worst = 0;
  let longestLine = 0;
  const t0 = performance.now();
  for (const c of only === 'xlsx' ? [] : cases) {
    const file = await generate(c, mb);
    const size = (await stat(file)).size;
    const r = await run(['import', 'estimates', file, '--dry-run', '--report', path.join(here, 'data', `${c.name}.report.csv`)]);
    const line = r.stderr.trim().split('\n').at(-1) ?? '';
    const longest = Math.max(...r.stderr.split('\n').map((l) => l.length));
    longestLine = Math.max(longestLine, longest);
    console.log(`${c.name}: ${(size / 1e6).toFixed(0)} MB file -> exit ${r.code} in ${r.seconds.toFixed(1)} s, peak RSS ${r.peakMb} MB, longest stderr line ${longest} chars`);
    console.log(`  ${line.slice(0, 300)}`);
    if (r.code !== 2) throw new Error(`${c.name}: expected exit 2, got ${r.code}\n${r.stderr.slice(0, 2000)}`);
    results[`${c.name}_peak_rss_mb`] = r.peakMb;
    worst = Math.max(worst, r.peakMb);
  }
  const xlsxDir = path.join(here, 'data', 'hostile-xlsx');
  await mkdir(xlsxDir, { recursive: true });
  for (const c of HOSTILE_WORKBOOKS) {
    const file = c.write(xlsxDir);
    const size = (await stat(file)).size;
    const r = await run(['import', 'estimates', file, '--dry-run', '--report', path.join(xlsxDir, `${c.file}.report.csv`)]);
    const longest = Math.max(...r.stderr.split('\n').map((l) => l.length));
    longestLine = Math.max(longestLine, longest);
    console.log(`${c.file}: ${(size / 1e3).toFixed(0)} KB file -> exit ${r.code} in ${r.seconds.toFixed(1)} s, peak RSS ${r.peakMb} MB, longest stderr line ${longest} chars`);
    console.log(`  ${(r.stderr.trim().split('\n').at(-1) ?? '').slice(0, 300)}`);
    if (r.code !== 2) throw new Error(`${c.file}: expected exit 2, got ${r.code}\n${r.stderr.slice(0, 2000)}`);
    const missing = c.says.filter((re) => !re.test(r.stderr));
    if (missing.length > 0) throw new Error(`${c.file}: the stop does not say ${missing.join(', ')}\n${r.stderr.slice(0, 2000)}`);
    results[`${c.file.replace(/\.xlsx$/, '')}_peak_rss_mb`] = r.peakMb;
    worst = Math.max(worst, r.peakMb);
  }
  console.log(`worst peak RSS ${worst} MB (goal <= 300), ${(worst / floor.peakMb).toFixed(2)}x the floor; longest error line ${longestLine} chars (goal < 1000)`);
  console.log(JSON.stringify({ bench: 'bad-input', ratio: Number((worst / floor.peakMb).toFixed(2)), peak_rss_mb: worst, floor_rss_mb: floor.peakMb, longest_line: longestLine, ...results, seconds: Number(((performance.now() - t0) / 1000).toFixed(1)) }));
}

const only = process.argv[2] === 'xlsx' ? 'xlsx' : 'all';
const mb = Number(only === 'xlsx' ? 200 : (process.argv[2] ?? 200));
main(Number.isFinite(mb) && mb > 0 ? mb : 200, only).catch((err) => {
  console.error(err);
  process.exit(1);
});
