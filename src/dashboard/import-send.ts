/**
 * `POST /import/send` of the import page (README, The import page): the same import job as the
 * CLI's, from the same streamed plan (`submitFile`, src/import-service/run-import.ts): the upload
 * read again with the options, account and typed vendor IDs of its last check, in the reader
 * thread as the check (its memory and time limits), its records going to the import store batch by
 * batch as the thread hands them over (the page never holds a whole import in memory). Refused,
 * as the check said, while rows are invalid (unless skipped) or Redis would not keep the ledger.
 */
import express from 'express';
import { loadConfig, requireService } from '../config.ts';
import { addCrossed, redisDurability, saveTypedVendorIds, submitFile, type PlannedBatch } from '../import-service/index.ts';
import { PageError, scrub } from './http-errors.ts';
import type { ImportContext } from './import-context.ts';
import { handled } from './import-reading-routes.ts';

export function sendRoute(ctx: ImportContext): express.RequestHandler {
  const { opts, store, uploads } = ctx;
  return handled(async (req, res) => {
    const body = req.body as { upload: string; skipInvalid?: boolean };
    const up = uploads.get(body.upload);
    const checked = up.checked;
    if (checked === undefined) throw new PageError(409, 'check the file first');
    if (checked.invalidRows > 0 && !body.skipInvalid) throw new PageError(409, 'some rows are invalid: fix them, or check "Skip invalid rows"');
    const durability = await redisDurability(opts.redis, opts.env);
    if (durability.mode === 'refuse') throw new PageError(409, durability.message);
    const account = requireService(loadConfig({ env: opts.env, account: checked.account }).account);
    // A second Send needs a new Check (a Send that fails keeps the check for another try).
    up.checked = undefined;
    const submitted = await submitFile(checked.page.kind, up.file, {
      queues: opts.queues,
      store,
      account,
      place: { redis: opts.redis, prefix: opts.prefix, connections: 1, timeScale: opts.timeScale },
      planOpts: checked.planOpts,
      resendUnknown: false,
      durability: durability.mode,
      // The job and the report name the file as the user uploaded it, never where it is kept.
      page: {
        name: up.name,
        scrub,
        typedVendors: checked.vendorIds,
        // Planned in the reader thread, as the check was (its memory and time limits): only the batches in flight are here.
        plan: (input, sink) => ctx.reader.run(up.name, 'send', input, { planned: (batch: PlannedBatch) => addCrossed(sink, batch) }),
      },
    }).catch((err: unknown) => {
      up.checked ??= checked;
      throw err;
    });
    if (submitted.importId === undefined) throw new PageError(409, `${up.name} has a header row and no data rows: nothing to send`);
    const { importId, planned } = submitted;
    // The mapping of the check is preselected the next time a file with this header row is read for the account.
    if (checked.planOpts.mapping !== undefined && planned.table !== undefined) {
      await ctx.lastMappings.save(checked.account, checked.page.kind, planned.table.headers, { mapping: checked.planOpts.mapping, layout: checked.page.layout, sentAt: new Date().toISOString() });
    }
    // The vendor IDs typed in the check's vendor table join the account's vendor list (README, "Vendor lists").
    await saveTypedVendorIds({ redis: opts.redis, prefix: opts.prefix, account: checked.account }, checked.vendorIds);
    // Its rows to fix are written from this file when it ends, by this dashboard or, restarted, the next one.
    await store.saveUpload(importId, up.file);
    // The upload stays until the import has sent its records (the rows to fix are read from it then) or its hour is up, whichever comes first.
    uploads.sent(up, importId);
    res.json({ importId, warning: durability.warning });
  });
}
