/**
 * The import page's routes that follow a sent import (README, The import page): its counts, state
 * and ETA (`/import/status.json`), its report, the records it created, and its rows to fix.
 */
import express from 'express';
import { loadConfig } from '../config.ts';
import { reportCsvChunks } from '../import/index.ts';
import { pageFailedReason } from '../import-service/index.ts';
import { AccountThrottle, formatEta } from '../throttle/index.ts';
import { PageError } from './http-errors.ts';
import { reportLines, type ImportContext } from './import-context.ts';
import { handled } from './import-reading-routes.ts';
import { nothingToFixPage, rowsToFixText } from './rows-to-fix.ts';

/** How many created records the page's `Created` table lists (the report has them all). */
const CREATED_SHOWN = 500;

/** The import `?id=` names. */
const idOf = (req: express.Request) => String(req.query.id ?? '');

/** `GET /import/status.json`: the import's counts, state, ETA and workers; a failed import's reason in the page's words. */
export function statusRoute(ctx: ImportContext): express.RequestHandler {
  const { opts, store } = ctx;
  return handled(async (req, res) => {
    const id = idOf(req);
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
  });
}

/** `GET /import/report.csv`: the import's report as it stands. */
export function reportRoute(ctx: ImportContext): express.RequestHandler {
  return handled(async (req, res) => {
    const id = idOf(req);
    const lines = await reportLines(ctx, id);
    res.set('Content-Disposition', `attachment; filename="${id}.report.csv"`).type('text/csv');
    for (const chunk of reportCsvChunks(lines)) res.write(chunk);
    res.end();
  });
}

/**
 * `GET /import/created.json`: the records the import created, each as the check named it, with the
 * ID the service gave (the report's created lines, one per record); the first CREATED_SHOWN, and how many in all.
 */
export function createdRoute(ctx: ImportContext): express.RequestHandler {
  return handled(async (req, res) => {
    const created = new Map<string, { record: string; id: number }>();
    for (const l of await reportLines(ctx, idOf(req))) {
      if (l.status === 'created' && l.id !== '') created.set(`${l.record}\t${l.id}`, { record: l.record, id: l.id });
    }
    const all = [...created.values()];
    res.set('Cache-Control', 'no-store').json({ total: all.length, records: all.slice(0, CREATED_SHOWN) });
  });
}

/** `GET /import/errors.csv`: the rows to fix (rows-to-fix.ts), kept with the report once the import has ended. */
export function rowsToFixRoute(ctx: ImportContext): express.RequestHandler {
  const { opts, store } = ctx;
  return handled(async (req, res) => {
    const id = idOf(req);
    let text = await store.rowsToFix(id);
    if (text === undefined) {
      const job = await opts.queues.imports.getJob(id);
      const running = job !== undefined && !['completed', 'failed'].includes(await job.getState());
      text = await rowsToFixText(store, id, { running, localFile: ctx.uploads.fileOf(id), keptFor: formatEta(ctx.keepMs) });
      // Ended: what is to fix no longer changes; kept with the report, and the kept upload goes.
      if (!running) await store.saveRowsToFix(id, text);
    }
    if (text === '') {
      res.set('Cache-Control', 'no-store').type('html').send(nothingToFixPage(id));
      return;
    }
    res.set('Content-Disposition', `attachment; filename="${id}.errors.csv"`).type('text/csv').send(text);
  });
}
