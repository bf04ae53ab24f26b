/**
 * Issue 3: a job scheduler (as `buildsync schedule export-projects` makes it) fires, each firing
 * runs exactly one export even with two worker hosts, and the file is dated by the firing.
 * The cron has six fields (seconds) so that the test sees several firings in a few seconds.
 */
import { access, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Job } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { exportJobData, JOB, type ExportJobResult } from '../src/queue/index.ts';
import { exportRig, waitFor, type ExportRig } from './helpers/export-rig.ts';

let rig: ExportRig;
afterEach(async () => {
  await rig.close();
});

/** The options `src/cli/schedule-command.ts` gives `upsertJobScheduler`, with the test's cron. */
async function schedule(name: string, cron: string, outDir: string, tz?: string) {
  const data = exportJobData.parse({ account: 'default', outDir });
  await rig.queues.exports.upsertJobScheduler(
    name,
    { pattern: cron, ...(tz ? { tz } : {}) },
    { name: JOB.exportProjects, data, opts: { attempts: 3, backoff: { type: 'custom' } } },
  );
}

const localDay = (ms: number) => {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};
const zoneDay = (ms: number, timeZone: string) => {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(ms);
  const part = (t: string) => parts.find((p) => p.type === t)!.value;
  return `${part('year')}-${part('month')}-${part('day')}`;
};
/** The firing time BullMQ puts in a scheduler job's id: `repeat:<scheduler>:<millis>`. */
const firedAt = (job: Job) => Number(job.id!.split(':').at(-1));

describe('scheduled project export', () => {
  it('fires, runs one job per firing across two worker hosts, and writes the dated file', async () => {
    rig = await exportRig({ projects: 20 });
    const ran: { host: number; job: Job; result: ExportJobResult }[] = [];
    for (const n of [0, 1]) {
      const host = await rig.startHost();
      host.workers[2]!.on('completed', (job: Job, result: ExportJobResult) => ran.push({ host: n, job, result }));
    }
    await schedule('export-projects-default', '*/1 * * * * *', rig.dir);

    await waitFor(() => ran.length >= 3, 15_000, 'three scheduled exports');
    await rig.queues.exports.removeJobScheduler('export-projects-default');
    await waitFor(async () => (await rig.queues.exports.getActiveCount()) === 0, 10_000, 'the last export to finish');

    const ids = ran.map((r) => r.job.id);
    expect(new Set(ids).size).toBe(ids.length); // no firing ran twice
    const firings = ran.map((r) => firedAt(r.job));
    expect(new Set(firings).size).toBe(firings.length);
    for (const r of ran) {
      expect(r.job.repeatJobKey).toBe('export-projects-default');
      expect(r.result.path).toBe(path.join(rig.dir, `projects-${localDay(firedAt(r.job))}.csv`));
      expect(r.result.projects).toBeGreaterThan(20);
    }
    // The queue agrees: as many completed jobs as firings seen, none failed.
    expect(await rig.queues.exports.getCompletedCount()).toBe(ran.length);
    expect(await rig.queues.exports.getFailedCount()).toBe(0);
    const files = await readdir(rig.dir);
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(files).toContain(path.basename(ran[0]!.result.path));
  });

  it('dates the file by the schedule\'s time zone, not the worker\'s', async () => {
    rig = await exportRig({ projects: 10 });
    await rig.startHost();
    // 25 hours apart: at any moment these two zones are on different calendar days.
    const zones = ['Pacific/Kiritimati', 'Pacific/Pago_Pago'];
    const seen = new Map<string, Job>();
    for (const tz of zones) {
      const dir = path.join(rig.dir, tz.replace('/', '-'));
      await mkdir(dir);
      await schedule(`tz-${tz}`, '*/1 * * * * *', dir, tz);
    }
    await waitFor(
      async () => {
        for (const job of await rig.queues.exports.getCompleted()) seen.set(job.repeatJobKey!, job);
        return seen.size === zones.length;
      },
      15_000,
      'one export per zone',
    );
    for (const tz of zones) await rig.queues.exports.removeJobScheduler(`tz-${tz}`);
    await waitFor(async () => (await rig.queues.exports.getActiveCount()) === 0, 10_000, 'exports to finish');

    const days = zones.map((tz) => {
      const job = seen.get(`tz-${tz}`)!;
      const result = job.returnvalue as ExportJobResult;
      const day = zoneDay(firedAt(job), tz);
      expect(result.path).toBe(path.join(rig.dir, tz.replace('/', '-'), `projects-${day}.csv`));
      return day;
    });
    expect(days[0]).not.toBe(days[1]);
    for (const job of seen.values()) await access((job.returnvalue as ExportJobResult).path);
  });
});
