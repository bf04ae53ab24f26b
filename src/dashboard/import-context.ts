/**
 * What every route of the import page shares (import-page.ts makes it once): the import store, the
 * uploads, the last mappings, the reader thread, and the page's small rules of its requests (the
 * kind, an account's readings, an import's report lines). Each route is a module of its own:
 * import-reading-routes.ts (upload, read, mappings, vendor list), import-check.ts, import-send.ts,
 * import-results.ts (status, report, created, rows to fix).
 */
import type { Logger } from 'pino';
import type { Env } from '../config.ts';
import { accountVendorList, ImportStore, LastMappings, type ImportKind, type PageState } from '../import-service/index.ts';
import type { Queues } from '../queue/index.ts';
import type { RedisConnection as Redis } from '../redis/layout.ts';
import { listAccounts } from './accounts.ts';
import { PageError } from './http-errors.ts';
import { UploadReader, type CallBacks } from './upload-reader.ts';
import type { ReadingResult } from './upload-reading.ts';
import { IMPORT_PAGE_DEFAULTS, uploadKeepMs, uploadReaderLimits, UploadStore } from './upload-store.ts';

export interface ImportRouterOptions {
  redis: Redis;
  prefix: string;
  queues: Queues;
  env: Env;
  timeScale?: number;
  /** `--max-upload-mb`. @defaultValue UPLOAD_LIMITS.maxUploadMb (upload-limits.ts) */
  maxUploadMb?: number;
  /** `--max-uploads-total-mb`. @defaultValue UPLOAD_LIMITS.maxUploadsTotalMb (upload-limits.ts) */
  maxUploadsTotalMb?: number;
  /** @defaultValue os.tmpdir() */
  uploadDir?: string;
  log?: Logger;
}

export interface ImportContext {
  opts: ImportRouterOptions;
  /** The upload cap, in bytes. */
  maxBytes: number;
  /** How long an upload is kept. */
  keepMs: number;
  store: ImportStore;
  uploads: UploadStore;
  lastMappings: LastMappings;
  /** Every reading, check and cell edit of an upload runs in its thread, within a memory and a time limit (upload-reader.ts). */
  reader: UploadReader;
  /** The configured accounts. */
  accounts(): Promise<string[]>;
  /** `readPage` of `file` (uploaded as `name`) in the reader thread, with the account's last mapping and vendor list. */
  readUploadPage(file: string, name: string, state: PageState): Promise<ReadingResult<'read'>>;
}

export function importContext(opts: ImportRouterOptions): ImportContext {
  const store = new ImportStore(opts.redis, opts.prefix);
  const keepMs = uploadKeepMs(opts.env);
  const maxTotalBytes = Math.round((opts.maxUploadsTotalMb ?? IMPORT_PAGE_DEFAULTS.maxUploadsTotalMb) * 1024 * 1024);
  const lastMappings = new LastMappings(opts.redis, opts.prefix);
  const reader = new UploadReader(uploadReaderLimits(opts.env));
  reader.warm();
  const accounts = () => listAccounts(opts.env, opts.redis, opts.prefix);
  /** What a reading takes of a configured account: the last mapping sent from the page, by the file's header row, and its vendor list (answered from this thread's Redis). */
  const accountReading = async (account: string | undefined, kind: ImportKind): Promise<CallBacks | undefined> => {
    if (account === undefined || !(await accounts()).includes(account)) return undefined;
    return {
      lastMapping: (headers: readonly string[]) => lastMappings.load(account, kind, headers),
      vendorList: () => accountVendorList({ redis: opts.redis, prefix: opts.prefix, account }),
    };
  };
  return {
    opts,
    maxBytes: Math.round((opts.maxUploadMb ?? IMPORT_PAGE_DEFAULTS.maxUploadMb) * 1024 * 1024),
    keepMs,
    store,
    uploads: new UploadStore({ uploadDir: opts.uploadDir, keepMs, maxTotalBytes, queues: opts.queues, store, log: opts.log }),
    lastMappings,
    reader,
    accounts,
    readUploadPage: async (file, name, state) => {
      const callBacks = await accountReading(state.account, state.kind);
      return reader.run(name, 'read', { file, name, state, account: callBacks !== undefined }, callBacks);
    },
  };
}

export function kindOf(v: unknown): ImportKind {
  if (v === 'estimates' || v === 'bills') return v;
  throw new PageError(400, 'choose Estimates or Bills');
}

/** An import's report lines (`pending` while it runs), or a 404 for an id that names nothing. */
export async function reportLines(ctx: ImportContext, id: string) {
  const meta = await ctx.store.meta(id);
  if (!meta) throw new PageError(404, `import ${id} is unknown or expired`);
  const job = await ctx.opts.queues.imports.getJob(id);
  const running = !job || !['completed', 'failed'].includes(await job.getState());
  return ctx.store.report(id, { running });
}
