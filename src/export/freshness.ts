import { queuePrefix, type RedisConnection } from '../redis/layout.ts';
import type { ProjectExportResult } from './run-export.ts';

/**
 * The last successful export of each account and schedule, kept in Redis so that every worker's
 * `/metrics` shows the same values, and a worker restarted since still shows them (queue/metrics.ts
 * `buildsync_export_last_success_*`). One hash for the installation, beside the queues (in their
 * slot on a cluster): field `ACCOUNT<TAB>SCHEDULE` (SCHEDULE empty for a one-off export).
 */
export interface ExportSuccess {
  account: string;
  /** The job scheduler's name, '' for an export that was not scheduled. */
  schedule: string;
  /** Unix ms. */
  at: number;
  projects: number;
  added: number | null;
  changed: number | null;
  removed: number | null;
  /** The file written (absent for `--to postgres`), so that the export page can offer it. */
  path?: string;
}

export function exportSuccessKey(redis: RedisConnection, prefix: string): string {
  return `${queuePrefix(redis, prefix)}:export-last-success`;
}

export async function recordExportSuccess(
  redis: RedisConnection,
  prefix: string,
  e: { account: string; schedule: string; result: ProjectExportResult; at?: number },
): Promise<void> {
  const value: ExportSuccess = {
    account: e.account,
    schedule: e.schedule,
    at: e.at ?? Date.now(),
    projects: e.result.projects,
    added: e.result.changes?.added ?? null,
    changed: e.result.changes?.changed ?? null,
    removed: e.result.changes?.removed ?? null,
    ...(e.result.to !== 'postgres' && e.result.path ? { path: e.result.path } : {}),
  };
  await redis.hset(exportSuccessKey(redis, prefix), `${e.account}\t${e.schedule}`, JSON.stringify(value));
}

export async function readExportSuccesses(redis: RedisConnection, prefix: string): Promise<ExportSuccess[]> {
  const all = await redis.hgetall(exportSuccessKey(redis, prefix));
  const out: ExportSuccess[] = [];
  for (const v of Object.values(all)) {
    try {
      out.push(JSON.parse(v) as ExportSuccess);
    } catch {
      // a value this version cannot read: skip it, the next success overwrites it
    }
  }
  return out;
}
