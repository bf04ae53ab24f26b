import { readdirSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vitest/config';

/**
 * A Redis script imported from its .lua file (src/lua.d.ts) is the file's text, as esbuild's text
 * loader makes it in the bundle (bin/build.mjs) and bin/source-loader.mjs under tsx.
 */
export const luaAsText: Plugin = {
  name: 'buildsync-lua-as-text',
  enforce: 'pre',
  load(id) {
    const file = id.split('?')[0]!;
    return file.endsWith('.lua') ? `export default ${JSON.stringify(readFileSync(file, 'utf8'))};` : null;
  },
};

/**
 * The files that run a second time, on a real Redis Cluster (the `cluster` project): the queue,
 * the budget, the ledger and imports end to end, chosen to cover every key family (BullMQ flows,
 * per-account budget and ledger scripts, import bookkeeping) in about a minute. The cluster-*
 * files run only there.
 */
const ON_CLUSTER = [
  'test/ledger-no-record-sent-twice.test.ts',
  'test/throttle-settle-at-answer.test.ts',
  'test/cli-ledger.test.ts',
  'test/import-bills-queue.test.ts',
  // three worker processes sharing one account's budget: no 429, the budget kept in every window
  'test/throttle-e2e-shared-budget.test.ts',
  // the dashboard: accounts found by a scan of every master, budgets and schedules read back
  'test/dashboard-budget.test.ts',
  // the export's change state: written by a script in its account's slot, read back by HSCAN
  'test/export-changes-state.test.ts',
];

/**
 * The in-process files (`npm run test:quick` runs them alone): the test files that start no other
 * process and no browser. Chosen by what a file does, not by a list: a file is left out when it,
 * or a test helper it imports (followed through test/), loads node:child_process (the CLI, a
 * worker, redis-server, PostgreSQL, LibreOffice) or drives Chromium (playwright).
 */
const SLOW = /from ['"](node:)?child_process['"]|playwright|chromium/;
const IMPORT = /(?:from|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g;

function startsProcesses(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  if (SLOW.test(text)) return true;
  for (const [, spec] of text.matchAll(IMPORT)) {
    const target = resolve(dirname(file), spec!);
    // Only the tests' own helpers: the code under test is what the in-process files run.
    if (relative(resolve('test'), target).startsWith('..')) continue;
    if (startsProcesses(target, seen)) return true;
  }
  return false;
}

export const IN_PROCESS = readdirSync('test', { recursive: true, encoding: 'utf8' })
  .map((f) => `test/${f}`)
  .filter((f) => f.endsWith('.test.ts') && !/^test\/cluster-/.test(f))
  .filter((f) => !startsProcesses(resolve(f)))
  .sort();

/**
 * The quick tier's files (`npm run test:quick`): the in-process files but the scale tests, those
 * with a doc comment line ` * @scale` (hundreds of thousands of rows, records or projects streamed to
 * prove memory stays flat). Those run in the whole suite's isolated `single-heap` project: a heap
 * measured in a worker shared with other files counts their garbage too.
 */
const isScale = (f: string) => /^ \* @scale\b/m.test(readFileSync(f, 'utf8'));
export const QUICK = IN_PROCESS.filter((f) => !isScale(f));

/**
 * The scale tests of the whole suite (` * @scale`, in-process or not): they run isolated, in the
 * `single-heap` project, each file in a fresh worker of its own.
 */
/**
 * Files that fail after other dashboard files in a shared worker (bull-board's job page never
 * shows the running import: test line 84), not yet explained: they run isolated with the scale tests.
 */
const OWN_WORKER = ['test/dashboard-browser-running-import.test.ts'];

const SCALE = readdirSync('test', { recursive: true, encoding: 'utf8' })
  .map((f) => `test/${f}`)
  .filter((f) => f.endsWith('.test.ts') && isScale(f))
  .sort();

const common = {
  // Integration tests hold real sockets and Redis connections and spend much of their time waiting
  // on the CLI processes and servers they start (a Redis stopped for 10 s, a grace period, a
  // service's latency). Once the CLI's starts got cheap (its packages bundled), three workers left
  // the two cores 15 % idle (1.69 cores busy over the run); four keep them busy: the whole suite
  // took 383 s with three and 344 s with four, back to back on a quiet machine (docs/benchmarks.md,
  // "The test suite").
  pool: 'forks' as const,
  maxWorkers: 4,
  testTimeout: 30_000,
  // CI's Redis keeps nothing on disk; the suite sends records anyway (docs/operators.md,
  // "Durability"). The tests of the refusal unset it for their own runs.
  env: { BUILDSYNC_ALLOW_VOLATILE_REDIS: '1' },
  hookTimeout: 30_000,
};

export default defineConfig({
  plugins: [luaAsText],
  test: {
    ...common,
    projects: [
      {
        // The in-process files share their worker's modules (no isolation): each file importing
        // the whole of src/ afresh was more than half of their CPU time. They start no process,
        // restore what they change of process.env and the working directory, and each test uses
        // its own Redis prefix. Named to sort after `single`: vitest hands out the files project by
        // project in name order, and the long browser and CLI files should start first, these
        // short ones filling the workers at the end.
        plugins: [luaAsText],
        test: {
          ...common,
          name: 'single-in-process',
          // The @scale files measure their heap: they run isolated, in `single-heap`.
          include: QUICK,
          isolate: false,
        },
      },
      {
        // The files that start processes (the CLI, workers, redis-servers, PostgreSQL) or drive
        // Chromium share their worker's modules too: each file importing src/ and the test helpers
        // afresh cost more CPU than many of their tests. Each test uses its own Redis prefix,
        // temp folder and servers; a file that changes process.env or the working directory
        // restores it.
        plugins: [luaAsText],
        test: {
          ...common,
          name: 'single',
          include: ['test/**/*.test.ts'],
          exclude: ['test/cluster-*.test.ts', ...QUICK, ...SCALE, ...OWN_WORKER, '**/node_modules/**'],
          globalSetup: ['test/global-setup.ts'],
          isolate: false,
        },
      },
      {
        // The @scale files measure their heap: a worker shared with other files would count their
        // garbage too (tables-large-csv saw 107 MB against 64), so each runs isolated. None starts
        // a process: no CLI bundle to build. Named to sort between `single`, whose long files
        // should start first, and the short in-process files that fill the workers at the end.
        plugins: [luaAsText],
        test: {
          ...common,
          name: 'single-heap',
          include: [...SCALE, ...OWN_WORKER],
        },
      },
      {
        // A three-master Redis Cluster started once for the project (test/cluster-global-setup.ts);
        // test/cluster-env.ts sets REDIS_URL to it and REDIS_CLUSTER=1 before each file.
        plugins: [luaAsText],
        test: {
          ...common,
          name: 'cluster',
          include: ['test/cluster-*.test.ts', ...ON_CLUSTER],
          // Shared modules, as in single: every file of the project reads the same REDIS_URL.
          isolate: false,
          globalSetup: ['test/global-setup.ts', 'test/cluster-global-setup.ts'],
          setupFiles: ['test/cluster-env.ts'],
        },
      },
    ],
  },
});
