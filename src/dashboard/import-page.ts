/**
 * The import page (README, The import page): `/import` beside bull-board and the budget page, served with
 * `buildsync dashboard --allow-imports`. Upload (raw body + `X-Filename`) and read again
 * (`/import/read`: layout, header row, sheet), match columns (a saved mapping applied by
 * `/import/mapping`, the choices as the CLI's mapping by `/import/mapping.json`, the last mapping
 * sent for the same headers preselected), check (with the budget of every window)
 * as the CLI's dry run, send (the CLI's queued import job), follow (polling `/import/status.json`),
 * download the report and the rows to fix. Like every route of the dashboard, behind its guard
 * (same-origin.ts: the `Host`, the `Origin` or CSRF token of every POST).
 *
 * This file holds the routes: the checking, planning and submitting are the import service's
 * (src/import-service/, which the CLI's `import` runs too), the uploads are kept by
 * upload-store.ts, failures answered by http-errors.ts. Cells edited in place are part of the page
 * state, read over the upload as it is by the import service (no copy of the file is made).
 */
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import express from 'express';
import type { RedisConnection as Redis } from '../redis/layout.ts';
import type { Logger } from 'pino';
import { loadConfig, requireService, type Env } from '../config.ts';
import { reportCsvChunks } from '../import/index.ts';
import {
  accountVendorList,
  ImportStore,
  LastMappings,
  listProjects,
  matchVendorList,
  pageCheck,
  pageFailedReason,
  pageImportOptions,
  parsePageState,
  redisDurability,
  saveTypedVendorIds,
  submitChecked,
  type ImportKind,
  type PageState,
} from '../import-service/index.ts';
import type { Queues } from '../queue/index.ts';
import { AccountThrottle, formatEta } from '../throttle/index.ts';
import { listAccounts } from './accounts.ts';
import { PageError, pageErrorHandler, scrub } from './http-errors.ts';
import { renderImportPage } from './import-html.ts';
import { pageScript } from './page-scripts.ts';
import { nothingToFixPage, rowsToFixText } from './rows-to-fix.ts';
import { UploadReader, type CallBacks } from './upload-reader.ts';
import { IMPORT_PAGE_DEFAULTS, safeName, uploadKeepMs, uploadReaderLimits, UploadStore } from './upload-store.ts';

/** How many created records the page's `Created` table lists (the report has them all). */
const CREATED_SHOWN = 500;
export { IMPORT_PAGE_DEFAULTS, uploadKeepMs };

/** What `startDashboard` takes for the import page (`--allow-imports`, `--max-upload-mb`). */
export interface ImportPageOptions {
  /** Serve the import page at `/import` (README, The import page). @defaultValue false */
  allowImports?: boolean;
  /** Upload cap in MB. @defaultValue 50 */
  maxUploadMb?: number;
  /** Every kept upload together, in MB (`--max-uploads-total-mb`). @defaultValue 2048 */
  maxUploadsTotalMb?: number;
  /** Where the private directory of uploads is made. @defaultValue os.tmpdir() */
  uploadDir?: string;
}

export interface ImportRouterOptions {
  redis: Redis;
  prefix: string;
  queues: Queues;
  env: Env;
  timeScale?: number;
  /** `--max-upload-mb`. @defaultValue 50 */
  maxUploadMb?: number;
  /** `--max-uploads-total-mb`. @defaultValue 2048 */
  maxUploadsTotalMb?: number;
  /** @defaultValue os.tmpdir() */
  uploadDir?: string;
  log?: Logger;
}

type Kind = ImportKind;

export function importRouter(opts: ImportRouterOptions): { router: express.Router; close(): Promise<void> } {
  const maxBytes = Math.round((opts.maxUploadMb ?? IMPORT_PAGE_DEFAULTS.maxUploadMb) * 1024 * 1024);
  const keepMs = uploadKeepMs(opts.env);
  const store = new ImportStore(opts.redis, opts.prefix);
  const maxTotalBytes = Math.round((opts.maxUploadsTotalMb ?? IMPORT_PAGE_DEFAULTS.maxUploadsTotalMb) * 1024 * 1024);
  const uploads = new UploadStore({ uploadDir: opts.uploadDir, keepMs, maxTotalBytes, queues: opts.queues, store, log: opts.log });
  const lastMappings = new LastMappings(opts.redis, opts.prefix);
  // Every reading of an upload runs in a thread of its own, within a memory and a time limit (upload-reader.ts).
  const reader = new UploadReader(uploadReaderLimits(opts.env));
  reader.warm();
  /** What a reading takes of a configured account: the last mapping sent from the page, by the file's header row, and its vendor list (answered from this thread's Redis). */
  const accountReading = async (account: string | undefined, kind: Kind): Promise<CallBacks | undefined> => {
    if (account === undefined || !(await listAccounts(opts.env, opts.redis, opts.prefix)).includes(account)) return undefined;
    return {
      lastMapping: (headers: readonly string[]) => lastMappings.load(account, kind, headers),
      vendorList: () => accountVendorList({ redis: opts.redis, prefix: opts.prefix, account }),
    };
  };
  /** `readPage` in the reader thread. */
  const readUploadPage = async (file: string, name: string, state: PageState) => {
    const callBacks = await accountReading(state.account, state.kind);
    return reader.run(name, 'read', { file, name, state, account: callBacks !== undefined }, callBacks);
  };

  const router = express.Router();

  /** An import's report lines (`pending` while it runs), or a 404 for an id that names nothing. */
  const reportLines = async (id: string) => {
    const meta = await store.meta(id);
    if (!meta) throw new PageError(404, `import ${id} is unknown or expired`);
    const job = await opts.queues.imports.getJob(id);
    const running = !job || !['completed', 'failed'].includes(await job.getState());
    return store.report(id, { running });
  };

  router.get('/', (req, res, next) => {
    (async () => {
      const accounts = await listAccounts(opts.env, opts.redis, opts.prefix);
      const workers = await opts.queues.imports.getWorkersCount();
      const script = await pageScript('import-page');
      const id = typeof req.query.id === 'string' && /^import-[\w-]+$/.test(req.query.id) ? req.query.id : undefined;
      res.set('Cache-Control', 'no-store').type('html').send(renderImportPage({ accounts, workers, importId: id, maxUploadMb: maxBytes / 1024 / 1024, script }));
    })().catch(next);
  });

  router.post('/upload', express.raw({ type: '*/*', limit: maxBytes }), (req, res, next) => {
    (async () => {
      const name = safeName(decodeURIComponent(String(req.headers['x-filename'] ?? 'upload.csv')));
      if (!/\.(csv|xlsx|txt|tsv)$/i.test(name)) throw new PageError(400, `${name}: not a spreadsheet; choose a .csv or .xlsx file`);
      const body = req.body as Buffer;
      if (!Buffer.isBuffer(body) || body.length === 0) throw new PageError(400, `${name} is empty`);
      const up = await uploads.add(name, body);
      const { id, file } = up;
      const kind = kindOf(req.query.kind);
      const sheet = typeof req.query.sheet === 'string' && req.query.sheet !== '' ? req.query.sheet : undefined;
      const account = typeof req.query.account === 'string' && req.query.account !== '' ? req.query.account : undefined;
      try {
        // `File layout` may be chosen before `Read file`: the first reading uses it.
        const { layout } = parsePageState({ upload: id, kind, layout: typeof req.query.layout === 'string' ? req.query.layout : undefined });
        const reading = await readUploadPage(file, name, { kind, account, sheet, layout });
        uploads.keep(up);
        res.json({ upload: id, ...reading });
      } catch (err) {
        await uploads.drop(id);
        throw err;
      }
    })().catch(next);
  });

  /** The upload read again with the page's layout, header row, sheet and hidden rows: its choices kept for the headers still present. */
  router.post('/read', express.json({ limit: '1mb' }), (req, res, next) => {
    (async () => {
      const state = parsePageState(req.body);
      const up = uploads.get(state.upload);
      res.json({ upload: up.id, ...(await readUploadPage(up.file, up.name, state)) });
    })().catch(next);
  });

  /** `Same for every row: project`: the account's projects by number and name (one listing request of its budget). */
  router.get('/projects.json', (req, res, next) => {
    (async () => {
      const name = String(req.query.account ?? '');
      if (!(await listAccounts(opts.env, opts.redis, opts.prefix)).includes(name)) throw new PageError(400, 'choose one of the configured accounts in "Service account"');
      const account = requireService(loadConfig({ env: opts.env, account: name }).account);
      const projects = await listProjects(account, { redis: opts.redis, prefix: opts.prefix, connections: 1, timeScale: opts.timeScale });
      res.set('Cache-Control', 'no-store').json({ projects: projects.targets?.() ?? [] });
    })().catch(next);
  });

  /** The page's choices as the CLI's mapping file (`Download mapping`; `--mapping MAP.json` reads the file the same way). */
  router.post('/mapping.json', express.json({ limit: '1mb' }), (req, res, next) => {
    (async () => {
      const state = parsePageState(req.body);
      res.set('Cache-Control', 'no-store').json(pageImportOptions(state, state.kind).mapping);
    })().catch(next);
  });

  /**
   * A saved mapping (the CLI's mapping JSON, as `Download mapping` gives it) applied to the
   * upload's columns: checked as the CLI checks `--mapping` (an entry naming a header the file
   * does not have is an error naming the closest one); every choice it makes comes back as the
   * page's choices, and a header it does not mention is preselected as on a first reading.
   */
  router.post('/mapping', express.json({ limit: '1mb' }), (req, res, next) => {
    (async () => {
      const body = req.body as { upload?: unknown; kind?: unknown; sheet?: unknown; name?: unknown; text?: unknown };
      const up = uploads.get(body.upload);
      const kind = kindOf(body.kind);
      const name = safeName(typeof body.name === 'string' ? body.name : 'mapping.json');
      if (typeof body.text !== 'string') throw new PageError(400, 'no saved mapping was sent; choose the mapping file again');
      let json: unknown;
      try {
        json = JSON.parse(body.text.replace(/^\uFEFF/, ''));
      } catch (err) {
        throw new PageError(400, `${name} is not valid JSON (${(err as Error).message}); choose the file "Download mapping" saved`);
      }
      const sheet = typeof body.sheet === 'string' && body.sheet !== '' ? body.sheet : undefined;
      const state = parsePageState({ ...(req.body as object), kind, columns: undefined });
      res.json(await reader.run(up.name, 'mapping', { file: up.file, name: up.name, kind, json, jsonName: name, sheet, state }));
    })().catch(next);
  });

  /** `Vendor list`: a `vendor,vendor_id` CSV matched to the vendor names the page lists. */
  router.post('/vendor-list', express.json({ limit: '4mb' }), (req, res, next) => {
    (async () => {
      const body = req.body as { upload?: unknown; name?: unknown; text?: unknown; names?: unknown };
      const up = uploads.get(body.upload);
      if (typeof body.text !== 'string') throw new PageError(400, 'no vendor list was sent; choose the file again');
      const names = Array.isArray(body.names) ? body.names.filter((n): n is string => typeof n === 'string') : [];
      res.json(await matchVendorList(body.text, safeName(typeof body.name === 'string' ? body.name : 'vendors.csv'), names, dirname(dirname(up.file))));
    })().catch(next);
  });

  router.post('/check', express.json({ limit: '1mb' }), (req, res, next) => {
    (async () => {
      const body = req.body as CheckBody;
      const up = uploads.get(body.upload);
      const kind = kindOf(body.kind);
      if (typeof body.columns !== 'object' || body.columns === null) throw new PageError(400, 'no column choices');
      // The whole state, edits included, every time: a check is the upload read with it, never a copy changed by an earlier one.
      const state = parsePageState(body);
      const accounts = await listAccounts(opts.env, opts.redis, opts.prefix);
      if (!accounts.includes(body.account)) throw new PageError(400, 'choose one of the configured accounts');
      const cfg = loadConfig({ env: opts.env, account: body.account });
      const account = requireService(cfg.account);
      // The plan options as the CLI's flags make them, with the account's reading (import-options.ts).
      const page = pageImportOptions(state, kind, undefined, cfg.account);
      const planOpts = page.planOptions;
      // The whole file is read first in the reader thread: one that would take more memory or time
      // than it has stops there, and the check below reads a file known to read within them.
      await reader.run(up.name, 'readThrough', { file: up.file, sheet: planOpts.sheet, encoding: planOpts.encoding, kind, mapping: page.mapping, headerRow: page.mapping.headerRow });
      const place = { redis: opts.redis, prefix: opts.prefix, connections: 1, timeScale: opts.timeScale };
      const check = await pageCheck(kind, up.file, { account, place, planOpts, vendorIds: body.vendorIds, scrub });
      const { plan } = check;
      up.plan = plan;
      up.planOpts = planOpts;
      up.account = account.name;
      up.page = { kind, layout: state.layout ?? 'detect' };
      up.vendorIds = check.typedVendors;
      const throttle = new AccountThrottle({ redis: opts.redis, account: account.name, limits: account.limits, prefix: opts.prefix, timeScale: opts.timeScale });
      // What would stop Send is said at Check (the same decision Send takes again): a Redis that would not keep the ledger through a crash.
      const durability = await redisDurability(opts.redis, opts.env);
      const invalidLines = new Set(plan.statics.filter((s) => s.status === 'invalid').map((s) => s.line));
      res.json({
        ...check.response,
        ...(await reader.run(up.name, 'rows', {
          file: up.file, sheet: planOpts.sheet, encoding: planOpts.encoding, delimiter: planOpts.delimiter, cellEdits: planOpts.cellEdits ? [...planOpts.cellEdits] : undefined,
          invalidLines: [...invalidLines], kind, mapping: page.mapping, headerRow: plan.table?.headerLine,
        })),
        // .csv and .xlsx alike: the edits are part of the page state, read over the upload as it is (src/import/cell-edits.ts).
        editable: true,
        budget: await budgetOf(throttle, check.response.recordCount, cfg.account.limitsText),
        durability: durability.mode === 'refuse' ? { refused: scrub(durability.message) } : { warning: durability.warning },
      });
    })().catch(next);
  });

  router.post('/send', express.json({ limit: '64kb' }), (req, res, next) => {
    (async () => {
      const body = req.body as { upload: string; skipInvalid?: boolean };
      const up = uploads.get(body.upload);
      const plan = up.plan;
      if (!plan || !up.planOpts || !up.account) throw new PageError(409, 'check the file first');
      if (plan.statics.some((s) => s.status === 'invalid') && !body.skipInvalid) throw new PageError(409, 'some rows are invalid: fix them, or check "Skip invalid rows"');
      const durability = await redisDurability(opts.redis, opts.env);
      if (durability.mode === 'refuse') throw new PageError(409, durability.message);
      // The job and `jobs show` name the file as the user uploaded it.
      // The report's messages, like the check's, name the file as uploaded, not where it is kept.
      const statics = plan.statics.map((st) => ({ ...st, message: scrub(st.message) }));
      const { importId } = await submitChecked(opts.queues, store, { ...plan, statics }, { account: up.account, name: up.name, file: up.file, planOpts: up.planOpts, durability: durability.mode });
      // The mapping of the check is preselected the next time a file with this header row is read for the account.
      if (up.page !== undefined && up.planOpts.mapping !== undefined && plan.table !== undefined) {
        await lastMappings.save(up.account, up.page.kind, plan.table.headers, { mapping: up.planOpts.mapping, layout: up.page.layout, sentAt: new Date().toISOString() });
      }
      // The vendor IDs typed in the check's vendor table join the account's vendor list (README, "Vendor lists").
      await saveTypedVendorIds({ redis: opts.redis, prefix: opts.prefix, account: up.account }, up.vendorIds ?? []);
      // Its rows to fix are written from this file when it ends, by this dashboard or, restarted, the next one.
      await store.saveUpload(importId, await readFile(up.file));
      // A second Send needs a new Check. The upload stays until the import has sent its records
      // (the rows to fix are read from it then) or its hour is up, whichever comes first.
      up.plan = undefined;
      uploads.sent(up, importId);
      res.json({ importId, warning: durability.warning });
    })().catch(next);
  });

  router.get('/status.json', (req, res, next) => {
    (async () => {
      const id = String(req.query.id ?? '');
      const meta = await store.meta(id);
      const job = await opts.queues.imports.getJob(id);
      // An import whose plan is gone from Redis while its job is kept: the job says how it ended.
      if (!meta && !job) throw new PageError(404, `import ${id} is unknown or expired`);
      const counts = await store.counts(id);
      const state = job ? await job.getState() : 'unknown';
      const done = state === 'completed' || state === 'failed';
      let eta = '';
      const data = (job?.data ?? {}) as { kind?: string; account?: string };
      const account = meta?.account ?? data.account ?? '';
      const records = meta?.records ?? 0;
      try {
        const cfg = loadConfig({ env: opts.env, account });
        const throttle = new AccountThrottle({ redis: opts.redis, account, limits: cfg.account.limits, prefix: opts.prefix, timeScale: opts.timeScale });
        eta = await throttle.progressText(Math.max(0, records - counts.settled));
      } catch {
        eta = '';
      }
      res.set('Cache-Control', 'no-store').json({
        importId: id, kind: meta?.kind ?? data.kind, records, invalidRows: meta?.invalidRows ?? 0, counts, state, done, eta,
        workers: await opts.queues.imports.getWorkersCount(),
        // In the page's words (the job keeps the CLI's).
        failedReason: state === 'failed' ? pageFailedReason(id, job?.failedReason) : undefined,
      });
    })().catch(next);
  });

  router.get('/report.csv', (req, res, next) => {
    (async () => {
      const id = String(req.query.id ?? '');
      const lines = await reportLines(id);
      res.set('Content-Disposition', `attachment; filename="${id}.report.csv"`).type('text/csv');
      for (const chunk of reportCsvChunks(lines)) res.write(chunk);
      res.end();
    })().catch(next);
  });

  // The records the import created, each as the check named it, with the ID the service gave (the
  // report's created lines, one per record); the first CREATED_SHOWN, and how many in all.
  router.get('/created.json', (req, res, next) => {
    (async () => {
      const id = String(req.query.id ?? '');
      const created = new Map<string, { record: string; id: number }>();
      for (const l of await reportLines(id)) {
        if (l.status === 'created' && l.id !== '') created.set(`${l.record}\t${l.id}`, { record: l.record, id: l.id });
      }
      const all = [...created.values()];
      res.set('Cache-Control', 'no-store').json({ total: all.length, records: all.slice(0, CREATED_SHOWN) });
    })().catch(next);
  });

  router.get('/errors.csv', (req, res, next) => {
    (async () => {
      const id = String(req.query.id ?? '');
      let text = await store.rowsToFix(id);
      if (text === undefined) {
        const job = await opts.queues.imports.getJob(id);
        const running = job !== undefined && !['completed', 'failed'].includes(await job.getState());
        text = await rowsToFixText(store, id, { running, localFile: uploads.fileOf(id), keptFor: formatEta(keepMs) });
        // Ended: what is to fix no longer changes; kept with the report, and the kept upload goes.
        if (!running) await store.saveRowsToFix(id, text);
      }
      if (text === '') {
        res.set('Cache-Control', 'no-store').type('html').send(nothingToFixPage(id));
        return;
      }
      res.set('Content-Disposition', `attachment; filename="${id}.errors.csv"`).type('text/csv').send(text);
    })().catch(next);
  });

  router.use(pageErrorHandler({ maxBytes, log: opts.log }));

  return {
    router,
    close: async () => {
      await reader.close();
      await uploads.close();
    },
  };
}

/** The page state of a check, with the cells edited in place (`COLUMN line N`: the line as the check showed it). */
type CheckBody = PageState & { upload: string; kind: Kind; account: string };

function kindOf(v: unknown): Kind {
  if (v === 'estimates' || v === 'bills') return v;
  throw new PageError(400, 'choose Estimates or Bills');
}

/**
 * The budget before sending, every window counted (README, The import page): the ETA under all windows at
 * once, and per window the requests needed, those left now and the time that window alone needs.
 * The same estimate as the CLI's progress line (`AccountThrottle.estimateWindows`).
 */
async function budgetOf(throttle: AccountThrottle, n: number, limitsText: string) {
  const est = await throttle.estimateWindows(n);
  const requests = `${n} ${n === 1 ? 'request' : 'requests'}`;
  const text = n === 0
    ? 'Nothing to send.'
    : est.windows.length === 0
      ? `${requests}, no budget limit (BUILDSYNC_LIMITS=${limitsText}): ETA ${formatEta(est.etaMs)}`
      : `${requests} at the budget ${limitsText}: ${est.reason ? `${est.reason} | ` : ''}ETA ${formatEta(est.etaMs)}, every window counted`;
  return {
    text,
    windows: est.windows.map((w) => ({ window: w.window, limit: w.limit, needed: w.needed, remaining: w.remaining, eta: w.needed === 0 ? '' : formatEta(w.etaMs), etaMs: w.etaMs })),
    etaMs: est.etaMs,
  };
}
