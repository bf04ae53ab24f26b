/**
 * `Download rows to fix` of the import page (README, "The import page"): the errors file of an
 * import, only its rows still to fix (invalid, failed, unknown: never a record created), kept with
 * its report in Redis (the import store) so that a restart of the dashboard loses nothing. While
 * the import runs, the file it was sent from is kept there too (the upload on this machine's disk
 * goes when the dashboard stops); once the import has ended its rows to fix are written once,
 * kept, and the file is dropped.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { errorsFileChunks, linesToFix, type ErrorsFileSource, type ImportStore } from '../import/index.ts';
import { esc } from './budget-page.ts';
import { PageError } from './http-errors.ts';

/**
 * The import's rows to fix as the errors file's text ('' when nothing needs fixing), from its
 * report as it stands (`running`: records not settled yet are pending, not to fix). Read from
 * `localFile` when the upload is still on this machine, else from the file kept in Redis, else from
 * where a CLI import read it.
 */
export async function rowsToFixText(store: ImportStore, importId: string, o: { running: boolean; localFile?: string; keptFor: string }): Promise<string> {
  const meta = await store.meta(importId);
  if (!meta) throw new PageError(404, `import ${importId} is unknown or expired`);
  const toFix = linesToFix(await store.report(importId, { running: o.running }));
  if (toFix.size === 0) return '';
  const source = meta.errorsSource as ErrorsFileSource | undefined;
  const gone = new PageError(410, `the file of this import is no longer kept (uploads are kept for ${o.keptFor}); use \`buildsync jobs report ${importId} --errors\` where the file is`);
  if (!source) throw gone;
  if (o.localFile !== undefined) return collect({ ...source, file: o.localFile }, toFix);
  const kept = await store.upload(importId);
  if (kept === undefined) {
    try {
      return await collect(source, toFix);
    } catch {
      throw gone;
    }
  }
  // The kept bytes under the upload's own name (its extension says .csv or .xlsx), in a private directory, for as long as the read takes.
  const dir = await mkdtemp(join(tmpdir(), 'buildsync-fix-'));
  try {
    const file = join(dir, basename(source.file));
    await writeFile(file, kept, { mode: 0o600 });
    return await collect({ ...source, file }, toFix);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function collect(source: ErrorsFileSource, toFix: ReadonlyMap<number, string>): Promise<string> {
  let text = '';
  for await (const chunk of errorsFileChunks(source, toFix)) text += chunk.text;
  return text;
}

/** What `Download rows to fix` opens when nothing needs fixing: a page a person reads, not an error. */
export function nothingToFixPage(importId: string): string {
  const id = esc(importId);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Nothing to fix</title></head>
<body><main><h1>Nothing to fix</h1><p>There is nothing to fix in this import: no row of it is invalid, failed or unknown.</p>
<p><a href="/import?id=${id}">Back to the import</a> · <a href="/import/report.csv?id=${id}">Download report</a></p></main></body></html>
`;
}
