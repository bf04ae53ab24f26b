/**
 * The import page's uploads (README, The import page): kept in a private directory (mode 0700, files 0600)
 * "until sent or for an hour": once the import's records are sent (its job ended), its rows to fix
 * are read from it and kept with its report in Redis (rows-to-fix.ts), and the upload is removed;
 * an upload never sent is removed an hour after it came (BUILDSYNC_UPLOAD_KEEP_MS, a test knob).
 * Together they take at most `--max-uploads-total-mb` on disk: an upload
 * past it is refused, saying when space comes back. The directory holds the dashboard's process id:
 * a dashboard that starts removes the directories of dashboards that are no longer running (a
 * crashed one never removed its own).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Env } from '../config.ts';
import { coerceError } from '../errors/index.ts';
import { knob } from '../knobs.ts';
import type { PlanOptions } from '../import/index.ts';
import type { ImportKind, ImportStore, PageLayout, VendorEntry } from '../import-service/index.ts';
import type { Queues } from '../queue/index.ts';
import { PageError } from './http-errors.ts';
import { rowsToFixText } from './rows-to-fix.ts';
import { formatEta } from '../throttle/index.ts';
import { UPLOAD_LIMITS } from './upload-limits.ts';

export const IMPORT_PAGE_DEFAULTS = {
  /** `--max-upload-mb` and `--max-uploads-total-mb` (upload-limits.ts). */
  ...UPLOAD_LIMITS,
  /** How often the page's server looks whether a sent import has ended, to remove its upload. */
  watchMs: 1_000,
} as const;

/** The reader thread's limits (BUILDSYNC_UPLOAD_READER_MB and _TIMEOUT_MS, knobs.ts), checked once, when the page is set up. */
export function uploadReaderLimits(env: Env): { heapMb: number; timeoutMs: number } {
  return { heapMb: knob('BUILDSYNC_UPLOAD_READER_MB', env), timeoutMs: knob('BUILDSYNC_UPLOAD_READER_TIMEOUT_MS', env) };
}

/**
 * How long an upload, or the rows to fix of its import, is kept ("for an hour"):
 * BUILDSYNC_UPLOAD_KEEP_MS, the test knob of knobs.ts; checked once, when the page is set up.
 */
export function uploadKeepMs(env: Env): number {
  return knob('BUILDSYNC_UPLOAD_KEEP_MS', env);
}

export interface Upload {
  id: string;
  dir: string;
  file: string;
  name: string;
  /** Removes it when its time is up: set once its first reading is done (`keep`). */
  timer?: NodeJS.Timeout;
  /** What the last check read the upload with: Send reads it again with the same (src/dashboard/import-send.ts). */
  checked?: CheckedUpload;
  /** Set once sent: the import whose end removes the upload. */
  importId?: string;
  /** Bytes it takes on disk. */
  bytes: number;
  watch?: NodeJS.Timeout;
}

/** What a check read an upload with, and what of it Send needs. */
export interface CheckedUpload {
  planOpts: PlanOptions;
  account: string;
  /** The kind and `File layout`: with the options' mapping, the last mapping the page keeps when sent. */
  page: { kind: ImportKind; layout: PageLayout };
  /** The vendor IDs typed in the vendor table: read over the account's list by Send, which saves them into it. */
  vendorIds: VendorEntry[];
  /** Rows the check found invalid. */
  invalidRows: number;
}

export interface UploadStoreOptions {
  /** Where the private directory of uploads is made. @defaultValue os.tmpdir() */
  uploadDir?: string;
  keepMs: number;
  /** Every kept upload together, in bytes. @defaultValue IMPORT_PAGE_DEFAULTS.maxUploadsTotalMb */
  maxTotalBytes?: number;
  queues: Queues;
  store: ImportStore;
  log?: Logger;
}

export class UploadStore {
  readonly #uploads = new Map<string, Upload>();
  readonly #baseDir: Promise<string>;
  #closed = false;
  /** Bytes of every kept upload and copy, counted before they are written. */
  #total = 0;

  constructor(private readonly o: UploadStoreOptions) {
    // At start: a crashed dashboard's uploads are removed now, not at the first upload.
    this.#baseDir = this.#makeBase();
    this.#baseDir.catch((err: unknown) => this.o.log?.warn({ err: coerceError(err) }, 'import page: cannot make the private directory of uploads'));
  }

  get #maxTotal(): number {
    return this.o.maxTotalBytes ?? IMPORT_PAGE_DEFAULTS.maxUploadsTotalMb * 1024 * 1024;
  }

  /** Keeps an uploaded file under `name` (already made safe, `safeName`); `keep` starts its time. */
  async add(name: string, body: Buffer): Promise<Upload> {
    this.#reserve(body.length, name);
    let dir: string;
    try {
      const base = await this.#baseDir;
      dir = await mkdtemp(join(base, 'u-'));
      await writeFile(join(dir, name), body, { mode: 0o600 });
    } catch (err) {
      this.#total -= body.length;
      throw err;
    }
    const up: Upload = { id: randomUUID(), dir, file: join(dir, name), name, bytes: body.length };
    this.#uploads.set(up.id, up);
    return up;
  }

  /**
   * Its first reading is done: it is kept for `keepMs` from now. (Counted from the reading, not
   * the upload: a reading that takes long, in a reader thread just started, never finds it gone.)
   */
  keep(up: Upload): void {
    clearTimeout(up.timer);
    up.timer = setTimeout(() => void this.drop(up.id), this.o.keepMs).unref();
  }

  /** Counts `bytes` more, or refuses them when every upload together would pass the quota. */
  #reserve(bytes: number, name: string): void {
    if (this.#total + bytes > this.#maxTotal) {
      const mb = (n: number) => Math.ceil(n / 1024 / 1024);
      throw new PageError(507, `${name} cannot be kept: the uploads on this dashboard already take ${mb(this.#total)} MB of the ${mb(this.#maxTotal)} MB it keeps for them. Space comes back as earlier uploads are sent or expire (after ${formatEta(this.o.keepMs)}); try again then, or ask whoever runs the dashboard for more.`);
    }
    this.#total += bytes;
  }

  /**
   * The private directory of this dashboard's uploads (mkdtemp makes it 0700: only this user reads
   * them), holding its process id; the directories of dashboards no longer running are removed first.
   */
  async #makeBase(): Promise<string> {
    const parent = this.o.uploadDir ?? tmpdir();
    await removeStaleUploads(parent, this.o.log);
    const base = await mkdtemp(join(parent, UPLOADS_PREFIX));
    await writeFile(join(base, OWNER_FILE), String(process.pid), { mode: 0o600 });
    return base;
  }

  get(id: unknown): Upload {
    const up = typeof id === 'string' ? this.#uploads.get(id) : undefined;
    if (!up) throw new PageError(404, 'this upload is no longer kept; read the file again');
    return up;
  }

  async drop(id: string): Promise<void> {
    const up = this.#uploads.get(id);
    if (!up) return;
    this.#uploads.delete(id);
    clearTimeout(up.timer);
    clearTimeout(up.watch);
    await rm(up.dir, { recursive: true, force: true });
    this.#total -= up.bytes;
  }

  /** The upload was sent as `importId`: it stays until the import has sent its records or its hour is up. */
  sent(up: Upload, importId: string): void {
    up.importId = importId;
    this.#watch(up);
  }

  /** The upload an import was sent from, while it is still kept on this machine. */
  fileOf(importId: string): string | undefined {
    for (const up of this.#uploads.values()) if (up.importId === importId) return up.file;
    return undefined;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const id of [...this.#uploads.keys()]) await this.drop(id);
    const base = await this.#baseDir.catch(() => undefined);
    if (base !== undefined) await rm(base, { recursive: true, force: true });
  }

  /** Looks every `watchMs` whether the sent import has ended; then keeps its rows to fix and removes the upload. */
  #watch(up: Upload): void {
    const tick = async () => {
      if (this.#closed || this.#uploads.get(up.id) !== up || !up.importId) return;
      try {
        const job = await this.o.queues.imports.getJob(up.importId);
        const state = job ? await job.getState() : 'unknown';
        if (state === 'completed' || state === 'failed' || state === 'unknown') {
          await this.#keepFixes(up, up.importId);
          await this.drop(up.id);
          return;
        }
      } catch (err) {
        // Redis away for a moment: look again at the next tick; the hour's timer still removes the upload.
        this.o.log?.warn({ err: coerceError(err) }, 'import page: could not read the state of a sent import');
      }
      if (!this.#closed && this.#uploads.get(up.id) === up) up.watch = setTimeout(() => void tick(), IMPORT_PAGE_DEFAULTS.watchMs).unref();
    };
    up.watch = setTimeout(() => void tick(), IMPORT_PAGE_DEFAULTS.watchMs).unref();
  }

  /** The import's rows to fix, read from its upload once, kept with its report in Redis. */
  async #keepFixes(up: Upload, importId: string): Promise<void> {
    const text = await rowsToFixText(this.o.store, importId, { running: false, localFile: up.file, keptFor: formatEta(this.o.keepMs) });
    await this.o.store.saveRowsToFix(importId, text);
  }
}

const UPLOADS_PREFIX = 'buildsync-uploads-';
const OWNER_FILE = 'dashboard.pid';

/**
 * Removes the upload directories under `parent` whose dashboard is no longer running: its process
 * id (OWNER_FILE) names no live process. A directory without one (an older dashboard's) goes once
 * its own last change is more than a day old. Another running dashboard's directory is left alone.
 */
export async function removeStaleUploads(parent: string, log?: Logger): Promise<void> {
  let names: string[];
  try {
    names = await readdir(parent);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(UPLOADS_PREFIX)) continue;
    const dir = join(parent, name);
    try {
      const owner = Number((await readFile(join(dir, OWNER_FILE), 'utf8').catch(() => '')).trim());
      const stale = Number.isInteger(owner) && owner > 0 ? !isRunning(owner) : Date.now() - (await stat(dir)).mtimeMs > 24 * 3_600_000;
      if (stale) await rm(dir, { recursive: true, force: true });
    } catch (err) {
      log?.warn({ err: coerceError(err), dir }, 'import page: could not remove the uploads of a dashboard no longer running');
    }
  }
}

/** Whether process `pid` runs (signal 0 only asks; EPERM: it runs, as another user). */
function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** An uploaded file's name, safe to keep on disk: no directories, no leading dot, no odd characters. */
export function safeName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? 'upload.csv';
  const clean = base.replace(/[^\w. ()-]/g, '_').slice(0, 120);
  return clean === '' || clean.startsWith('.') ? `upload${clean}` : clean;
}
