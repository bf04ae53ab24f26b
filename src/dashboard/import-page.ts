/**
 * The import page (CONTRACT.md §7): `/import` beside bull-board and the budget page, served with
 * `buildsync dashboard --allow-imports`. Upload (raw body + `X-Filename`), match columns (a saved
 * mapping applied by `/import/mapping`), check (with the budget of every window)
 * as the CLI's dry run, send (the CLI's queued import job), follow (polling `/import/status.json`),
 * download the report and the rows to fix. Every POST is refused unless its `Host` is the
 * dashboard's own address and its `Origin` matches it (CSRF, DNS rebinding).
 *
 * Uploads live in a private directory (mode 0700, files 0600) "until sent or for an hour"
 * (CONTRACT.md §7): once the import's records are sent (its job ended), its rows to fix are read
 * from it and kept in memory for an hour, and the upload is removed; an upload never sent is removed
 * an hour after it came (BUILDSYNC_UPLOAD_KEEP_MS, a test knob, sets both).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { z } from 'zod';
import express, { type Request, type Response, type NextFunction } from 'express';
import type { RedisConnection as Redis } from '../redis-layout.ts';
import type { Logger } from 'pino';
import { allowVolatileRedis, loadConfig, requireService, type Env } from '../config.ts';
import { openTable } from '../tables/index.ts';
import { errorsFileChunks, errorsFileSource, linesToFix, loadProjectResolver, planBills, planEstimates, reportCsvChunks, wirePayload, type ImportPlan, type PlanOptions } from '../import/index.ts';
import { openSession } from '../session/index.ts';
import { ConfigError, coerceError } from '../errors/index.ts';
import { durabilityDecision, readDurabilityFacts } from '../ledger/index.ts';
import { ImportStore } from '../import/index.ts';
import { BILL_COLUMNS, ESTIMATE_COLUMNS, normalizeHeader, parseMappingFile, resolveColumns, suggestColumn, type MappingFile } from '../mapping/index.ts';
import { submitImport, type Queues } from '../queue/index.ts';
import { AccountThrottle, formatEta } from '../throttle/index.ts';
import { listAccounts } from './accounts.ts';
import { renderImportPage } from './import-html.ts';

/** What `startDashboard` takes for the import page (`--allow-imports`, `--max-upload-mb`). */
export interface ImportPageOptions {
  /** Serve the import page at `/import` (CONTRACT.md §7). @defaultValue false */
  allowImports?: boolean;
  /** Upload cap in MB. @defaultValue 50 */
  maxUploadMb?: number;
  /** Where the private directory of uploads is made. @defaultValue os.tmpdir() */
  uploadDir?: string;
}

export const IMPORT_PAGE_DEFAULTS = {
  /** `--max-upload-mb`. */
  maxUploadMb: 50,
  /** How long an upload, or the rows to fix of its import, is kept (CONTRACT.md §7: "for an hour"); BUILDSYNC_UPLOAD_KEEP_MS. */
  uploadKeepMs: 3_600_000,
  /** How often the page's server looks whether a sent import has ended, to remove its upload. */
  watchMs: 1_000,
} as const;

export interface ImportRouterOptions {
  redis: Redis;
  prefix: string;
  queues: Queues;
  env: Env;
  timeScale?: number;
  /** `--max-upload-mb`. @defaultValue 50 */
  maxUploadMb?: number;
  /** @defaultValue os.tmpdir() */
  uploadDir?: string;
  /** The `host:port` values this dashboard answers to (known once it listens). */
  ownHosts: () => readonly string[];
  log?: Logger;
}

type Kind = 'estimates' | 'bills';

interface Upload {
  id: string;
  dir: string;
  file: string;
  name: string;
  timer: NodeJS.Timeout;
  plan?: ImportPlan;
  planOpts?: PlanOptions;
  account?: string;
  /** Cells were edited in place: `file` is the edited copy, written as UTF-8 whatever the upload's encoding. */
  edited?: boolean;
  /** Set once sent: the import whose end removes the upload. */
  importId?: string;
  watch?: NodeJS.Timeout;
}

/** The rows to fix of an import sent from the page, read from its upload when the import ended. */
interface KeptFixes {
  /** The errors file's text; undefined when nothing needs fixing. */
  text: string | undefined;
  timer: NodeJS.Timeout;
}

/** BUILDSYNC_UPLOAD_KEEP_MS (a test knob): checked once, when the page is set up. */
const keepMsSchema = z.coerce
  .number({ error: 'not a number; write a whole number of milliseconds, e.g. BUILDSYNC_UPLOAD_KEEP_MS=3600000 (an hour)' })
  .int('must be a whole number of milliseconds, e.g. BUILDSYNC_UPLOAD_KEEP_MS=3600000 (an hour)')
  .min(100, 'must be at least 100 (ms)')
  .max(7 * 24 * 3_600_000, 'must be at most a week (604800000 ms)');

export function uploadKeepMs(env: Env): number {
  const raw = env.BUILDSYNC_UPLOAD_KEEP_MS;
  if (raw === undefined || raw === '') return IMPORT_PAGE_DEFAULTS.uploadKeepMs;
  const r = keepMsSchema.safeParse(raw);
  if (!r.success) throw new ConfigError(`BUILDSYNC_UPLOAD_KEEP_MS=${JSON.stringify(raw)}: ${r.error.issues[0]?.message ?? 'invalid'}`);
  return r.data;
}
const SAMPLE_ROWS = 3;
/** The errors file's columns (CONTRACT.md §5), recognised on import: never offered as columns to match. */
const ERRORS_FILE_HEADERS = new Set(['sourceline', 'error']);
const SHOWN_ROWS = 200;

class PageError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

export function importRouter(opts: ImportRouterOptions): { router: express.Router; close(): Promise<void> } {
  const maxBytes = Math.round((opts.maxUploadMb ?? IMPORT_PAGE_DEFAULTS.maxUploadMb) * 1024 * 1024);
  const keepMs = uploadKeepMs(opts.env);
  const uploads = new Map<string, Upload>();
  const fixes = new Map<string, KeptFixes>();
  const store = new ImportStore(opts.redis, opts.prefix);
  let baseDir: Promise<string> | undefined;
  // mkdtemp makes the directory 0700: only this user reads the uploads.
  const privateDir = () => (baseDir ??= mkdtemp(join(opts.uploadDir ?? tmpdir(), 'buildsync-uploads-')));
  let closed = false;

  const router = express.Router();

  /** No DNS rebinding: the Host header must name this dashboard. For POSTs, the Origin must too. */
  router.use((req, res, next) => {
    const host = (req.headers.host ?? '').toLowerCase();
    if (!opts.ownHosts().includes(host)) {
      res.status(403).type('text/plain').send('403: this request was not addressed to the dashboard\'s own address\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      const origin = req.headers.origin;
      if (origin === undefined || origin.toLowerCase() !== `http://${host}`) {
        res.status(403).type('text/plain').send('403: cross-origin request refused\n');
        return;
      }
    } else if (req.headers['sec-fetch-site'] === 'cross-site') {
      res.status(403).type('text/plain').send('403: cross-origin request refused\n');
      return;
    }
    next();
  });

  router.get('/', (req, res, next) => {
    (async () => {
      const accounts = await listAccounts(opts.env, opts.redis, opts.prefix);
      const workers = await opts.queues.imports.getWorkersCount();
      const id = typeof req.query.id === 'string' && /^import-[\w-]+$/.test(req.query.id) ? req.query.id : undefined;
      res.set('Cache-Control', 'no-store').type('html').send(renderImportPage({ accounts, workers, importId: id, maxUploadMb: maxBytes / 1024 / 1024 }));
    })().catch(next);
  });

  router.post('/upload', express.raw({ type: '*/*', limit: maxBytes }), (req, res, next) => {
    (async () => {
      const name = safeName(decodeURIComponent(String(req.headers['x-filename'] ?? 'upload.csv')));
      if (!/\.(csv|xlsx|txt|tsv)$/i.test(name)) throw new PageError(400, `${name}: not a spreadsheet; choose a .csv or .xlsx file`);
      const body = req.body as Buffer;
      if (!Buffer.isBuffer(body) || body.length === 0) throw new PageError(400, `${name} is empty`);
      const dir = await mkdtemp(join(await privateDir(), 'u-'));
      const file = join(dir, name);
      await writeFile(file, body, { mode: 0o600 });
      const id = randomUUID();
      const timer = setTimeout(() => void drop(id), keepMs);
      timer.unref();
      uploads.set(id, { id, dir, file, name, timer });
      const kind = kindOf(req.query.kind);
      const sheet = typeof req.query.sheet === 'string' && req.query.sheet !== '' ? req.query.sheet : undefined;
      try {
        res.json({ upload: id, name, ...(await describeTable(file, name, kind, sheet)) });
      } catch (err) {
        await drop(id);
        throw err;
      }
    })().catch(next);
  });

  /**
   * A saved mapping (the CLI's mapping JSON, as `Download mapping` gives it) applied to the
   * upload's columns: checked as the CLI checks `--mapping` (an entry naming a header the file
   * does not have is an error naming the closest one); a header it does not mention keeps the
   * page's own choice.
   */
  router.post('/mapping', express.json({ limit: '1mb' }), (req, res, next) => {
    (async () => {
      const body = req.body as { upload?: unknown; kind?: unknown; sheet?: unknown; name?: unknown; text?: unknown };
      const up = uploadOf(body.upload);
      const kind = kindOf(body.kind);
      const name = safeName(typeof body.name === 'string' ? body.name : 'mapping.json');
      if (typeof body.text !== 'string') throw new PageError(400, 'no saved mapping was sent; choose the mapping file again');
      let json: unknown;
      try {
        json = JSON.parse(body.text.replace(/^\uFEFF/, ''));
      } catch (err) {
        throw new PageError(400, `${name} is not valid JSON (${(err as Error).message}); choose the file "Download mapping" saved`);
      }
      const mapping = parseMappingFile(json, name);
      const sheet = typeof body.sheet === 'string' && body.sheet !== '' ? body.sheet : undefined;
      const table = await openTable(up.file, { sheet, encoding: up.edited ? undefined : mapping.encoding });
      const known = kind === 'estimates' ? ESTIMATE_COLUMNS : BILL_COLUMNS;
      // The CLI's strict check of the mapping's entries; headers the mapping leaves out are the page's to choose, not unknown.
      const mentioned = new Set([...Object.keys(mapping.columns), ...mapping.ignore].map(normalizeHeader));
      const knownNames = new Set(known.map(normalizeHeader));
      const unmentioned = table.headers.filter((h) => !mentioned.has(normalizeHeader(h)) && !knownNames.has(normalizeHeader(h)));
      const resolved = resolveColumns(table.headers, known, { ...mapping, ignore: [...mapping.ignore, ...unmentioned] }, up.name, table.headerLine, { lenientMapping: false });
      const byIndex = new Map(resolved.columns().map((c) => [resolved.source(c)!.index, c]));
      const ignored = new Set(mapping.ignore.map(normalizeHeader));
      const columns = table.headers
        .map((header, index) => ({ header, index }))
        .filter((c) => !ERRORS_FILE_HEADERS.has(normalizeHeader(c.header)))
        .map(({ header, index }) => ({
          header,
          column: byIndex.get(index) ?? (ignored.has(normalizeHeader(header)) ? 'ignore' : defaultChoice(header, known)),
          fromMapping: byIndex.has(index) ? mentioned.has(normalizeHeader(header)) : ignored.has(normalizeHeader(header)),
        }));
      res.json({
        name,
        columns,
        dateFormat: mapping.dateFormat ?? 'auto',
        decimalSeparator: mapping.decimalSeparator ?? 'auto',
        encoding: mapping.encoding,
        constants: mapping.constants,
      });
    })().catch(next);
  });

  router.post('/check', express.json({ limit: '1mb' }), (req, res, next) => {
    (async () => {
      const body = req.body as CheckBody;
      const up = uploadOf(body.upload);
      const kind = kindOf(body.kind);
      let mapping = mappingOf(body);
      if (Array.isArray(body.edits) && body.edits.length > 0) {
        up.file = await applyEdits(up, body.edits, up.edited ? undefined : mapping.encoding);
        up.edited = true;
      }
      // The edited copy is UTF-8: the saved mapping's encoding described the upload, not it.
      if (up.edited) mapping = { ...mapping, encoding: undefined };
      const accounts = await listAccounts(opts.env, opts.redis, opts.prefix);
      if (!accounts.includes(body.account)) throw new PageError(400, 'choose one of the configured accounts');
      const cfg = loadConfig({ env: opts.env, account: body.account });
      const account = requireService(cfg.account);
      const planOpts: PlanOptions = {
        sheet: body.sheet || undefined,
        mapping,
        encoding: mapping.encoding,
        dateFormat: body.dateFormat as PlanOptions['dateFormat'],
        decimalSeparator: body.decimalSeparator as PlanOptions['decimalSeparator'],
        accountDateFormat: cfg.account.dateFormat,
        dateFormatVariable: cfg.account.dateFormatVariable,
      };
      const session = openSession(account, { redis: opts.redis, prefix: opts.prefix, connections: 1, timeScale: opts.timeScale });
      let plan: ImportPlan;
      try {
        const resolver = await loadProjectResolver(session.client);
        plan = await (kind === 'estimates' ? planEstimates : planBills)(up.file, { ...planOpts, resolver });
      } finally {
        await session.close();
      }
      up.plan = plan;
      up.planOpts = planOpts;
      up.account = account.name;
      const throttle = new AccountThrottle({ redis: opts.redis, account: account.name, limits: account.limits, prefix: opts.prefix, timeScale: opts.timeScale });
      const invalid = plan.statics.filter((s) => s.status === 'invalid');
      res.json({
        rows: plan.rows,
        invalid: invalid.map((s) => ({ line: s.line, record: s.record, message: scrub(s.message) })),
        ...(await rowsOf(up.file, planOpts.sheet, planOpts.encoding, new Set(invalid.map((s) => s.line)))),
        editable: plan.table?.kind === 'csv',
        records: plan.records.slice(0, SHOWN_ROWS).map((r) => ({ label: r.label, lines: r.lines, payload: wirePayload(kind, r) })),
        recordCount: plan.records.length,
        budget: await budgetOf(throttle, plan.records.length, cfg.account.limitsText),
      });
    })().catch(next);
  });

  router.post('/send', express.json({ limit: '64kb' }), (req, res, next) => {
    (async () => {
      const body = req.body as { upload: string; skipInvalid?: boolean };
      const up = uploadOf(body.upload);
      const plan = up.plan;
      if (!plan || !up.planOpts || !up.account) throw new PageError(409, 'check the file first');
      if (plan.statics.some((s) => s.status === 'invalid') && !body.skipInvalid) throw new PageError(409, 'some rows are invalid: fix them, or check "Skip invalid rows"');
      const durability = durabilityDecision(await readDurabilityFacts(opts.redis), { allowVolatile: allowVolatileRedis(opts.env) });
      if (durability.mode === 'refuse') throw new PageError(409, durability.message);
      // The job and `jobs show` name the file as the user uploaded it.
      // The report's messages, like the check's, name the file as uploaded, not where it is kept.
      const statics = plan.statics.map((st) => ({ ...st, message: scrub(st.message) }));
      const { importId } = await submitImport(opts.queues, store, { ...plan, statics, file: up.name }, {
        account: up.account,
        resendUnknown: false,
        errorsSource: errorsFileSource(plan, up.file, up.planOpts),
      });
      // A second Send needs a new Check. The upload stays until the import has sent its records
      // (the rows to fix are read from it then) or its hour is up, whichever comes first.
      up.plan = undefined;
      up.importId = importId;
      watch(up);
      res.json({ importId, warning: durability.warning });
    })().catch(next);
  });

  router.get('/status.json', (req, res, next) => {
    (async () => {
      const id = String(req.query.id ?? '');
      const meta = await store.meta(id);
      if (!meta) throw new PageError(404, `import ${id} is unknown or expired`);
      const counts = await store.counts(id);
      const job = await opts.queues.imports.getJob(id);
      const state = job ? await job.getState() : 'unknown';
      const done = state === 'completed' || state === 'failed';
      let eta = '';
      try {
        const cfg = loadConfig({ env: opts.env, account: meta.account });
        const throttle = new AccountThrottle({ redis: opts.redis, account: meta.account, limits: cfg.account.limits, prefix: opts.prefix, timeScale: opts.timeScale });
        eta = await throttle.progressText(Math.max(0, meta.records - counts.settled));
      } catch {
        eta = '';
      }
      res.set('Cache-Control', 'no-store').json({
        importId: id, kind: meta.kind, records: meta.records, invalidRows: meta.invalidRows, counts, state, done, eta,
        workers: await opts.queues.imports.getWorkersCount(),
        failedReason: state === 'failed' ? job?.failedReason : undefined,
      });
    })().catch(next);
  });

  router.get('/report.csv', (req, res, next) => {
    (async () => {
      const id = String(req.query.id ?? '');
      const meta = await store.meta(id);
      if (!meta) throw new PageError(404, `import ${id} is unknown or expired`);
      const job = await opts.queues.imports.getJob(id);
      const running = !job || !['completed', 'failed'].includes(await job.getState());
      const lines = await store.report(id, { running });
      res.set('Content-Disposition', `attachment; filename="${id}.report.csv"`).type('text/csv');
      for (const chunk of reportCsvChunks(lines)) res.write(chunk);
      res.end();
    })().catch(next);
  });

  router.get('/errors.csv', (req, res, next) => {
    (async () => {
      const id = String(req.query.id ?? '');
      const kept = fixes.get(id);
      if (kept) {
        if (kept.text === undefined) throw new PageError(404, 'nothing to fix in this import');
        res.set('Content-Disposition', `attachment; filename="${id}.errors.csv"`).type('text/csv').send(kept.text);
        return;
      }
      const meta = await store.meta(id);
      if (!meta) throw new PageError(404, `import ${id} is unknown or expired`);
      const toFix = linesToFix(await store.report(id));
      const source = meta.errorsSource as Parameters<typeof errorsFileChunks>[0] | undefined;
      if (toFix.size === 0 || !source) throw new PageError(404, 'nothing to fix in this import');
      res.set('Content-Disposition', `attachment; filename="${id}.errors.csv"`).type('text/csv');
      try {
        for await (const chunk of errorsFileChunks(source, toFix)) res.write(chunk.text);
      } catch (err) {
        if (!res.headersSent) throw new PageError(410, `the uploaded file is no longer kept (uploads are kept for ${formatEta(keepMs)}); use \`buildsync jobs report ${id} --errors\` where the file is`);
        opts.log?.warn({ err }, 'rows to fix: reading the upload failed');
      }
      res.end();
    })().catch(next);
  });

  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const e = err as { status?: number; type?: string; message?: string; exitCode?: number };
    if (err instanceof PageError) {
      res.status(err.status).json({ error: err.message });
      return;
    }
    if (e.type === 'entity.too.large') {
      res.status(413).json({ error: `the file is larger than the upload limit of ${maxBytes / 1024 / 1024} MB` });
      return;
    }
    const c = coerceError(err);
    const userError = (c as { exitCode?: number }).exitCode === 2 || c.name === 'FileError' || c.name === 'ConfigError' || c.name === 'UsageError';
    opts.log?.warn({ err: c }, 'import page request failed');
    res.status(userError ? 400 : 500).json({ error: scrub(c.message) });
  });

  function uploadOf(id: unknown): Upload {
    const up = typeof id === 'string' ? uploads.get(id) : undefined;
    if (!up) throw new PageError(404, 'this upload is no longer kept; read the file again');
    return up;
  }

  async function drop(id: string): Promise<void> {
    const up = uploads.get(id);
    if (!up) return;
    uploads.delete(id);
    clearTimeout(up.timer);
    clearTimeout(up.watch);
    await rm(up.dir, { recursive: true, force: true });
  }

  /** Looks every `watchMs` whether the sent import has ended; then keeps its rows to fix and removes the upload. */
  function watch(up: Upload): void {
    const tick = async () => {
      if (closed || uploads.get(up.id) !== up || !up.importId) return;
      try {
        const job = await opts.queues.imports.getJob(up.importId);
        const state = job ? await job.getState() : 'unknown';
        if (state === 'completed' || state === 'failed' || state === 'unknown') {
          await keepFixes(up, up.importId);
          await drop(up.id);
          return;
        }
      } catch (err) {
        // Redis away for a moment: look again at the next tick; the hour's timer still removes the upload.
        opts.log?.warn({ err: coerceError(err) }, 'import page: could not read the state of a sent import');
      }
      if (!closed && uploads.get(up.id) === up) up.watch = setTimeout(() => void tick(), IMPORT_PAGE_DEFAULTS.watchMs).unref();
    };
    up.watch = setTimeout(() => void tick(), IMPORT_PAGE_DEFAULTS.watchMs).unref();
  }

  /** The import's rows to fix, read from its upload once, kept in memory for `keepMs`. */
  async function keepFixes(up: Upload, importId: string): Promise<void> {
    const meta = await store.meta(importId);
    const toFix = linesToFix(await store.report(importId));
    const source = meta?.errorsSource as Parameters<typeof errorsFileChunks>[0] | undefined;
    let text: string | undefined;
    if (toFix.size > 0 && source) {
      text = '';
      for await (const chunk of errorsFileChunks({ ...source, file: up.file }, toFix)) text += chunk.text;
    }
    const timer = setTimeout(() => fixes.delete(importId), keepMs).unref();
    clearTimeout(fixes.get(importId)?.timer);
    fixes.set(importId, { text, timer });
  }

  return {
    router,
    close: async () => {
      closed = true;
      for (const id of [...uploads.keys()]) await drop(id);
      for (const kept of fixes.values()) clearTimeout(kept.timer);
      fixes.clear();
      if (baseDir) await rm(await baseDir, { recursive: true, force: true });
    },
  };
}

interface CheckBody {
  upload: string;
  kind: Kind;
  /** Cells edited in place on the page (`COLUMN line N`): the line as the check showed it. */
  edits?: Array<{ line: number; header: string; value: string }>;
  account: string;
  sheet?: string;
  columns: Record<string, string>;
  dateFormat?: string;
  decimalSeparator?: string;
  /** Kept from an uploaded saved mapping: the page has no controls of its own for these. */
  constants?: Record<string, string | number | boolean>;
  encoding?: string;
}

function kindOf(v: unknown): Kind {
  if (v === 'estimates' || v === 'bills') return v;
  throw new PageError(400, 'choose Estimates or Bills');
}

/** The page's choices as the CLI's mapping file: `columns` for renamed headers, `ignore` for the rest. */
export function mappingFromChoices(
  columns: Record<string, string>,
  dateFormat?: string,
  decimalSeparator?: string,
  saved: { constants?: Record<string, string | number | boolean>; encoding?: string } = {},
): MappingFile {
  const out: { columns: Record<string, string>; ignore: string[]; constants: Record<string, string | number | boolean>; dateFormat?: string; decimalSeparator?: string; encoding?: string } = {
    columns: {},
    ignore: [],
    constants: { ...(saved.constants ?? {}) },
  };
  if (saved.encoding && saved.encoding !== 'auto') out.encoding = saved.encoding;
  for (const [header, column] of Object.entries(columns)) {
    if (ERRORS_FILE_HEADERS.has(normalizeHeader(header))) continue;
    if (column === '' || column === 'ignore') out.ignore.push(header);
    else if (normalizeHeader(header) !== normalizeHeader(column)) out.columns[header] = column;
  }
  if (dateFormat && dateFormat !== 'auto') out.dateFormat = dateFormat;
  if (decimalSeparator && decimalSeparator !== 'auto') out.decimalSeparator = decimalSeparator;
  return parseMappingFile(out, 'the page\'s column choices');
}

function mappingOf(body: CheckBody): MappingFile {
  if (typeof body.columns !== 'object' || body.columns === null) throw new PageError(400, 'no column choices');
  const constants = typeof body.constants === 'object' && body.constants !== null ? body.constants : undefined;
  return mappingFromChoices(body.columns, body.dateFormat, body.decimalSeparator, { constants, encoding: typeof body.encoding === 'string' ? body.encoding : undefined });
}

/** The page's choice for a header before any saved mapping: the CLI's header rules, then close spellings and synonyms. */
function defaultChoice(header: string, known: readonly string[]): string {
  const exact = known.find((k) => normalizeHeader(k) === normalizeHeader(header));
  return exact ?? (header.trim() === '' ? undefined : suggestColumn(header, known)) ?? 'ignore';
}

/**
 * The budget before sending, every window counted (CONTRACT.md §7): the ETA under all windows at
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

/** Headers, the CLI's matching plus `suggestColumn` for each, and a few sample values. */
async function describeTable(file: string, name: string, kind: Kind, sheet?: string) {
  const table = await openTable(file, { sheet });
  const known = kind === 'estimates' ? ESTIMATE_COLUMNS : BILL_COLUMNS;
  const columns = table.headers.map((h, index) => ({
    index,
    header: h,
    column: defaultChoice(h, known),
    samples: [] as string[],
  }));
  const shown = () => columns.filter((c) => !ERRORS_FILE_HEADERS.has(normalizeHeader(c.header)));
  let rows = 0;
  outer: for await (const batch of table.batches()) {
    for (const row of batch) {
      row.values.forEach((v, i) => columns[i]?.samples.push(cellText(v)));
      if (++rows >= SAMPLE_ROWS) break outer;
    }
  }
  return { kind: table.kind, columns: shown(), known: [...known], file: name, sheets: table.kind === 'xlsx' ? await sheetNames(file) : [] };
}

/** A workbook's sheet names, as the reader lists them when asked for a sheet it does not have. */
async function sheetNames(file: string): Promise<string[]> {
  try {
    await openTable(file, { sheet: '\u0000no such sheet' });
  } catch (err) {
    const m = /Its sheets are (.*); pass one/.exec((err as Error).message);
    if (m) return [...m[1]!.matchAll(/"([^"]*)"/g)].map((x) => x[1]!);
  }
  return [];
}

/**
 * The first rows of the file (and every invalid one), by the line the report uses: an edited
 * file's `source_line`, else the row's own line. The errors file's own columns are not shown.
 */
async function rowsOf(file: string, sheet: string | undefined, encoding: PlanOptions['encoding'], invalidLines: Set<number>) {
  const table = await openTable(file, { sheet, encoding });
  const sourceLine = table.headers.findIndex((h) => normalizeHeader(h) === 'sourceline');
  const keep = table.headers.map((_, i) => i).filter((i) => !ERRORS_FILE_HEADERS.has(normalizeHeader(table.headers[i]!)));
  const shown: Array<{ line: number; cells: string[] }> = [];
  for await (const batch of table.batches()) {
    for (const row of batch) {
      const line = sourceLine >= 0 && /^\d+$/.test(cellText(row.values[sourceLine])) ? Number(cellText(row.values[sourceLine])) : row.line;
      if (shown.length >= SHOWN_ROWS && !invalidLines.has(line)) continue;
      shown.push({ line, cells: keep.map((i) => cellText(row.values[i])) });
    }
  }
  return { headers: keep.map((i) => table.headers[i]!), shown };
}

/**
 * A CSV upload with the page's edits applied, written beside it as an errors-file-shaped CSV
 * (the original columns, then `source_line`), so that every row keeps the line the report names
 * and a bill without `bill_ref` keeps its key (CONTRACT.md §5).
 */
async function applyEdits(up: Upload, edits: NonNullable<CheckBody['edits']>, encoding: PlanOptions['encoding']): Promise<string> {
  const table = await openTable(up.file, { encoding });
  if (table.kind !== 'csv') throw new PageError(400, 'cells can be edited in place in CSV files only; fix the workbook and read it again');
  const byKey = new Map<string, string>();
  for (const e of edits) {
    if (typeof e?.line !== 'number' || typeof e.header !== 'string' || typeof e.value !== 'string') throw new PageError(400, 'malformed edit');
    byKey.set(`${e.line}\u0000${e.header}`, e.value);
  }
  let sourceLine = table.headers.findIndex((h) => normalizeHeader(h) === 'sourceline');
  const errorIndex = table.headers.findIndex((h) => normalizeHeader(h) === 'error');
  const headers = [...table.headers];
  if (sourceLine < 0) {
    sourceLine = headers.length;
    headers.push('source_line');
  }
  const out: string[][] = [headers];
  for await (const batch of table.batches()) {
    for (const row of batch) {
      const cells = headers.map((_, i) => cellText(row.values[i]));
      const line = i32(cells[sourceLine]) ?? row.line;
      cells[sourceLine] = String(line);
      if (errorIndex >= 0) cells[errorIndex] = '';
      table.headers.forEach((h, i) => {
        const v = byKey.get(`${line}\u0000${h}`);
        if (v !== undefined) cells[i] = v;
      });
      out.push(cells);
    }
  }
  const file = join(up.dir, `${up.name}.edited-${Date.now().toString(36)}.csv`);
  await writeFile(file, stringify(out, { delimiter: table.delimiter ?? ',' }), { mode: 0o600 });
  return file;
}

function i32(text: string | undefined): number | undefined {
  return text !== undefined && /^\d{1,9}$/.test(text) ? Number(text) : undefined;
}

/** Messages name the file as the user uploaded it, never the private directory it is kept in. */
function scrub(text: string): string {
  return text.replace(/[^\s"'(]*buildsync-uploads-[^/\s]+\/u-[^/\s]+\//g, '').replace(/\.edited-[a-z0-9]+\.csv\b/g, '');
}

function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  return String(v);
}

function safeName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? 'upload.csv';
  const clean = base.replace(/[^\w. ()-]/g, '_').slice(0, 120);
  return clean === '' || clean.startsWith('.') ? `upload${clean}` : clean;
}

