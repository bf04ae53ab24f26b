/**
 * Issue 3: the export file appears only when complete (README, Reports, re-runs and `unknown`), also when the export runs
 * as a queued job: never at its final path while running, never after a failure, and no
 * temporary file left behind.
 */
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { exportRig, sandboxEnv, tempFiles, waitFor, type ExportRig } from './helpers/export-rig.ts';

let rig: ExportRig;
afterEach(async () => {
  await rig.close();
});

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

describe('export job file', () => {
  it('is absent at the final path while the export runs and complete once the job is done', async () => {
    // Paged, 10 per page, 40 ms per request: the export runs for a few hundred ms.
    rig = await exportRig({ projects: 120, latencyMs: 40 });
    await rig.startHost();
    const out = path.join(rig.dir, 'running.csv');
    const job = await rig.submit({ source: 'paged', pageSize: 10, out });

    await waitFor(async () => (await tempFiles(rig.dir)).length === 1, 10_000, 'the temporary file');
    // While the temporary file exists the export is still being written: the final path must be
    // absent then. (Checked on the temporary file, not the job's state, which turns 'completed'
    // a moment after the rename.)
    let checks = 0;
    while ((await tempFiles(rig.dir)).length === 1) {
      const final = await exists(out);
      if ((await tempFiles(rig.dir)).length === 1) expect(final).toBe(false);
      checks++;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(checks).toBeGreaterThan(3); // the file was looked for several times mid-way

    const done = await rig.settle(job);
    expect(done.state).toBe('completed');
    const rows = parse(await readFile(out, 'utf8')) as string[][];
    expect(rows.length - 1).toBe(rig.sandbox.visibleProjectIds(rig.sandbox.credentials.email, true).length - 3); // My Documents excluded
    expect(await tempFiles(rig.dir)).toEqual([]);
  });

  it('fails the job on refused credentials at once, with no file and no temporary file', async () => {
    rig = await exportRig({ projects: 20 });
    await rig.startHost({ env: sandboxEnv(rig.sandbox, { BUILDSYNC_PASSWORD: 'not-the-password' }) });
    const out = path.join(rig.dir, 'refused.csv');
    const job = await rig.submit({ out });

    const done = await rig.settle(job);
    expect(done.state).toBe('failed');
    expect(done.job.failedReason).toMatch(/password|credential|401/i);
    expect(done.job.failedReason).not.toContain('not-the-password');
    // Retrying cannot help with refused credentials: one attempt, not EXPORT_ATTEMPTS.
    expect(done.job.attemptsMade).toBe(1);
    expect(await exists(out)).toBe(false);
    expect(await tempFiles(rig.dir)).toEqual([]);
  });

  it('keeps an earlier file untouched when a later export fails mid-way', async () => {
    rig = await exportRig({ projects: 60 });
    await rig.startHost();
    const out = path.join(rig.dir, 'kept.csv');
    const first = await rig.settle(await rig.submit({ out }));
    expect(first.state).toBe('completed');
    const before = await readFile(out, 'utf8');

    // Every listing request now fails with 500: the job uses its attempts, then fails.
    rig.sandbox.setFaults({ failBeforeStore: 1, onGets: true });
    const second = await rig.settle(await rig.submit({ source: 'paged', pageSize: 10, out }), 60_000);
    expect(second.state).toBe('failed');
    expect(await readFile(out, 'utf8')).toBe(before);
    expect(await tempFiles(rig.dir)).toEqual([]);
  });
});
