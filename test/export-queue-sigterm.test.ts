/**
 * Issue 3: SIGTERM to `buildsync worker` mid-export leaves no partial file and no temporary file,
 * exits 0, and hands the job back to the queue, where another worker completes it.
 */
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { exportRig, tempFiles, waitFor, type ExportRig } from './helpers/export-rig.ts';
import { REDIS_URL } from './helpers/redis.ts';
import { spawnCli } from './helpers/cli.ts';

let rig: ExportRig;
afterEach(async () => {
  await rig.close();
});

describe('worker SIGTERM during an export', () => {
  it('exits 0, leaves no file, puts the job back in wait, and a second worker completes it', async () => {
    // 400 projects, 10 per page, 50 ms per request: the export takes about 2 s.
    rig = await exportRig({ projects: 400, latencyMs: 50, limits: 'none' });
    const out = path.join(rig.dir, 'interrupted.csv');
    const job = await rig.submit({ source: 'paged', pageSize: 10, out });

    const worker = spawnCli(
      ['worker'],
      { ...process.env, ...rig.env, REDIS_URL, BUILDSYNC_PREFIX: rig.prefix, BUILDSYNC_LOCK_MS: '2000', BUILDSYNC_LIMITS: 'none', LOG_LEVEL: 'warn' },
      { cwd: rig.dir },
    );
    const child = worker.child;

    try {
      // Mid-way: the temporary file is open and several pages have been read.
      await waitFor(
        async () => (await tempFiles(rig.dir)).length === 1 && rig.sandbox.requests().length >= 5,
        20_000,
        'the export to be under way',
      );
      expect(await job.getState()).toBe('active');
      child.kill('SIGTERM');
      const exit = await worker.result;
      expect(exit.code, exit.stderr).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    const pagesRead = rig.sandbox.requests().length;
    expect(pagesRead).toBeLessThan(41); // it really was interrupted, not finished

    await expect(access(out)).rejects.toThrow();
    expect(await tempFiles(rig.dir)).toEqual([]);
    expect(await job.getState()).toBe('waiting');
    const back = (await rig.queues.exports.getJob(job.id!))!;
    expect(back.attemptsMade).toBe(0); // a shutdown does not use up an attempt

    await rig.startHost();
    const done = await rig.settle(job);
    expect(done.state).toBe('completed');
    const ids = (parse(await readFile(out, 'utf8')) as string[][]).slice(1).map((r) => Number(r[0]));
    const expected = rig.sandbox
      .visibleProjectIds(rig.sandbox.credentials.email, true)
      .filter((id) => rig.sandbox.project(id)?.NAME !== 'My Documents');
    expect(ids.sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
    expect(await tempFiles(rig.dir)).toEqual([]);
  });
});
