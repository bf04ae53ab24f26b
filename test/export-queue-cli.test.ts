/**
 * Issue 3, end to end through the binary: `buildsync export projects` (queued, with the worker it
 * starts itself), `--no-queue` with no Redis at all, and `jobs list` / `jobs show` of the job.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportRig, tempFiles, type ExportRig } from './helpers/export-rig.ts';
import { REDIS_URL } from './helpers/redis.ts';
import { runCli, type CliResult } from './helpers/cli.ts';

let rig: ExportRig;
beforeAll(async () => {
  rig = await exportRig({ projects: 40 });
});
afterAll(async () => {
  await rig.close();
});

/** The CLI over this process's environment and the rig's. */
function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(args, { ...process.env, ...rig.env, REDIS_URL, BUILDSYNC_PREFIX: rig.prefix, LOG_LEVEL: 'warn', ...env }, { cwd: rig.dir, timeoutMs: 60_000 });
}

const expectedCount = () =>
  rig.sandbox.visibleProjectIds(rig.sandbox.credentials.email, true).filter((id) => rig.sandbox.project(id)?.NAME !== 'My Documents').length;

async function projectRows(file: string): Promise<number> {
  return (parse(await readFile(file, 'utf8')) as string[][]).length - 1;
}

describe('buildsync export projects (CLI)', () => {
  let jobId: string;
  const queuedOut = () => path.join(rig.dir, 'queued.csv');

  it('submits the export, runs it through the queue and writes the file', async () => {
    // This machine's Redis keeps nothing on disk: the worker the command starts says nothing of
    // the ledger's durability (an export sends no records; an import command says it itself).
    const r = await cli(['export', 'projects', '--out', 'queued.csv'], { BUILDSYNC_ALLOW_VOLATILE_REDIS: '' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/records will not be sent|appendonly/);
    expect(r.stdout).toContain(`wrote ${expectedCount()} projects to ${queuedOut()}`);
    jobId = /\[job ([^\]]+)\]/.exec(r.stdout)![1]!;
    expect(await projectRows(queuedOut())).toBe(expectedCount());
    expect(await tempFiles(rig.dir)).toEqual([]);
  });

  it('lists and shows the job', async () => {
    const list = await cli(['jobs', 'list']);
    expect(list.code, list.stderr).toBe(0);
    const line = list.stdout.split('\n').find((l) => l.startsWith(`${jobId}\t`));
    expect(line).toBeDefined();
    expect(line).toContain('export-projects\tcompleted');
    expect(line).toContain(`${expectedCount()} projects -> ${queuedOut()}`);

    const show = await cli(['jobs', 'show', jobId]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`job       ${jobId} (export-projects)`);
    expect(show.stdout).toMatch(/state\s+completed/);
    expect(show.stdout).toContain(`file      ${queuedOut()}`);
    expect(show.stdout).toMatch(new RegExp(`projects\\s+${expectedCount()} \\(`));
    expect(show.stdout + show.stderr).not.toContain(rig.sandbox.credentials.password);

    const missing = await cli(['jobs', 'show', 'no-such-job']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no job no-such-job');
  });

  it('runs with --no-queue when no Redis answers', async () => {
    const r = await cli(['export', 'projects', '--no-queue', '--format', 'jsonl', '--out', 'direct.jsonl'], {
      REDIS_URL: 'redis://127.0.0.1:1',
    });
    expect(r.code, r.stderr).toBe(0);
    const text = await readFile(path.join(rig.dir, 'direct.jsonl'), 'utf8');
    expect(text.trimEnd().split('\n')).toHaveLength(expectedCount());
  });

  it('says Redis is unavailable, with exit 2, when queued without Redis', async () => {
    const r = await cli(['export', 'projects', '--out', 'never.csv'], { REDIS_URL: 'redis://127.0.0.1:1' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no Redis answers at redis://127.0.0.1:1');
    expect(await tempFiles(rig.dir)).toEqual([]);
  });
});
