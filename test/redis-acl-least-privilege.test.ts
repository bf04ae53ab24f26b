import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { csv, freeProjectIds } from './helpers/import-e2e-rig.ts';
import { runCli, spawnCli, type CliResult } from './helpers/cli.ts';
import { startRedisServer, type RedisServer } from './helpers/redis-server.ts';
import { startWorkerProcess, type WorkerProcess } from './helpers/worker-processes.ts';

// Issue 13: the README's Redis ACL for a least-privilege user, run for real. A redis-server of
// this file's own (AOF fsynced on every write, so the ledger is durable without
// BUILDSYNC_ALLOW_VOLATILE_REDIS) gets the user with the README's very `ACL SETUSER` line, and the
// CLI, spawned as a child process, works as that user through the queue: a bill import (with the
// worker it starts itself), an export run by a `buildsync worker` process, `jobs`, `ledger
// export` and the dashboard. Redis must refuse nothing but `CONFIG GET` (which the tool may not
// have: it then takes the AOF as everysec, with a warning). And a user lacking a permission the
// tool needs gets exit 2 and a message naming what to grant, before anything is sent.

const ROOT = resolve(import.meta.dirname, '..');
const PASSWORD = 'acl-pw-4e7d1b';
const PREFIX = 'buildsync'; // the default BUILDSYNC_PREFIX, which the documented key pattern covers
/** Redis refused a command: at top level (NOPERM), or inside a Lua script. */
const REFUSED = /NOPERM|no permissions to run|can't run this command/i;
const STACK = /\n\s+at /;

/**
 * The documented rule, word for word: the `ACL SETUSER buildsync reset on >PASSWORD …` line of the
 * operator's guide (docs/operators.md), and the extra line for Redis 7.2 and later.
 */
function documentedRule(): { tokens: string[]; from72: string[]; source: string } {
  for (const name of ['docs/operators.md']) {
    const path = join(ROOT, name);
    if (!existsSync(path)) continue;
    const text = readFileSync(path, 'utf8');
    const line = /^ACL SETUSER buildsync (reset on >PASSWORD .+?)\s*$/m.exec(text);
    if (!line) continue;
    const from72 = /^ACL SETUSER buildsync (\+waitaof)\s*$/m.exec(text);
    return {
      tokens: line[1]!.split(/\s+/).map((t) => (t === '>PASSWORD' ? `>${PASSWORD}` : t)),
      from72: from72 ? from72[1]!.split(/\s+/) : [],
      source: name,
    };
  }
  throw new Error('no `ACL SETUSER buildsync reset on >PASSWORD …` line in docs/operators.md');
}

let server: RedisServer;
let admin: Redis;
let sandbox: Sandbox;
let dir: string;
let redisVersion: string;
let worker: WorkerProcess | undefined;
const rule = documentedRule();

/** The CLI's whole environment, as Redis user `user`. A budget is set so that the budget's Lua scripts run too. */
function env(user: string): Record<string, string> {
  return {
    BUILDSYNC_BASE_URL: sandbox.url,
    BUILDSYNC_EMAIL: sandbox.credentials.email,
    BUILDSYNC_PASSWORD: sandbox.credentials.password,
    BUILDSYNC_API_KEY: sandbox.credentials.apiKey,
    BUILDSYNC_LIMITS: 'hour=5000',
    BUILDSYNC_PREFIX: PREFIX,
    REDIS_URL: `redis://${user}:${PASSWORD}@127.0.0.1:${server.port}`,
    LOG_LEVEL: 'warn',
  };
}

function atLeast72(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map((p) => Number.parseInt(p, 10) || 0);
  return major > 7 || (major === 7 && minor >= 2);
}

/** Output of a run as the documented user: nothing refused, no stack trace, no secret. */
function expectClean(r: Pick<CliResult, 'stdout' | 'stderr'>): void {
  const all = r.stdout + r.stderr;
  expect(all).not.toMatch(REFUSED);
  expect(r.stderr).not.toMatch(STACK);
  expect(all).not.toContain(PASSWORD);
  expect(all).not.toContain(sandbox.credentials.password);
}

/** A bills file of one bill per ref, each on its own free project; the projects' ids. */
function billsFile(name: string, refs: string[]): { path: string; projects: number[] } {
  const projects = freeProjectIds(sandbox).slice(0, refs.length);
  if (projects.length < refs.length) throw new Error('not enough free projects in the sandbox');
  const path = join(dir, name);
  const rows = refs.map((ref, i) => [ref, projects[i]!, 55, `Item ${ref}`, `${10 + i}.50`]);
  writeFileSync(path, csv(['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate'], rows));
  return { path, projects };
}

const postsSoFar = () => sandbox.requests().filter((r) => r.method === 'POST').length;

beforeAll(async () => {
  [server, sandbox] = await Promise.all([startRedisServer(['--appendonly', 'yes', '--appendfsync', 'always']), startSandbox({ limits: 'none' })]);
  dir = mkdtempSync(join(tmpdir(), 'buildsync-acl-'));
  admin = new Redis({ host: '127.0.0.1', port: server.port, maxRetriesPerRequest: 1, retryStrategy: () => null });
  admin.on('error', () => {});
  redisVersion = /^redis_version:(\S+)/m.exec(await admin.info('server'))?.[1] ?? '0.0.0';
  const extra = atLeast72(redisVersion) ? rule.from72 : [];
  if (atLeast72(redisVersion)) expect(extra, `${rule.source} has no \`ACL SETUSER buildsync +waitaof\` line for Redis 7.2+`).toEqual(['+waitaof']);
  // The documented user, and two that each lack one thing the tool needs.
  await admin.call('ACL', 'SETUSER', 'buildsync', ...rule.tokens, ...extra);
  await admin.call('ACL', 'SETUSER', 'bs-noscript', ...rule.tokens, ...extra, '-@scripting');
  await admin.call('ACL', 'SETUSER', 'bs-notime', ...rule.tokens, ...extra, '-time');
  await admin.call('ACL', 'LOG', 'RESET');
});

afterAll(async () => {
  await worker?.stop();
  admin?.disconnect();
  await sandbox?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the documented least-privilege Redis user', () => {
  let importId: string;
  let exportJob: string;

  it('imports bills through the queue (exit 0, every bill created), warned that the AOF is taken as everysec', async () => {
    const { path, projects } = billsFile('bills.csv', ['ACL-1', 'ACL-2', 'ACL-3']);
    const r = await runCli(['import', 'bills', path], env('buildsync'), { cwd: dir, timeoutMs: 30_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/created 3, exists 0, skipped 0, failed 0, unknown 0/);
    expect(sandbox.bills().filter((b) => projects.includes(b.projectId))).toHaveLength(3);
    expectClean(r);
    importId = /\[import (import-[^\]]+)\]/.exec(r.stdout)![1]!;
    // CONFIG is not granted: appendfsync cannot be read, so it counts as everysec (README, Commands);
    // before 7.2 that is a warning, from 7.2 each note is confirmed with WAITAOF instead.
    if (!atLeast72(redisVersion)) expect(r.stderr).toMatch(/CONFIG GET is not permitted/);
  });

  it('exports projects through a `buildsync worker` running as that user, which the CLI sees (CLIENT SETNAME, CLIENT LIST)', async () => {
    worker = await startWorkerProcess(env('buildsync'));
    const out = join(dir, 'projects.csv');
    const r = await runCli(['export', 'projects', '--out', out], env('buildsync'), { cwd: dir, timeoutMs: 30_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/wrote \d+ projects to /);
    expect(existsSync(out)).toBe(true);
    // The worker names its connections and the CLI counts them: without either permission it
    // would start a worker of its own beside the real one.
    expect(r.stderr).not.toMatch(/no worker is running/);
    expectClean(r);
    exportJob = /\[job ([^\]]+)\]/.exec(r.stdout)![1]!;
    const code = await worker.stop();
    worker = undefined;
    expect(code).toBe(0);
  });

  it('lists and shows the jobs, and exports the ledger', async () => {
    const list = await runCli(['jobs', 'list'], env('buildsync'), { cwd: dir });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^${importId}\\timport-bills\\tcompleted`, 'm'));
    expect(list.stdout).toMatch(new RegExp(`^${exportJob}\\texport-projects\\tcompleted`, 'm'));
    expectClean(list);

    const show = await runCli(['jobs', 'show', importId], env('buildsync'), { cwd: dir });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/state\s+completed/);
    expectClean(show);

    const ledgerOut = join(dir, 'ledger.jsonl');
    const ledger = await runCli(['ledger', 'export', '--out', ledgerOut], env('buildsync'), { cwd: dir });
    expect(ledger.code, ledger.stderr).toBe(0);
    expect(readFileSync(ledgerOut, 'utf8').trim().split('\n')).toHaveLength(3);
    expectClean(ledger);
  });

  it('keeps the account\'s vendor list: vendors import, list and remove', async () => {
    const vendors = join(dir, 'acl-vendors.csv');
    writeFileSync(vendors, 'vendor,vendor_id\nAcme Supply,55\nKeystone Electric,57\n');
    const imported = await runCli(['vendors', 'import', vendors], env('buildsync'), { cwd: dir });
    expect(imported.code, imported.stderr).toBe(0);
    expectClean(imported);
    const removed = await runCli(['vendors', 'remove', 'acme supply'], env('buildsync'), { cwd: dir });
    expect(removed.code, removed.stderr).toBe(0);
    expectClean(removed);
    const list = await runCli(['vendors', 'list', '--json'], env('buildsync'), { cwd: dir });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([{ vendor: 'Keystone Electric', vendor_id: 57 }]);
    expectClean(list);
  });

  it('serves the dashboard: bull-board over the queues and the budgets', async () => {
    const dashboard = spawnCli(['dashboard', '--port', '0'], env('buildsync'), { cwd: dir });
    try {
      const url = (await dashboard.waitFor(/dashboard on (http:\/\/127\.0\.0\.1:\d+)\/queues/, { timeoutMs: 15_000 }))[1]!;
      const queues = await fetch(`${url}/queues/api/queues?activeQueue=buildsync-imports&page=1&jobsPerPage=10`);
      expect(queues.status).toBe(200);
      const names = ((await queues.json()) as { queues: Array<{ name: string }> }).queues.map((q) => q.name).sort();
      expect(names).toEqual(['buildsync-exports', 'buildsync-imports', 'buildsync-records']);
      const budget = await fetch(`${url}/budget.json`);
      expect(budget.status).toBe(200);
      expect(((await budget.json()) as { accounts: Array<{ account: string }> }).accounts.map((a) => a.account)).toContain('default');
    } finally {
      dashboard.child.kill('SIGTERM');
    }
    const exit = await dashboard.result;
    expect(exit.code).toBe(0);
    expectClean(exit);
  });

  it('was refused nothing by Redis but CONFIG GET (ACL LOG)', async () => {
    const entries = ((await admin.call('ACL', 'LOG', '128')) as unknown[][]).map((flat) => {
      const e: Record<string, string> = {};
      for (let i = 0; i + 1 < flat.length; i += 2) e[String(flat[i])] = String(flat[i + 1]);
      return e;
    });
    const refused = entries.filter((e) => e.username === 'buildsync').map((e) => `${e.reason} ${e.object} (${e.context})`);
    expect(refused.filter((r) => r !== 'command config|get (toplevel)')).toEqual([]);
  });
});

describe('a Redis user lacking a permission the tool needs', () => {
  it('without @scripting: the import stops before anything is sent, exit 2, naming NOPERM, EVAL/EVALSHA and @scripting; no stack trace', async () => {
    const posts = postsSoFar();
    const { path } = billsFile('noscript.csv', ['NOSCRIPT-1']);
    const r = await runCli(['import', 'bills', path], env('bs-noscript'), { cwd: dir, timeoutMs: 30_000 });
    const all = r.stdout + r.stderr;
    expect(r.code, all).toBe(2);
    expect(r.stderr).toMatch(/NOPERM/);
    expect(r.stderr).toMatch(/\beval(sha)?\b/i);
    expect(r.stderr).toMatch(/@scripting|\+eval\b/);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.stderr).not.toMatch(/unexpected error/);
    expect(all).not.toContain(PASSWORD);
    expect(postsSoFar()).toBe(posts);
  });

  it('without TIME, which only the Lua scripts call (Redis then names no command): exit 2, naming TIME and +time; no stack trace', async () => {
    const posts = postsSoFar();
    const { path } = billsFile('notime.csv', ['NOTIME-1']);
    const r = await runCli(['import', 'bills', path], env('bs-notime'), { cwd: dir, timeoutMs: 30_000 });
    const all = r.stdout + r.stderr;
    expect(r.code, all).toBe(2);
    expect(r.stderr).toMatch(/\+time\b/);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.stderr).not.toMatch(/unexpected error/);
    expect(all).not.toContain(PASSWORD);
    expect(postsSoFar()).toBe(posts);
  });
});
