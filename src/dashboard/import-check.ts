/**
 * `POST /import/check` of the import page (README, The import page): the dry run of the upload
 * with the page's state, by the import's own streamed plan, run in the reader thread (its memory
 * and time limits) and keeping only what the page shows (src/import-service/page-check.ts). The
 * dashboard reads what the thread cannot: the account's project listing (one request of its
 * budget) and vendor list, the ledger's created records (asked batch by batch), and what would
 * stop Send: a Redis that would not keep the ledger through a crash, and the budget of every window.
 */
import express from 'express';
import { loadConfig, requireService } from '../config.ts';
import { accountVendorList, createdInLedger, pageImportOptions, parsePageState, projectListing, redisDurability, typedVendorIds, type PageState } from '../import-service/index.ts';
import { AccountThrottle, formatEta } from '../throttle/index.ts';
import { PageError, scrub } from './http-errors.ts';
import { kindOf, type ImportContext } from './import-context.ts';
import { handled } from './import-reading-routes.ts';

/** The page state of a check, with the cells edited in place (`COLUMN line N`: the line as the check showed it). */
type CheckBody = PageState & { upload: string; account: string };

export function checkRoute(ctx: ImportContext): express.RequestHandler {
  const { opts } = ctx;
  return handled(async (req, res) => {
    const body = req.body as CheckBody;
    const up = ctx.uploads.get(body.upload);
    // Send reads the upload with its last check's choices: a check that stops leaves none (a sheet
    // not chosen of several, an earlier check's choices since changed), and Send answers "check the file first".
    up.checked = undefined;
    const kind = kindOf(body.kind);
    if (typeof body.columns !== 'object' || body.columns === null) throw new PageError(400, 'no column choices');
    // The whole state, edits included, every time: a check is the upload read with it, never a copy changed by an earlier one.
    const state = parsePageState(body);
    if (!(await ctx.accounts()).includes(body.account)) throw new PageError(400, 'choose one of the configured accounts');
    const cfg = loadConfig({ env: opts.env, account: body.account });
    const account = requireService(cfg.account);
    // The plan options as the CLI's flags make them, with the account's reading (import-options.ts).
    const page = pageImportOptions(state, kind, undefined, cfg.account);
    const typed = typedVendorIds(body.vendorIds);
    const place = { redis: opts.redis, prefix: opts.prefix, connections: 1, timeScale: opts.timeScale };
    const projects = await projectListing(account, place);
    const listed = kind === 'bills' ? await accountVendorList({ redis: opts.redis, prefix: opts.prefix, account: account.name }) : [];
    const checked = await ctx.reader.run(up.name, 'check', {
      kind, file: up.file, planOpts: page.planOptions, mapping: page.mapping, projects, vendors: { account: account.name, listed, typed },
    }, { createdAmong: createdInLedger(opts.redis, opts.prefix, account.name) });
    // What Send reads the upload with again: the same options, account and typed vendor IDs.
    up.checked = { planOpts: page.planOptions, account: account.name, page: { kind, layout: state.layout ?? 'detect' }, vendorIds: typed, invalidRows: checked.invalidRows };
    const throttle = new AccountThrottle({ redis: opts.redis, account: account.name, limits: account.limits, prefix: opts.prefix, timeScale: opts.timeScale });
    // What would stop Send is said at Check (the same decision Send takes again): a Redis that would not keep the ledger through a crash.
    const durability = await redisDurability(opts.redis, opts.env);
    res.json({
      ...checked.response,
      ...checked.rows,
      // .csv and .xlsx alike: the edits are part of the page state, read over the upload as it is (src/import/cell-edits.ts).
      editable: true,
      budget: await budgetOf(throttle, checked.response.recordCount, cfg.account.limitsText),
      durability: durability.mode === 'refuse' ? { refused: scrub(durability.message) } : { warning: durability.warning },
    });
  });
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
