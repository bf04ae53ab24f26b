/**
 * Issue 17: BUILDSYNC_NOTIFY_URL gets one JSON POST for an export or import job that fails for
 * good, whatever failed it (README, Configuration, §5b):
 * - an export that BullMQ fails because its workers kept dying: real worker processes SIGKILLed
 *   mid-export until the job has stalled more than maxStalledCount (2, worker-host.ts). BullMQ
 *   (moveStalledJobsToWait) then marks it with a deferred failure, and the next worker to fetch it
 *   fails it with "job stalled more than allowable limit" (Worker.getUnrecoverableErrorMessage),
 *   which emits the worker's `failed` event that the Notifier listens to;
 * - an import's parent job that fails (it has one attempt), and never a per-record job.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { planBills, planEstimates } from '../src/import/index.ts';
import { EXPORT_ATTEMPTS, exportJobData, JOB, submitImport } from '../src/queue/index.ts';
import { exportRig, waitFor, type ExportRig } from './helpers/export-rig.ts';
import { csv, freeProjectIds, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';
import { REDIS_URL } from './helpers/redis.ts';
import { startWorkerProcess, type WorkerProcess } from './helpers/worker-processes.ts';

/** BUILDSYNC_LOCK_MS, the smallest the worker accepts: lock duration and stalled-check interval both. */
const LOCK_MS = 1000;
const HOOK_TOKEN = 'tok-3f9d61';

let exports: ExportRig | undefined;
let imports: E2eRig | undefined;
let server: Server | undefined;
const processes: WorkerProcess[] = [];
afterEach(async () => {
  for (const p of processes.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  }
  await exports?.close();
  await imports?.close();
  exports = imports = undefined;
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/** A webhook on port 0 that records every POST body; its path is its token, as with most webhook services. */
async function hookServer(): Promise<{ url: string; bodies: string[]; paths: string[] }> {
  const bodies: string[] = [];
  const paths: string[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push(body);
      paths.push(req.url ?? '');
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/${HOOK_TOKEN}`, bodies, paths };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function kill(p: WorkerProcess): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill('SIGKILL');
  await exited;
}

/** A slow export (an attempt lasts about 6 s) and the environment of its worker processes. */
async function slowExport(hookUrl: string, extraEnv: Record<string, string> = {}) {
  // 300 projects, 5 per page, 100 ms per request: an attempt lasts about 6 s, far longer than a round.
  exports = await exportRig({ projects: 300, latencyMs: 100, limits: 'none' });
  const rig = exports;
  const env = {
    ...rig.env,
    REDIS_URL,
    BUILDSYNC_PREFIX: rig.prefix,
    BUILDSYNC_LIMITS: 'none',
    BUILDSYNC_LOCK_MS: String(LOCK_MS),
    BUILDSYNC_NOTIFY_URL: hookUrl,
    ...extraEnv,
  };
  return { rig, env };
}

/**
 * Kills the worker running an export until BullMQ fails it. Each round: the export is under way
 * in the live worker; a spare worker starts (idle: the job is taken); every other worker is
 * SIGKILLed. The spare's stalled checker finds the job without its lock and puts it back in wait,
 * and the spare takes it. A worker that missed a lock renewal on a loaded machine only stalls the
 * job sooner: the loop kills whoever runs it. Returns the kills and the last live worker.
 */
async function killUntilFailed(rig: ExportRig, env: Record<string, string>, state: () => Promise<string | undefined>, maxKills: number) {
  const listings = () => rig.sandbox.requests().filter((r) => r.method === 'GET').length;
  let live = [await startWorkerProcess(env)];
  processes.push(...live);
  let kills = 0;
  for (;;) {
    const seen = listings();
    await waitFor(
      async () => {
        const s = await state();
        return s === 'failed' || (s === 'active' && listings() > seen);
      },
      15_000,
      `the export to be under way again, or failed (after ${kills} kills)`,
    );
    if ((await state()) === 'failed') return { kills, live };
    expect(kills, 'kills before the export failed').toBeLessThan(maxKills);
    const spare = await startWorkerProcess(env);
    processes.push(spare);
    for (const p of live) await kill(p);
    kills++;
    live = [spare];
  }
}

describe('failure notification', () => {
  it('POSTs once, naming the stall, for an export failed because its worker processes kept dying mid-export', async () => {
    const hook = await hookServer();
    const { rig, env } = await slowExport(hook.url);
    const job = await rig.submit({ source: 'paged', pageSize: 5 });
    const { kills, live } = await killUntilFailed(rig, env, () => job.getState(), 6);
    const failed = (await rig.queues.exports.getJob(job.id!))!;
    // Three stalls: more than maxStalledCount (2). The job never ran to the end.
    expect(failed.stalledCounter).toBe(3);
    expect(failed.failedReason).toBe('job stalled more than allowable limit');
    expect(await rig.queues.exports.getCompletedCount()).toBe(0);

    await waitFor(() => hook.bodies.length >= 1, 10_000, 'the notification');
    await sleep(500); // a duplicate would arrive by now
    expect(hook.bodies).toHaveLength(1);
    expect(hook.paths[0]).toBe(`/hooks/${HOOK_TOKEN}`);
    const notice = JSON.parse(hook.bodies[0]!) as Record<string, unknown>;
    expect(notice).toMatchObject({
      event: 'job.failed',
      job_id: job.id,
      kind: 'export-projects',
      account: 'default',
      schedule: null,
      // BullMQ's own reason carries no buildsync code: the notice names it an interruption.
      code: 'BUILDSYNC_INTERRUPTED',
      message: 'job stalled more than allowable limit',
      // Stalls use no attempt; `started` counts every start (one per killed worker and more).
      started: failed.attemptsStarted,
    });
    expect(failed.attemptsStarted).toBeGreaterThanOrEqual(3);
    expect(notice.started).toBeGreaterThan(notice.attempts as number);
    for (const s of [rig.sandbox.credentials.password, rig.sandbox.credentials.apiKey, HOOK_TOKEN]) expect(hook.bodies[0]).not.toContain(s);
    expect(hook.bodies[0]).not.toMatch(/authorization|apikey|password/i);

    // The worker that failed it logged it; every process is accounted for.
    expect(live).toHaveLength(1);
    expect(live[0]!.stderr()).toContain('job stalled more than allowable limit');
    expect(await live[0]!.stop()).toBe(0);
    console.log(`export failed as stalled after ${kills} SIGKILLs; ${hook.bodies.length} POST`);
  });

  it('fails a scheduled export whose worker processes keep dying once it has started too often, and POSTs once', async () => {
    // BullMQ never fails a scheduled job for stalling (moveStalledJobsToWait skips scheduler
    // jobs): without a cap on starts (EXPORT_MAX_STARTS, here 2 through the test knob) it would
    // be put back for ever and nobody would hear of it.
    const hook = await hookServer();
    const { rig, env } = await slowExport(hook.url, { BUILDSYNC_EXPORT_MAX_STARTS: '2' });
    const data = exportJobData.parse({ account: 'default', outDir: rig.dir, source: 'paged', pageSize: 5 });
    // Every hour, the first run at once (as `schedule export-projects` makes it, with `every`).
    await rig.queues.exports.upsertJobScheduler('nightly-crash', { every: 3_600_000 }, { name: JOB.exportProjects, data, opts: { attempts: EXPORT_ATTEMPTS } });
    const scheduled = async () => (await rig.queues.exports.getJobs(['active', 'wait', 'failed', 'completed'])).find((j) => j.repeatJobKey === 'nightly-crash');
    const { kills, live } = await killUntilFailed(rig, env, async () => (await scheduled())?.getState(), 5);
    const failed = (await scheduled())!;
    // Started twice, killed twice; the third start is refused and fails it.
    expect(kills).toBe(2);
    expect(failed.failedReason).toBe('job started more than allowable limit');
    expect(failed.stalledCounter).toBe(2);

    await waitFor(() => hook.bodies.length >= 1, 10_000, 'the notification');
    await sleep(500);
    expect(hook.bodies).toHaveLength(1);
    expect(JSON.parse(hook.bodies[0]!)).toMatchObject({
      event: 'job.failed',
      job_id: failed.id,
      kind: 'export-projects',
      account: 'default',
      schedule: 'nightly-crash',
      code: 'BUILDSYNC_INTERRUPTED',
      message: 'job started more than allowable limit',
      started: failed.attemptsStarted,
    });
    expect(failed.attemptsStarted).toBeGreaterThan(failed.attemptsMade);
    for (const s of [rig.sandbox.credentials.password, rig.sandbox.credentials.apiKey, HOOK_TOKEN]) expect(hook.bodies[0]).not.toContain(s);
    expect(await live[0]!.stop()).toBe(0);
    await rig.queues.exports.removeJobScheduler('nightly-crash');
  });

  it.each([
    ['import-estimates', 'estimates'],
    ['import-bills', 'bills'],
  ] as const)('POSTs once for an %s whose parent job failed, and never for its record jobs that failed', async (kind, what) => {
    const hook = await hookServer();
    imports = await startE2eRig({ projects: 20 });
    const rig = imports;
    const projects = freeProjectIds(rig.sandbox).slice(0, 3);
    const resolver = await rig.resolver();
    const plan =
      what === 'estimates'
        ? await planEstimates(
            rig.file(
              'estimates.csv',
              csv(
                ['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'qty', 'unit_cost'],
                projects.map((p, i) => [p, `Estimate ${i + 1}`, 'General', 'Labor', `Crew day ${i + 1}`, 1, '640.00']),
              ),
            ),
            { resolver },
          )
        : await planBills(
            rig.file(
              'bills.csv',
              csv(
                ['bill_ref', 'project_id', 'vendor_id', 'title', 'item_name', 'rate'],
                projects.map((p, i) => [`B-${i + 1}`, p, 55, `Bill ${i + 1}`, `Item ${i + 1}`, '12.50']),
              ),
            ),
            { resolver },
          );
    expect(plan.records).toHaveLength(3);
    const { importId } = await submitImport(rig.queues, rig.store, plan, { account: 'default', resendUnknown: false });
    // The import's plan is gone from Redis before any worker gets to it (expired, or removed by
    // hand): each record job fails for good (nothing to send), then the parent (one attempt).
    await rig.store.remove(importId);

    rig.env.BUILDSYNC_NOTIFY_URL = hook.url;
    await rig.workers();
    await waitFor(async () => (await rig.queues.imports.getJob(importId).then((j) => j?.getState())) === 'failed', 20_000, 'the import to fail');
    const recordsFailed = await rig.queues.records.getFailed();
    expect(recordsFailed).toHaveLength(3);
    for (const j of recordsFailed) expect(j.finishedOn).toBeGreaterThan(0); // failed for good, not retrying

    await waitFor(() => hook.bodies.length >= 1, 10_000, 'the notification');
    await sleep(500); // record jobs' notices, or a duplicate, would arrive by now
    expect(hook.bodies).toHaveLength(1);
    const notice = JSON.parse(hook.bodies[0]!) as Record<string, unknown>;
    expect(notice).toMatchObject({
      event: 'job.failed',
      job_id: importId,
      kind,
      account: 'default',
      schedule: null,
      attempts: 1,
    });
    expect(String(notice.message)).toContain(`import ${importId} is unknown or expired`);
    expect(String(notice.message)).toContain('run the import again');
    expect(notice.code).toBe('BUILDSYNC_IMPORT_UNKNOWN');
    // The record jobs failed with the same code (not notified: per-record jobs never are).
    for (const j of recordsFailed) expect(j.failedReason).toMatch(/^\[BUILDSYNC_IMPORT_UNKNOWN\] import .* so records \d+\+\d+ cannot be sent/);
    for (const s of [rig.sandbox.credentials.password, rig.sandbox.credentials.apiKey, HOOK_TOKEN]) expect(hook.bodies[0]).not.toContain(s);
  });
});
