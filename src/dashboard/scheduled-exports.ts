import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, normalize } from 'node:path';
import type { Queue } from 'bullmq';
import { readExportSuccesses, type ExportSuccess } from '../export/index.ts';
import type { RedisConnection } from '../redis/layout.ts';

/** The last file a schedule wrote for one account, as the export page shows it. */
export interface ScheduledExport {
  account: string;
  schedule: string;
  /** Unix ms of the export's success. */
  at: number;
  projects: number;
  /** The file as the worker named it; absent for an export into Postgres. */
  path?: string;
  /** Whether the dashboard can read that file, and so offer it for download. */
  readable: boolean;
}

/**
 * The latest scheduled export of each account (README, "The export page"), from the successes the
 * workers record in Redis (export/freshness.ts). The dashboard offers the file only when it can
 * read it here (a worker on another machine writes to its own disk) and only when the path is one
 * its schedule writes: the schedule's `out`, or a file directly in its `outDir` (the rule
 * job-paths.ts keeps for job data), so a value in Redis never makes the dashboard serve another file.
 */
export async function lastScheduledExports(redis: RedisConnection, prefix: string, exportsQueue: Queue): Promise<Map<string, ScheduledExport>> {
  const latest = new Map<string, ExportSuccess>();
  for (const s of await readExportSuccesses(redis, prefix)) {
    if (s.schedule === '') continue;
    const seen = latest.get(s.account);
    if (!seen || s.at > seen.at) latest.set(s.account, s);
  }
  const out = new Map<string, ScheduledExport>();
  if (latest.size === 0) return out;
  const schedulers = await exportsQueue.getJobSchedulers(0, -1, true);
  for (const [account, s] of latest) {
    const data = schedulers.find((j) => j.key === s.schedule)?.template?.data as Record<string, unknown> | undefined;
    const readable = s.path !== undefined && !!data && writesTo(data, s.path) && (await isReadableFile(s.path));
    out.set(account, { account, schedule: s.schedule, at: s.at, projects: s.projects, ...(s.path ? { path: s.path } : {}), readable });
  }
  return out;
}

function writesTo(data: Record<string, unknown>, file: string): boolean {
  const p = normalize(file);
  if (typeof data.out === 'string') return normalize(data.out) === p;
  return typeof data.outDir === 'string' && normalize(data.outDir).replace(/(?<=.)\/+$/, '') === dirname(p);
}

async function isReadableFile(file: string): Promise<boolean> {
  try {
    await access(file, constants.R_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}
