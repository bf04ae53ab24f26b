/**
 * The export page (README, "The export page"): `/export` beside the import page, served with
 * `buildsync dashboard --allow-imports`. Two buttons start an export of the account's projects
 * (`POST /export/run`), which the dashboard runs itself (export-runs.ts); the page follows it by
 * polling `/export/status.json` and then offers the file at `/export/download`. The dashboard's
 * guard (same-origin.ts) and basic auth come before it, as before every route.
 */
import { createReadStream } from 'node:fs';
import type { Queue } from 'bullmq';
import express from 'express';
import type { Logger } from 'pino';
import type { Env } from '../config.ts';
import type { RedisConnection } from '../redis/layout.ts';
import { listAccounts } from './accounts.ts';
import { renderExportPage } from './export-html.ts';
import { ExportRuns } from './export-runs.ts';
import { PageError, pageErrorHandler } from './http-errors.ts';
import { pageScript } from './page-scripts.ts';
import { lastScheduledExports } from './scheduled-exports.ts';

export interface ExportRouterOptions {
  redis: RedisConnection;
  prefix: string;
  /** The exports queue, whose schedules say which files `Last scheduled export` may offer. */
  exportsQueue: Queue;
  env: Env;
  timeScale?: number;
  /** How long a finished file waits for its download. */
  keepMs: number;
  log?: Logger;
}

const TYPES = {
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  csv: 'text/csv; charset=utf-8',
  jsonl: 'application/x-ndjson; charset=utf-8',
} as const;

export function exportRouter(opts: ExportRouterOptions): { router: express.Router; close(): Promise<void> } {
  const runs = new ExportRuns({ redis: opts.redis, prefix: opts.prefix, env: opts.env, timeScale: opts.timeScale, keepMs: opts.keepMs, log: opts.log });
  const router = express.Router();
  router.get('/', (_req, res, next) => {
    Promise.all([listAccounts(opts.env, opts.redis, opts.prefix), lastScheduledExports(opts.redis, opts.prefix, opts.exportsQueue), pageScript('export-page')]).then(
      ([accounts, scheduled, script]) => res.set('Cache-Control', 'no-store').type('html').send(renderExportPage({ accounts, scheduled, script })),
      next,
    );
  });

  // The file the account's last scheduled export wrote, when the dashboard can read it.
  router.get('/scheduled', (req, res, next) => {
    (async () => {
      const accounts = await listAccounts(opts.env, opts.redis, opts.prefix);
      const account = req.query.account;
      if (typeof account !== 'string' || !accounts.includes(account)) throw new PageError(400, 'choose one of the configured accounts');
      const last = (await lastScheduledExports(opts.redis, opts.prefix, opts.exportsQueue)).get(account);
      if (!last?.readable || !last.path) throw new PageError(404, 'no scheduled export of this account is on the dashboard\'s disk; its time and path are shown on the export page');
      const ext = last.path.slice(last.path.lastIndexOf('.') + 1);
      const name = last.path.slice(last.path.lastIndexOf('/') + 1).replace(/["\\\r\n]/g, '_');
      res.set({ 'Content-Type': TYPES[ext as keyof typeof TYPES] ?? 'application/octet-stream', 'Content-Disposition': `attachment; filename="${name}"`, 'Cache-Control': 'no-store' });
      createReadStream(last.path).on('error', next).pipe(res);
    })().catch(next);
  });

  router.post('/run', express.json({ limit: '4kb' }), (req, res, next) => {
    (async () => {
      const body = req.body as { format?: unknown; account?: unknown };
      if (body.format !== 'xlsx' && body.format !== 'csv') throw new PageError(400, 'choose Export projects (.xlsx) or Export projects (.csv)');
      const accounts = await listAccounts(opts.env, opts.redis, opts.prefix);
      if (typeof body.account !== 'string' || !accounts.includes(body.account)) throw new PageError(400, 'choose one of the configured accounts');
      const run = await runs.start(body.account, body.format);
      res.status(202).json(run);
    })().catch(next);
  });

  router.get('/status.json', (req, res, next) => {
    const run = runs.get(req.query.id);
    if (!run) {
      next(new PageError(404, 'this export is unknown or its file has expired; export again'));
      return;
    }
    const { file: _file, ...shown } = run;
    res.set('Cache-Control', 'no-store').json({ ...shown, done: run.state !== 'running' });
  });

  router.get('/download', (req, res, next) => {
    const run = runs.get(req.query.id);
    if (!run || run.state === 'failed') {
      next(new PageError(404, 'this export is unknown, failed or its file has expired; export again'));
      return;
    }
    if (run.state !== 'done' || !run.file) {
      next(new PageError(409, 'the export is still running; download it once it is done'));
      return;
    }
    res.set({ 'Content-Type': TYPES[run.format as keyof typeof TYPES], 'Content-Disposition': `attachment; filename="${run.name}"`, 'Cache-Control': 'no-store' });
    createReadStream(run.file).on('error', next).pipe(res);
  });

  router.use(pageErrorHandler({ maxBytes: 4096, log: opts.log }));
  return { router, close: () => runs.close() };
}
