/**
 * A failed import as the import page says it (`GET /import/status.json`, README, The import
 * page). The job keeps its failure as the CLI words it, its stable code first (`failureReason`,
 * src/errors): a failure whose code the page knows is worded again for the page from the one
 * wording table (`messageFor(err, 'page')`); any other reason is shown without what it tells the
 * CLI's user to type (a flag the page does not have).
 */
import { advise, ImportUnknownError, messageFor, parseFailureReason, type BuildsyncError, type ErrorCode } from '../errors/index.ts';

/** The failures an import job ends with whose page wording is known: the error again, made from the import's id. */
const WORDED_AGAIN: Partial<Record<ErrorCode, (importId: string) => BuildsyncError>> = {
  BUILDSYNC_IMPORT_UNKNOWN: (importId) => new ImportUnknownError(importId),
};

/** A flag of the command line (`--resend-unknown`, `--dry-run`). */
const FLAG = /(^|[\s("'])--[a-z]/;

/** `failedReason` of import `importId`'s job, as the page says it; undefined when it has none. */
export function pageFailedReason(importId: string, failedReason: string | undefined): string | undefined {
  if (failedReason === undefined || failedReason === '') return undefined;
  const { code, message } = parseFailureReason(failedReason);
  const again = code === undefined ? undefined : WORDED_AGAIN[code];
  if (again !== undefined) return messageFor(again(importId), 'page');
  return withoutFlags(message);
}

/** `message` without its sentences and clauses that name a flag; what is left ends as a sentence. */
function withoutFlags(message: string): string {
  if (!FLAG.test(message)) return message;
  const kept = message.split(/(?<=[.;])\s+/).filter((part) => !FLAG.test(part));
  if (kept.length === 0) return `the import failed; ${advise({ kind: 'import-again' }, 'page')}`;
  return kept.join(' ').replace(/[;,:]$/, '.');
}
