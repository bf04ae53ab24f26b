/**
 * Issue 17: BUILDSYNC_NOTIFY_URL gets one JSON POST when a scheduled export fails after its last
 * attempt (not one per attempt), and nothing that looks like a secret (README, Configuration, §5b).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Job } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { EXPORT_ATTEMPTS, exportJobData, JOB } from '../src/queue/index.ts';
import { Notifier, type FailureNotice } from '../src/queue/notify.ts';
import { Secret } from '../src/secret.ts';
import { exportRig, waitFor, type ExportRig } from './helpers/export-rig.ts';

let rig: ExportRig;
let server: Server | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined as unknown as ExportRig;
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

interface Received {
  path: string;
  contentType: string | undefined;
  body: string;
}

async function hookServer(): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', contentType: req.headers['content-type'], body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

describe('failure notification', () => {
  it('POSTs once for a scheduled export that failed after its last attempt, with no secret in it', async () => {
    const hook = await hookServer();
    rig = await exportRig({ projects: 30 });
    const dbPassword = 'db-pass-0a9f3c';
    await rig.startHost({
      env: {
        ...rig.env,
        // The webhook's path is its token, as with most webhook services.
        BUILDSYNC_NOTIFY_URL: `${hook.url}/hooks/tok-77e1b2`,
        BUILDSYNC_EXPORT_DATABASE_URL: `postgres://postgres:${dbPassword}@127.0.0.1:5432/test`,
      },
    });
    // Every listing dies mid-body: a network failure, retried EXPORT_ATTEMPTS times, then failed.
    // (The exports stay scheduled runs: `schedule` in the notice names the scheduler.)
    rig.sandbox.setFaults({ cutListingsAfter: 5 });
    const failed: Job[] = [];
    rig.queues.exports.on('error', () => {});
    const data = exportJobData.parse({ account: 'default', outDir: rig.dir, to: 'postgres', changes: true });
    await rig.queues.exports.upsertJobScheduler(
      'nightly-warehouse',
      // `every`: BullMQ fires the first run at once, the next one an hour later (not in this test).
      { every: 3_600_000 },
      { name: JOB.exportProjects, data, opts: { attempts: EXPORT_ATTEMPTS, backoff: { type: 'custom' } } },
    );
    await waitFor(
      async () => {
        const jobs = await rig.queues.exports.getFailed();
        failed.splice(0, failed.length, ...jobs);
        return jobs.length >= 1;
      },
      30_000,
      'a scheduled export to fail for good',
    );
    await rig.queues.exports.removeJobScheduler('nightly-warehouse');
    await waitFor(async () => (await rig.queues.exports.getActiveCount()) === 0 && (await rig.queues.exports.getDelayedCount()) === 0, 30_000, 'the other firings to settle');
    await waitFor(async () => hook.received.length >= (await rig.queues.exports.getFailedCount()), 10_000, 'the notifications');
    await new Promise((r) => setTimeout(r, 300)); // a duplicate would arrive by now

    const allFailed = await rig.queues.exports.getFailed();
    const job = allFailed.find((j) => j.id === failed[0]!.id)!;
    expect(job.attemptsMade).toBe(EXPORT_ATTEMPTS);
    // One POST per failed job, however many attempts it took; none for the attempts before.
    expect(hook.received.length).toBe(allFailed.length);
    const notices = hook.received.map((r) => JSON.parse(r.body) as Record<string, unknown>);
    expect(new Set(notices.map((n) => n.job_id)).size).toBe(notices.length);
    const notice = notices.find((n) => n.job_id === job.id)!;
    expect(notice).toMatchObject({
      event: 'job.failed',
      kind: 'export-projects',
      account: 'default',
      schedule: 'nightly-warehouse',
      code: 'BUILDSYNC_NETWORK',
      attempts: EXPORT_ATTEMPTS,
    });
    expect(String(notice.message)).toMatch(/\S/);
    expect(hook.received[0]!.path).toBe('/hooks/tok-77e1b2');
    expect(hook.received[0]!.contentType).toBe('application/json');

    const secrets = [rig.sandbox.credentials.password, rig.sandbox.credentials.apiKey, dbPassword, 'tok-77e1b2'];
    for (const r of hook.received) {
      for (const s of secrets) expect(r.body).not.toContain(s);
      expect(r.body).not.toMatch(/postgres:\/\/|authorization|apikey/i);
    }
  });

  it('tries an undeliverable notification a bounded number of times, logs it once without the URL\'s token, and throws nothing', async () => {
    const hook = await hookServer();
    server!.removeAllListeners('request');
    let tries = 0;
    server!.on('request', (_req, res) => {
      tries++;
      res.writeHead(503).end();
    });
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (l: string) => void lines.push(l) });
    const notice: FailureNotice = {
      event: 'job.failed', job_id: 'export-1', kind: 'export-projects', account: 'default', schedule: null,
      code: 'BUILDSYNC_HTTP_5XX', message: 'failed', attempts: 3, started: 3, failed_at: new Date().toISOString(),
    };
    const notifier = new Notifier({ url: new Secret(`${hook.url}/hooks/tok-5ec2e7`), log, timeoutMs: 1_000, backoffBaseMs: 20 });
    await expect(notifier.send(notice)).resolves.toBeUndefined();
    expect(tries).toBe(3);
    expect(lines.length).toBe(1);
    expect(lines[0]).toContain('answered 503');
    expect(lines[0]).toContain(hook.url);
    expect(lines[0]).not.toContain('tok-5ec2e7');

    // Nobody listening at all: the same, without a try that hangs past its timeout.
    lines.length = 0;
    const gone = new Notifier({ url: new Secret('http://127.0.0.1:1/hooks/tok-5ec2e7'), log, timeoutMs: 1_000, backoffBaseMs: 20 });
    await expect(gone.send(notice)).resolves.toBeUndefined();
    expect(lines.length).toBe(1);
    expect(lines[0]).not.toContain('tok-5ec2e7');
  });
});
