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
 * This file mounts the routes, one module each (import-reading-routes.ts, import-check.ts,
 * import-send.ts, import-results.ts) over what they share (import-context.ts): the reading,
 * checking, planning and submitting are the import service's (src/import-service/, which the
 * CLI's `import` runs too), every reading and check of an upload runs in the reader thread
 * (upload-reader.ts), the uploads are kept by upload-store.ts, failures answered by
 * http-errors.ts. Cells edited in place are part of the page state, read over the upload as it is
 * by the import service (no copy of the file is made).
 */
import express from 'express';
import { pageErrorHandler } from './http-errors.ts';
import { checkRoute } from './import-check.ts';
import { importContext, type ImportRouterOptions } from './import-context.ts';
import { mappingJsonRoute, pageRoute, projectsRoute, readRoute, savedMappingRoute, uploadRoute, vendorListRoute } from './import-reading-routes.ts';
import { createdRoute, reportRoute, rowsToFixRoute, statusRoute } from './import-results.ts';
import { sendRoute } from './import-send.ts';
import { IMPORT_PAGE_DEFAULTS, uploadKeepMs } from './upload-store.ts';

export { IMPORT_PAGE_DEFAULTS, uploadKeepMs, type ImportRouterOptions };

/** What `startDashboard` takes for the import page (`--allow-imports`, `--max-upload-mb`). */
export interface ImportPageOptions {
  /** Serve the import page at `/import` (README, The import page). @defaultValue false */
  allowImports?: boolean;
  /** Upload cap in MB. @defaultValue UPLOAD_LIMITS.maxUploadMb (upload-limits.ts) */
  maxUploadMb?: number;
  /** Every kept upload together, in MB (`--max-uploads-total-mb`). @defaultValue UPLOAD_LIMITS.maxUploadsTotalMb (upload-limits.ts) */
  maxUploadsTotalMb?: number;
  /** Where the private directory of uploads is made. @defaultValue os.tmpdir() */
  uploadDir?: string;
}

export function importRouter(opts: ImportRouterOptions): { router: express.Router; close(): Promise<void> } {
  const ctx = importContext(opts);
  const router = express.Router();
  const json = (limit: string) => express.json({ limit });
  router.get('/', pageRoute(ctx));
  router.post('/upload', express.raw({ type: '*/*', limit: ctx.maxBytes }), uploadRoute(ctx));
  router.post('/read', json('1mb'), readRoute(ctx));
  router.get('/projects.json', projectsRoute(ctx));
  router.post('/mapping.json', json('1mb'), mappingJsonRoute());
  router.post('/mapping', json('1mb'), savedMappingRoute(ctx));
  router.post('/vendor-list', json('4mb'), vendorListRoute(ctx));
  router.post('/check', json('1mb'), checkRoute(ctx));
  router.post('/send', json('64kb'), sendRoute(ctx));
  router.get('/status.json', statusRoute(ctx));
  router.get('/report.csv', reportRoute(ctx));
  router.get('/created.json', createdRoute(ctx));
  router.get('/errors.csv', rowsToFixRoute(ctx));
  router.use(pageErrorHandler({ maxBytes: ctx.maxBytes, log: opts.log }));
  return {
    router,
    close: async () => {
      await ctx.reader.close();
      await ctx.uploads.close();
    },
  };
}
