import { randomBytes } from 'node:crypto';
import type { ServiceClient } from '../api/index.ts';
import { ConfigError } from '../errors/index.ts';
import type { RedisConnection } from '../redis/layout.ts';
import type { Secret } from '../secret.ts';
import type { UpsertCounts } from './postgres/index.ts';
import type { ChangeCounts } from './changes.ts';
import { exportProjects, type ExportFormat, type ExportResult, type ExportSink, type MyDocumentsMode } from './export-projects.ts';

export type ExportDestination = 'file' | 'postgres';

export interface ProjectExportSpec {
  /** `v2`: GET /api/v2/Projects, streamed (docs/service.md, Projects listing (v2)); `paged`: GET /api/Projects?skip&take (docs/service.md, Projects listing (paged)). */
  source: 'v2' | 'paged';
  includeClientSub: boolean;
  pageSize: number;
  format: ExportFormat;
  myDocuments: MyDocumentsMode;
  /**
   * The export file. With `to: 'postgres'` no export file is written, and this path only names
   * the changes file (`changesPathFor(out)`).
   */
  out: string;
  /** `file` (the default) or `postgres`: upsert into `buildsync_projects` (docs/data-teams.md). @defaultValue 'file' */
  to?: ExportDestination;
  /** Also write the changes file (docs/data-teams.md). @defaultValue false */
  changes?: boolean;
}

/** Where `--changes` and `--to postgres` keep and write what they need; secrets stay out of the spec (job data). */
export interface ExportServices {
  /** Where the comparison state lives: the Redis, the key prefix and the account (src/redis/layout.ts `exportStateKeyOf`). */
  changeState?: { redis: RedisConnection; prefix: string; account: string };
  /** The account's BUILDSYNC_EXPORT_DATABASE_URL, from this process's environment. */
  databaseUrl?: Secret;
  /** Which variable to name when `databaseUrl` is missing. @defaultValue BUILDSYNC_EXPORT_DATABASE_URL */
  databaseVariable?: string;
}

export interface ProjectExportResult extends ExportResult {
  to: ExportDestination;
  /** Added, changed and removed since the previous successful export of the same variant; with `--changes` or `--to postgres`. */
  changes?: ChangeCounts & { path?: string };
  /** What happened to `buildsync_projects` (`--to postgres`). */
  postgres?: UpsertCounts;
}

/** The part of the comparison state's key that tells one listing variant from another (docs/data-teams.md). */
export function exportVariant(spec: Pick<ProjectExportSpec, 'source' | 'includeClientSub' | 'myDocuments'>): string {
  return `${spec.source}:${spec.includeClientSub}:${spec.myDocuments}`;
}

/** Whether this export keeps the comparison state (and so needs Redis). */
export function tracksChanges(spec: Pick<ProjectExportSpec, 'to' | 'changes'>): boolean {
  return spec.changes === true || spec.to === 'postgres';
}

/** The listing an export reads. The paged listing has no includeClientSub (docs/service.md, Projects listing (paged) scope: client/sub projects included). */
export function projectSource(client: ServiceClient, spec: ProjectExportSpec, signal?: AbortSignal): AsyncIterable<Record<string, unknown>> {
  return spec.source === 'v2'
    ? client.listProjectsV2({ includeClientSub: spec.includeClientSub, signal })
    : client.listProjectsPaged({ pageSize: spec.pageSize, signal });
}

/**
 * Lists every visible project and writes it where the spec says: the export file (complete, or
 * not at all), `buildsync_projects` (one transaction), the changes file and the comparison state
 * (replaced only when everything else succeeded).
 */
export async function runExport(
  client: ServiceClient,
  spec: ProjectExportSpec,
  opts: { signal?: AbortSignal; onProgress?: (p: { projects: number; bytes: number }) => void } & ExportServices = {},
): Promise<ProjectExportResult> {
  const to = spec.to ?? 'file';
  const sinks: ExportSink[] = [];
  if (to === 'postgres' && !opts.databaseUrl) {
    const name = opts.databaseVariable ?? 'BUILDSYNC_EXPORT_DATABASE_URL';
    throw new ConfigError(`--to postgres needs ${name} in the environment of the process that runs the export (the worker); e.g. ${name}=postgres://user@db.example.com/warehouse`);
  }
  if (tracksChanges(spec) && !opts.changeState) {
    throw new ConfigError(`${spec.changes ? '--changes' : '--to postgres'} keeps what was exported last time in Redis, and no Redis answers; start one or set REDIS_URL`);
  }
  // The previous state (from Redis) and the table's rows (from PostgreSQL) are read at the same
  // time: each takes a few hundred milliseconds for 200,000 projects, and the round trips of one
  // overlap the other's.
  //
  // Both are loaded only when asked for (a dynamic import, a chunk of its own in the bundle): a
  // plain file export does not need the PostgreSQL driver, ioredis or the change tracker, and
  // loading them cost its process ~15 MB of RSS before the first project (issue 17).
  const opening = await Promise.allSettled([
    tracksChanges(spec) && opts.changeState
      ? (async () => {
          const [{ ChangeTracker, changesPathFor }, { exportStateKeyOf }] = await Promise.all([import('./changes.ts'), import('../redis/layout.ts')]);
          const { redis, prefix, account } = opts.changeState!;
          const variant = exportVariant(spec);
          return ChangeTracker.open({
            redis,
            key: exportStateKeyOf(redis, prefix, account, variant),
            nextKey: exportStateKeyOf(redis, prefix, account, variant, randomBytes(6).toString('hex')),
            changesPath: spec.changes ? changesPathFor(spec.out) : undefined,
          });
        })()
      : undefined,
    to === 'postgres' ? import('./postgres/postgres.ts').then(({ PostgresProjectSink }) => PostgresProjectSink.open({ url: opts.databaseUrl! })) : undefined,
  ]);
  const [trackerOpened, warehouseOpened] = opening;
  const tracker = trackerOpened.status === 'fulfilled' ? trackerOpened.value : undefined;
  const warehouse = warehouseOpened.status === 'fulfilled' ? warehouseOpened.value : undefined;
  const failed = opening.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failed) {
    // The first failure in the order they were started (the state, then the table), as before.
    await warehouse?.abort();
    await tracker?.abort();
    throw failed.reason;
  }
  tracker?.collectGarbage();
  if (warehouse) sinks.push(warehouse);
  // The state is replaced last: a changes file or table that failed leaves it as it was.
  if (tracker) sinks.push(tracker);

  const result = await exportProjects(projectSource(client, spec, opts.signal), {
    out: to === 'file' ? spec.out : null,
    format: spec.format,
    myDocuments: spec.myDocuments,
    sinks,
    signal: opts.signal,
    onProgress: opts.onProgress,
  });
  return {
    ...result,
    to,
    ...(tracker ? { changes: { ...tracker.counts, ...(tracker.changesPath ? { path: tracker.changesPath } : {}) } } : {}),
    ...(warehouse ? { postgres: warehouse.counts } : {}),
  };
}
