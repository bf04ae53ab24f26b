/**
 * The import page's uploads (README, The import page): kept in a private directory (mode 0700, files 0600)
 * "until sent or for an hour": once the import's records are sent (its job ended), its rows to fix
 * are read from it and kept with its report in Redis (rows-to-fix.ts), and the upload is removed;
 * an upload never sent is removed an hour after it came (BUILDSYNC_UPLOAD_KEEP_MS, a test knob).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Env } from '../config.ts';
import { coerceError } from '../errors/index.ts';
import { knob } from '../knobs.ts';
import type { ImportPlan, PlanOptions } from '../import/index.ts';
import type { ImportKind, ImportStore, PageLayout, VendorEntry } from '../import-service/index.ts';
import type { Queues } from '../queue/index.ts';
import { PageError } from './http-errors.ts';
import { rowsToFixText } from './rows-to-fix.ts';
import { formatEta } from '../throttle/index.ts';

export const IMPORT_PAGE_DEFAULTS = {
  /** `--max-upload-mb`. */
  maxUploadMb: 50,
  /** How often the page's server looks whether a sent import has ended, to remove its upload. */
  watchMs: 1_000,
} as const;

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
  timer: NodeJS.Timeout;
  plan?: ImportPlan;
  planOpts?: PlanOptions;
  account?: string;
  /** The kind and `File layout` of the last check: with its mapping, the last mapping the page keeps when sent. */
  page?: { kind: ImportKind; layout: PageLayout };
  /** Cells were edited in place: `file` is the edited copy (a CSV: written as UTF-8 whatever the upload's encoding). */
  edited?: boolean;
  /** The vendor IDs typed in the vendor table of the last check: the send saves them into the account's vendor list. */
  vendorIds?: VendorEntry[];
  /** Set once sent: the import whose end removes the upload. */
  importId?: string;
  watch?: NodeJS.Timeout;
}

export interface UploadStoreOptions {
  /** Where the private directory of uploads is made. @defaultValue os.tmpdir() */
  uploadDir?: string;
  keepMs: number;
  queues: Queues;
  store: ImportStore;
  log?: Logger;
}

export class UploadStore {
  readonly #uploads = new Map<string, Upload>();
  #baseDir: Promise<string> | undefined;
  #closed = false;

  constructor(private readonly o: UploadStoreOptions) {}

  /** Keeps an uploaded file under `name` (already made safe, `safeName`) for `keepMs`. */
  async add(name: string, body: Buffer): Promise<Upload> {
    // mkdtemp makes the directory 0700: only this user reads the uploads.
    const base = await (this.#baseDir ??= mkdtemp(join(this.o.uploadDir ?? tmpdir(), 'buildsync-uploads-')));
    const dir = await mkdtemp(join(base, 'u-'));
    const file = join(dir, name);
    await writeFile(file, body, { mode: 0o600 });
    const id = randomUUID();
    const timer = setTimeout(() => void this.drop(id), this.o.keepMs);
    timer.unref();
    const up: Upload = { id, dir, file, name, timer };
    this.#uploads.set(id, up);
    return up;
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
    if (this.#baseDir) await rm(await this.#baseDir, { recursive: true, force: true });
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

/** An uploaded file's name, safe to keep on disk: no directories, no leading dot, no odd characters. */
export function safeName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? 'upload.csv';
  const clean = base.replace(/[^\w. ()-]/g, '_').slice(0, 120);
  return clean === '' || clean.startsWith('.') ? `upload${clean}` : clean;
}
