/**
 * Cold start of the CLI: how long `buildsync --version`, `buildsync --help`,
 * `buildsync import bills --help` and the dry run of samples/estimates.csv take, beside bare
 * `node -e 0` in the same run (the floor: what starting node costs on this machine now). The dry
 * run loads the readers, the mapping and the configuration's schema, never the queue (BullMQ,
 * prom-client, the progress bar): `dry_run_s` is what a user's `--dry-run` costs before reading.
 *
 *   npm run bench -- startup [RUNS]     (default 21)
 *
 * It builds the bundle first (`npm run build`), then times each command RUNS times, interleaved so
 * that a busy moment of the machine hits all of them alike, through bin/buildsync.mjs (what
 * `npx buildsync` runs: the freshness check of dist/ included), and prints the medians. The last
 * line is one JSON object; goal: version_s and help_s at most 0.3 s. `ratio` is the slower of the
 * two over the floor.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'buildsync.mjs');
/** The dry run's report goes here, and it runs here: no .env of the checkout, no report beside the sample. */
const WORK = mkdtempSync(path.join(tmpdir(), 'buildsync-bench-startup-'));
/** Without the account's credentials: the dry run reads no project listing over the network. */
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BUILDSYNC_')));

const CASES = {
  node: ['-e', '0'],
  version: [BIN, '--version'],
  help: [BIN, '--help'],
  import_help: [BIN, 'import', 'bills', '--help'],
  dry_run: [BIN, 'import', 'estimates', path.join(ROOT, 'samples', 'estimates.csv'), '--dry-run', '--report', path.join(WORK, 'estimates.report.csv')],
} as const;

function time(args: readonly string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: WORK, encoding: 'utf8', env: { ...ENV, NODE_OPTIONS: '' } });
  const s = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return s;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function main(runs: number): void {
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed: ${build.stderr}`);
  const t0 = performance.now();
  const samples: Record<keyof typeof CASES, number[]> = { node: [], version: [], help: [], import_help: [], dry_run: [] };
  // One warm-up round: the first start after a build reads the files from disk.
  for (const args of Object.values(CASES)) time(args);
  for (let i = 0; i < runs; i++) for (const [name, args] of Object.entries(CASES)) samples[name as keyof typeof CASES].push(time(args));
  const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, Number(median(v).toFixed(3))])) as Record<keyof typeof CASES, number>;
  for (const [k, v] of Object.entries(samples)) {
    console.log(`${k.padEnd(12)} median ${median(v).toFixed(3)} s  (min ${Math.min(...v).toFixed(3)}, max ${Math.max(...v).toFixed(3)}, ${v.length} runs)`);
  }
  const worst = Math.max(m.version, m.help);
  console.log(`goal: --version and --help at most 0.3 s median: ${worst <= 0.3 ? 'met' : 'NOT met'} (${worst.toFixed(3)} s, ${(worst / m.node).toFixed(2)}x bare node)`);
  console.log(
    JSON.stringify({
      bench: 'startup',
      version_s: m.version,
      help_s: m.help,
      import_help_s: m.import_help,
      dry_run_s: m.dry_run,
      node_s: m.node,
      ratio: Number((worst / m.node).toFixed(2)),
      goal_met: worst <= 0.3,
      runs,
      seconds: Number(((performance.now() - t0) / 1000).toFixed(1)),
    }),
  );
}

const runs = Number(process.argv[2] ?? 21);
try {
  main(Number.isInteger(runs) && runs > 0 ? runs : 21);
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  rmSync(WORK, { recursive: true, force: true });
}
