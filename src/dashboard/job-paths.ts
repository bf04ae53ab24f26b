import { normalize } from 'node:path';
import type { Queue } from 'bullmq';
import { PATH_FIELDS } from '../queue/index.ts';
import { PageError } from './http-errors.ts';

/**
 * Job data that names a file or folder a worker writes (PATH_FIELDS of jobs/index.ts: an export's
 * `out` and `outDir`, an import's `reportPath`) is taken from the dashboard only with the values
 * the configured schedules give that field (README, "Dashboard"): whoever reaches the dashboard
 * may rerun a scheduled export, never make a worker write somewhere new. The schedules are read
 * from Redis at each action, so a schedule added or removed counts at once.
 */
export async function refuseUnscheduledPaths(queues: readonly Queue[], name: string, data: unknown): Promise<void> {
  if (!isKind(name)) {
    throw new JobPathRefused(`"${name}" is not a kind of job buildsync runs (${Object.keys(PATH_FIELDS).join(', ')}); add jobs with the buildsync commands`);
  }
  const fields = PATH_FIELDS[name];
  const given = fields.filter((f) => data !== null && typeof data === 'object' && (data as Record<string, unknown>)[f] !== undefined);
  if (given.length === 0) return;
  const allowed = await schedulePaths(queues);
  for (const field of given) {
    const value = (data as Record<string, unknown>)[field];
    if (typeof value === 'string' && allowed.get(`${name} ${field}`)?.has(samePath(value))) continue;
    const scheduled = [...(allowed.get(`${name} ${field}`) ?? [])];
    throw new JobPathRefused(
      `${name} job data names ${field} ${JSON.stringify(value)}, which no schedule uses; from the dashboard ${field} may only be ${scheduled.length ? scheduled.map((p) => JSON.stringify(p)).join(' or ') : 'left out (no schedule gives one)'}. Run other exports with buildsync export projects --out FILE`,
    );
  }
}

/** A refusal of job data, answered 403 by bull-board's API (board.ts). */
export class JobPathRefused extends PageError {
  constructor(message: string) {
    super(403, message);
  }
}

/** A path as compared: `.` and `..` resolved and no trailing separator (`/srv/x/` is `/srv/x`). */
function samePath(p: string): string {
  return normalize(p).replace(/(?<=.)\/+$/, '');
}

function isKind(name: string): name is keyof typeof PATH_FIELDS {
  return Object.hasOwn(PATH_FIELDS, name);
}

/** `"<kind> <field>"` → the values the schedules of these queues give that field, normalized. */
async function schedulePaths(queues: readonly Queue[]): Promise<Map<string, Set<string>>> {
  const allowed = new Map<string, Set<string>>();
  const lists = await Promise.all(queues.map((q) => q.getJobSchedulers(0, -1, true)));
  for (const scheduler of lists.flat()) {
    const kind = scheduler.template ? scheduler.name : undefined;
    const data = scheduler.template?.data as Record<string, unknown> | undefined;
    if (kind === undefined || !isKind(kind) || !data) continue;
    for (const field of PATH_FIELDS[kind]) {
      const value = data[field];
      if (typeof value !== 'string') continue;
      const key = `${kind} ${field}`;
      allowed.set(key, (allowed.get(key) ?? new Set()).add(samePath(value)));
    }
  }
  return allowed;
}
