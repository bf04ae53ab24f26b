import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { planBills } from '../src/import/index.ts';
import { submitImport } from '../src/queue/index.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { rigOnRedis, statusCounts, tally, waitForMoment, writeBillsFile, type BillsFile } from './helpers/fault-rounds.ts';
import { type E2eRig } from './helpers/import-e2e-rig.ts';
import { runCli, spawnCli, type CliProcess, type CliResult } from './helpers/cli.ts';
import { startRedisProcess, type RedisProcess } from './helpers/redis-server-process.ts';
import { startWorkerProcess, type WorkerProcess } from './helpers/worker-processes.ts';

// Issue 13, "calm and precise when Redis fails", on real processes: a `redis-server` of each
// test's own (AOF, appendfsync always) that the test stops, SIGKILLs and starts again from its
// AOF on the same port; `buildsync worker` and `buildsync import` spawned from the test bundle;
// the sandbox (every request answered after 100 ms, so that faults land mid-request) in this
// process, its store being the truth about what was created.

const LATENCY_MS = 100;
/** The knobs that bring a stalled job and a lapsed ledger claim back in seconds. */
const KNOBS = { BUILDSYNC_LOCK_MS: '1500', BUILDSYNC_LEDGER_LEASE_MS: '1500' };
/** A stack trace, printed as such or inside a JSON log line (pino's `err` with its `\n    at …`). */
const STACK_TRACE = /(?:\n|\\n)\s+at /;

let sandbox: Sandbox;
let dir: string;
/** What each test started, stopped after it whatever happened. */
let cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  sandbox = await startSandbox({ limits: 'none', projects: 60, latencyMs: LATENCY_MS });
  dir = mkdtempSync(join(tmpdir(), 'buildsync-redis-outage-'));
});
afterEach(async () => {
  // Redis back first, so that the rig's own connection closes at once; then the processes.
  for (const c of cleanups.reverse()) await c().catch(() => {});
  cleanups = [];
});
afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A redis-server (AOF, appendfsync always) and a rig on it, both closed after the test. */
async function ownRedis(args?: string[]): Promise<{ server: RedisProcess; rig: E2eRig }> {
  const server = await startRedisProcess(args);
  cleanups.push(() => server.close());
  const rig = await rigOnRedis({ sandbox, dir }, server.url);
  cleanups.push(async () => {
    if (!server.running()) await server.start();
    await rig.close();
  });
  return { server, rig };
}

async function worker(env: Record<string, string>): Promise<WorkerProcess> {
  const w = await startWorkerProcess(env);
  cleanups.push(async () => {
    if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  });
  return w;
}

async function submit(rig: E2eRig, file: BillsFile): Promise<string> {
  const plan = await planBills(file.path, { resolver: await rig.resolver() });
  return (await submitImport(rig.queues, rig.store, plan, { account: 'default', resendUnknown: false })).importId;
}

/** How many times the sandbox stored each bill of `file`, by NOTES. */
function storedTimes(file: BillsFile): number[] {
  const byNotes = new Map<string, number>();
  for (const b of sandbox.bills()) {
    const n = (JSON.parse(b.info) as { NOTES?: string }).NOTES;
    if (n !== undefined) byNotes.set(n, (byNotes.get(n) ?? 0) + 1);
  }
  return file.notes.map((n) => byNotes.get(n) ?? 0);
}

function nonEmptyLines(text: string): string[] {
  return text.split('\n').filter((l) => l.trim() !== '');
}

/** Resolves with the exit code and signal once `child` has exited. */
function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** `buildsync ARGS` spawned in `dir`, killed after the test; `result` resolves at its exit (SIGKILLed after `timeoutMs`). */
function startCli(args: string[], env: Record<string, string>, timeoutMs: number): CliProcess & { stderrAt: (re: RegExp) => number | undefined } {
  const cli = spawnCli(args, env, { cwd: dir, timeoutMs, onTimeout: 'report' });
  const chunks: Array<{ at: number; text: string }> = [];
  cli.child.stderr!.on('data', (d: Buffer) => chunks.push({ at: performance.now(), text: d.toString() }));
  cleanups.push(async () => {
    if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
  });
  // When (performance.now()) the CLI first wrote a chunk of stderr matching `re`.
  const stderrAt = (re: RegExp) => chunks.find((c) => re.test(c.text))?.at;
  return { ...cli, stderrAt };
}

describe('a worker while its Redis is away', () => {
  it('Redis killed for 10 s under a running worker gives at most 10 stderr lines and no stack trace, and the worker finishes the import after Redis returns', async () => {
    const { server, rig } = await ownRedis();
    // Two requests in flight: 60 bills take ~3 s to send, so the kill lands mid-import.
    const w = await worker({ ...rig.env, ...KNOBS, BUILDSYNC_CONCURRENCY: '2' });
    const file = writeBillsFile(rig, 'outage-worker', 60);
    const importId = await submit(rig, file);

    const moment = await waitForMoment(rig, file, 400, 20_000);
    const before = w.stderr().length;
    await server.kill();
    await sleep(10_000);
    const during = w.stderr().slice(before);
    const storedDuring = storedTimes(file).filter((n) => n > 0).length;
    await server.start();
    const backAt = performance.now();
    await rig.waitForImport(importId, 30_000);
    const recoverMs = performance.now() - backAt;
    // What the kill gave, from the kill to the import's end (the outage and its aftermath).
    const incident = w.stderr().slice(before);

    const report = await rig.store.report(importId);
    const t = await tally(rig, file, [report.map((l) => ({ line: l.line, status: l.status, id: String(l.id), message: l.message }))]);
    console.log(
      `Redis SIGKILLed ${moment.atMs} ms into the import (${moment.stored} stored, ${moment.inFlight} in flight; ${storedDuring} stored when it came back); ` +
        `the worker wrote ${nonEmptyLines(during).length} stderr lines in the 10 s outage and ${nonEmptyLines(incident).length} from the kill to the import's end; ` +
        `import done ${(recoverMs / 1000).toFixed(1)} s after Redis was back; report ${JSON.stringify(statusCounts(report))}\n` +
        `--- worker stderr from the kill to the import's end ---\n${incident}`,
    );
    expect.soft(nonEmptyLines(during).length, during).toBeLessThanOrEqual(10);
    expect.soft(nonEmptyLines(incident).length, incident).toBeLessThanOrEqual(10);
    expect.soft(w.stderr()).not.toMatch(STACK_TRACE);
    // The worker finished it: still running, and every bill is in the service exactly once.
    expect.soft(server.log()).toMatch(/DB loaded from append only file/);
    expect.soft(w.child.exitCode).toBeNull();
    expect.soft(t.findings).toEqual([]);
    expect.soft(storedTimes(file)).toEqual(file.notes.map(() => 1));
  }, 45_000);

  it('SIGTERM during a Redis outage ends the worker within 5 s', async () => {
    const { server, rig } = await ownRedis();
    const w = await worker({ ...rig.env, ...KNOBS, BUILDSYNC_CONCURRENCY: '2' });
    const file = writeBillsFile(rig, 'outage-sigterm', 40);
    await submit(rig, file);
    // Jobs in hand and a request in flight when Redis goes.
    await waitForMoment(rig, file, 300, 20_000);
    await server.kill();
    await sleep(1_500);
    const t0 = performance.now();
    w.child.kill('SIGTERM');
    const exit = await Promise.race([exitOf(w.child), sleep(10_000).then(() => undefined)]);
    const ms = performance.now() - t0;
    console.log(`worker SIGTERMed 1.5 s into the outage: ${exit ? `exited ${JSON.stringify(exit)} after ${Math.round(ms)} ms` : 'still running after 10 s'}\n--- worker stderr ---\n${w.stderr()}`);
    expect(exit, 'the worker was still running 10 s after SIGTERM').toBeDefined();
    expect.soft(ms).toBeLessThan(5_000);
    expect.soft(w.stderr()).not.toMatch(STACK_TRACE);
  }, 30_000);
});

describe('a CLI following an import while its Redis is away', () => {
  it('a CLI following an import waits through a Redis blip and says so', async () => {
    const { server, rig } = await ownRedis();
    const file = writeBillsFile(rig, 'outage-cli', 40);
    // No worker runs on this prefix: the CLI runs one itself, and follows the import.
    const cli = startCli(['import', 'bills', file.path, '--report', join(dir, 'outage-cli.report.csv')], { ...rig.env, ...KNOBS, BUILDSYNC_CONCURRENCY: '2' }, 40_000);
    const moment = await waitForMoment(rig, file, 300, 20_000);
    const stoppedAt = performance.now();
    await server.stop();
    await sleep(Math.max(0, stoppedAt + 3_000 - performance.now()));
    await server.start();
    const backAt = performance.now();
    const r = await cli.result;
    console.log(
      `redis-server stopped ${moment.atMs} ms into the import, back ${((backAt - stoppedAt) / 1000).toFixed(1)} s later; ` +
        `the CLI exited ${r.code} ${((performance.now() - backAt) / 1000).toFixed(1)} s after that (${(r.ms / 1000).toFixed(1)} s in all)\n` +
        `--- stdout ---\n${r.stdout}--- stderr ---\n${r.stderr}`,
    );
    expect.soft(r.stderr).toMatch(/Redis at redis:\/\/127\.0\.0\.1:\d+ went away; waiting up to 30 s/);
    expect.soft(r.stderr).toMatch(/Redis is back/);
    expect.soft(r.stderr.indexOf('Redis is back')).toBeGreaterThan(r.stderr.indexOf('went away'));
    expect.soft(r.stderr).not.toMatch(STACK_TRACE);
    expect.soft(r.code, r.stderr).toBe(0);
    expect.soft(r.stdout).toMatch(/created 40, exists 0, skipped 0, failed 0, unknown 0/);
    expect.soft(storedTimes(file)).toEqual(file.notes.map(() => 1));
  }, 45_000);

  it('a command whose Redis stays away past the grace exits 2 without a stack trace', async () => {
    const { server, rig } = await ownRedis();
    const file = writeBillsFile(rig, 'outage-grace', 40);
    const cli = startCli(['import', 'bills', file.path, '--report', join(dir, 'outage-grace.report.csv')], { ...rig.env, ...KNOBS, BUILDSYNC_CONCURRENCY: '2', BUILDSYNC_REDIS_GRACE_MS: '2000' }, 20_000);
    await waitForMoment(rig, file, 300, 20_000);
    const killedAt = performance.now();
    await server.kill();
    const r = await cli.result;
    const afterKillMs = performance.now() - killedAt;
    const since = (re: RegExp) => {
      const at = cli.stderrAt(re);
      return at === undefined ? 'never' : `${((at - killedAt) / 1000).toFixed(1)} s`;
    };
    console.log(
      `Redis SIGKILLed for good mid-import (grace 2 s): "went away" after ${since(/went away/)}, "did not come back" after ${since(/did not come back/)}; ` +
        `the CLI ${r.code === null ? 'had not exited' : `exited ${r.code}`} ${(afterKillMs / 1000).toFixed(1)} s after the kill\n--- stdout ---\n${r.stdout}--- stderr ---\n${r.stderr}`,
    );
    expect.soft(r.code, r.stderr).toBe(2);
    expect.soft(r.stderr).toMatch(/went away; waiting up to 2 s/);
    expect.soft(r.stderr).toMatch(/Redis.*did not come back within 2 s.*\[BUILDSYNC_REDIS_UNAVAILABLE\]/);
    expect.soft(r.stderr).not.toMatch(STACK_TRACE);
    // The grace, the worker's bounded close (4 s) and the queues' (1.5 s), with room to start.
    expect.soft(afterKillMs).toBeLessThan(12_000);
  }, 30_000);
});

describe('a Redis that answers, but not as the tool expects', () => {
  it('a wrong Redis password and TLS spoken to a plain port each get their own message', async () => {
    const PASSWORD = 'right-pass-5e2d';
    const WRONG = 'wrong-pass-81c0';
    const [locked, plain] = await Promise.all([startRedisProcess(['--requirepass', PASSWORD]), startRedisProcess([])]);
    cleanups.push(() => locked.close(), () => plain.close());
    const env = {
      BUILDSYNC_BASE_URL: sandbox.url,
      BUILDSYNC_EMAIL: sandbox.credentials.email,
      BUILDSYNC_PASSWORD: sandbox.credentials.password,
      BUILDSYNC_API_KEY: sandbox.credentials.apiKey,
      BUILDSYNC_LIMITS: 'none',
      BUILDSYNC_PREFIX: 'outage-auth',
    };
    const [wrong, tls, right] = await Promise.all([
      runCli(['jobs', 'list'], { ...env, REDIS_URL: `redis://:${WRONG}@127.0.0.1:${locked.port}` }, { cwd: dir }),
      runCli(['jobs', 'list'], { ...env, REDIS_URL: `rediss://127.0.0.1:${plain.port}` }, { cwd: dir }),
      runCli(['jobs', 'list'], { ...env, REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${locked.port}` }, { cwd: dir }),
    ]);
    const ms = (r: CliResult) => Math.round(r.ms);
    console.log(
      `wrong password: exit ${wrong.code} in ${ms(wrong)} ms\n${wrong.stderr}TLS to a plain port: exit ${tls.code} in ${ms(tls)} ms\n${tls.stderr}` +
        `right password: exit ${right.code} in ${ms(right)} ms\n${right.stderr}`,
    );
    // The right password works: the refusal is the password's doing.
    expect(right.code, right.stderr).toBe(0);

    expect.soft(wrong.code, wrong.stderr).toBe(2);
    expect.soft(wrong.stderr).toMatch(/refused the user name or password \(WRONGPASS\)/);
    expect.soft(wrong.stderr).toMatch(/password/);
    expect.soft(wrong.stderr).not.toMatch(/no Redis answers/);
    expect.soft(wrong.stderr + wrong.stdout).not.toContain(WRONG);
    expect.soft(wrong.stderr).not.toMatch(STACK_TRACE);

    expect.soft(tls.code, tls.stderr).toBe(2);
    expect.soft(tls.stderr).toMatch(/TLS/);
    expect.soft(tls.stderr).toMatch(/redis:\/\//);
    expect.soft(tls.stderr).not.toMatch(/no Redis answers/);
    expect.soft(tls.stderr).not.toMatch(STACK_TRACE);
    expect.soft(nonEmptyLines(tls.stderr).at(-1)).not.toBe(nonEmptyLines(wrong.stderr).at(-1));
  }, 30_000);
});
