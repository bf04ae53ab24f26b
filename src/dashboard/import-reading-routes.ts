/**
 * The import page's routes that read an upload (README, The import page): the page itself, the
 * upload (raw body + `X-Filename`) and its reading again (`/import/read`: layout, header row,
 * sheet), the account's projects (`/import/projects.json`), a saved mapping applied (`/import/mapping`), the choices as the CLI's mapping
 * (`/import/mapping.json`), and the `Vendor list` file. Every reading runs in the reader thread.
 */
import { dirname } from 'node:path';
import express from 'express';
import { loadConfig, requireService } from '../config.ts';
import { listProjects, matchVendorList, pageImportOptions, parsePageState } from '../import-service/index.ts';
import { PageError } from './http-errors.ts';
import { kindOf, type ImportContext } from './import-context.ts';
import { renderImportPage } from './import-html.ts';
import { pageScript } from './page-scripts.ts';
import { safeName } from './upload-store.ts';

/** A handler's work, its failures to the router's error handler. */
export function handled(work: (req: express.Request, res: express.Response) => Promise<void>): express.RequestHandler {
  return (req, res, next) => {
    work(req, res).catch(next);
  };
}

/** A query parameter's text, undefined when absent or empty. */
function queryText(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** `GET /import`: the page, with the accounts, whether a worker runs, and the import it follows (`?id=`). */
export function pageRoute(ctx: ImportContext): express.RequestHandler {
  return handled(async (req, res) => {
    const accounts = await ctx.accounts();
    const workers = await ctx.opts.queues.imports.getWorkersCount();
    const script = await pageScript('import-page');
    const id = typeof req.query.id === 'string' && /^import-[\w-]+$/.test(req.query.id) ? req.query.id : undefined;
    res.set('Cache-Control', 'no-store').type('html').send(renderImportPage({ accounts, workers, importId: id, maxUploadMb: ctx.maxBytes / 1024 / 1024, script }));
  });
}

/** `POST /import/upload`: the file kept and read a first time (with `File layout` if already chosen); not kept when it cannot be read. */
export function uploadRoute(ctx: ImportContext): express.RequestHandler {
  return handled(async (req, res) => {
    const name = safeName(decodeURIComponent(String(req.headers['x-filename'] ?? 'upload.csv')));
    if (!/\.(csv|xlsx|txt|tsv)$/i.test(name)) throw new PageError(400, `${name}: not a spreadsheet; choose a .csv or .xlsx file`);
    const body = req.body as Buffer;
    if (!Buffer.isBuffer(body) || body.length === 0) throw new PageError(400, `${name} is empty`);
    const up = await ctx.uploads.add(name, body);
    const kind = kindOf(req.query.kind);
    try {
      // `File layout` may be chosen before `Read file`: the first reading uses it.
      const { layout } = parsePageState({ upload: up.id, kind, layout: typeof req.query.layout === 'string' ? req.query.layout : undefined });
      const reading = await ctx.readUploadPage(up.file, name, { kind, account: queryText(req.query.account), sheet: queryText(req.query.sheet), layout });
      ctx.uploads.keep(up);
      res.json({ upload: up.id, ...reading });
    } catch (err) {
      await ctx.uploads.drop(up.id);
      throw err;
    }
  });
}

/** `POST /import/read`: the upload read again with the page's layout, header row, sheet and hidden rows; its choices kept for the headers still present. */
export function readRoute(ctx: ImportContext): express.RequestHandler {
  return handled(async (req, res) => {
    const state = parsePageState(req.body);
    const up = ctx.uploads.get(state.upload);
    res.json({ upload: up.id, ...(await ctx.readUploadPage(up.file, up.name, state)) });
  });
}

/** `GET /import/projects.json`: `Same for every row: project`: the account's projects by number and name (one listing request of its budget). */
export function projectsRoute(ctx: ImportContext): express.RequestHandler {
  const { opts } = ctx;
  return handled(async (req, res) => {
    const name = String(req.query.account ?? '');
    if (!(await ctx.accounts()).includes(name)) throw new PageError(400, 'choose one of the configured accounts in "Service account"');
    const account = requireService(loadConfig({ env: opts.env, account: name }).account);
    const projects = await listProjects(account, { redis: opts.redis, prefix: opts.prefix, connections: 1, timeScale: opts.timeScale });
    res.set('Cache-Control', 'no-store').json({ projects: projects.targets?.() ?? [] });
  });
}

/** `POST /import/mapping.json`: the page's choices as the CLI's mapping file (`Download mapping`; `--mapping MAP.json` reads the file the same way). */
export function mappingJsonRoute(): express.RequestHandler {
  return handled(async (req, res) => {
    const state = parsePageState(req.body);
    res.set('Cache-Control', 'no-store').json(pageImportOptions(state, state.kind).mapping);
  });
}

/**
 * `POST /import/mapping`: a saved mapping (the CLI's mapping JSON, as `Download mapping` gives it)
 * applied to the upload's columns: checked as the CLI checks `--mapping` (an entry naming a header
 * the file does not have is an error naming the closest one); every choice it makes comes back as
 * the page's choices, and a header it does not mention is preselected as on a first reading.
 */
export function savedMappingRoute(ctx: ImportContext): express.RequestHandler {
  return handled(async (req, res) => {
    const body = req.body as { upload?: unknown; kind?: unknown; sheet?: unknown; name?: unknown; text?: unknown };
    const up = ctx.uploads.get(body.upload);
    const kind = kindOf(body.kind);
    const name = safeName(typeof body.name === 'string' ? body.name : 'mapping.json');
    if (typeof body.text !== 'string') throw new PageError(400, 'no saved mapping was sent; choose the mapping file again');
    let json: unknown;
    try {
      json = JSON.parse(body.text.replace(/^\uFEFF/, ''));
    } catch (err) {
      throw new PageError(400, `${name} is not valid JSON (${(err as Error).message}); choose the file "Download mapping" saved`);
    }
    const state = parsePageState({ ...(req.body as object), kind, columns: undefined });
    res.json(await ctx.reader.run(up.name, 'mapping', { file: up.file, name: up.name, kind, json, jsonName: name, sheet: queryText(body.sheet), state }));
  });
}

/** `POST /import/vendor-list`: a `vendor,vendor_id` CSV matched to the vendor names the page lists. */
export function vendorListRoute(ctx: ImportContext): express.RequestHandler {
  return handled(async (req, res) => {
    const body = req.body as { upload?: unknown; name?: unknown; text?: unknown; names?: unknown };
    const up = ctx.uploads.get(body.upload);
    if (typeof body.text !== 'string') throw new PageError(400, 'no vendor list was sent; choose the file again');
    const names = Array.isArray(body.names) ? body.names.filter((n): n is string => typeof n === 'string') : [];
    res.json(await matchVendorList(body.text, safeName(typeof body.name === 'string' ? body.name : 'vendors.csv'), names, dirname(dirname(up.file))));
  });
}
