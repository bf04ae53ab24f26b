import { writeFileAtomically } from '../atomic-file.ts';
import { linesToFix, reportCsv, writeErrorsFile, type ErrorsFileSource, type ImportStore, type LocalReport, type RecordOutcome } from '../import/index.ts';

/** How long the outcome log must stay still before the report is written: the answers to requests in flight come in meanwhile. */
const QUIET_MS = 2_000;
/** The longest wait for them. */
const MAX_WAIT_MS = 20_000;

/**
 * Redis lost the ledger mid-import (its marker is gone or another, docs/operators.md,
 * "Durability"): the workers stop sending, and the command that follows the import writes its
 * report from what it kept (`LocalReport`), once the requests that were in flight have been
 * answered and their outcomes settled into the Redis that came back (their worker writes them
 * there). Every record created is named with its ID, so that the next run asks about them
 * instead of sending them again; the others say they were not sent.
 */
export async function reportAfterLostLedger(
  store: ImportStore,
  importId: string,
  local: LocalReport,
  o: { reportPath: string; errorsPath: string; errorsSource: ErrorsFileSource; why: string; signal?: AbortSignal; quietMs?: number },
): Promise<{ created: number; notSent: number; fixRows: number }> {
  local.restart();
  const quietMs = o.quietMs ?? QUIET_MS;
  const until = Date.now() + MAX_WAIT_MS;
  let stillSince = Date.now();
  while (Date.now() - stillSince < quietMs && Date.now() < until && !o.signal?.aborted) {
    const added = await local.catchUp(store, importId).catch(() => 0);
    if (added > 0) stillSince = Date.now();
    await new Promise((r) => setTimeout(r, 200));
  }
  const notSent: RecordOutcome = {
    status: 'failed',
    code: 'BUILDSYNC_LEDGER_UNSAFE',
    message: `not sent: sending stopped: ${o.why}. Run the import again once Redis keeps its data: it asks about the records this report names as created`,
  };
  const lines = local.lines(notSent);
  const file = await writeFileAtomically(o.reportPath);
  try {
    await file.write(reportCsv(lines));
    await file.commit();
  } catch (err) {
    await file.abort();
    throw err;
  }
  const fixRows = await writeErrorsFile(o.errorsSource, linesToFix(lines), o.errorsPath, o.signal);
  return { created: local.created(), notSent: lines.filter((l) => l.message === notSent.message).length, fixRows };
}
