/**
 * The import page's `Vendor list` (README, The import page): a `vendor,vendor_id` CSV chosen in
 * the browser, read by the same reader as the CLI's `--vendors` file, and matched to the vendor
 * names of the file being imported by the same key rule (case and spaces aside). It fills the
 * vendor table; nothing is kept until the import is sent.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BuildsyncError, UsageError } from '../errors/index.ts';
import { ambiguityOf, readVendorsFile } from '../mapping/index.ts';
import { vendorKey } from '../vendors/vendor-store.ts';

export interface VendorListMatch {
  /** Vendor name as the page lists it → the list's ID, for the names the list holds once. */
  ids: Record<string, string>;
  /** What was read, in the page's words. */
  message: string;
}

/**
 * Reads `text` (the list as uploaded, called `name`) in a private directory under `dir` and
 * matches it to `names`. A list that cannot be read is the error the CLI gives for it, naming the
 * list as the user named it.
 */
export async function matchVendorList(text: string, name: string, names: readonly string[], dir: string): Promise<VendorListMatch> {
  const work = await mkdtemp(join(dir, 'u-vendor-list-'));
  // Named as the user named it (in a directory of its own), so that the reader's messages name it so.
  const file = join(work, name);
  try {
    await writeFile(file, text, { mode: 0o600 });
    let byName;
    try {
      byName = await readVendorsFile(file);
    } catch (err) {
      if (!(err instanceof BuildsyncError)) throw err;
      // The reader's own words, without the advice it gives for an import's columns (this is a list, not the file imported).
      const said = err.message.split(file).join(name);
      const unknown = /^(.*?: unknown columns? [^.]*\.)/.exec(said);
      throw new UsageError(unknown ? `${unknown[1]} A vendor list needs the columns vendor and vendor_id, one vendor per line (e.g. "Acme Supply,55").` : said, { cause: err });
    }
    const ids: Record<string, string> = {};
    const ambiguous: string[] = [];
    for (const n of names) {
      const entry = byName.get(vendorKey(n));
      if (entry === undefined) continue;
      if (entry.ids.length > 1) ambiguous.push(ambiguityOf(entry, name));
      else ids[n] = String(entry.ids[0]);
    }
    const found = Object.keys(ids).length;
    const missing = names.length - found - ambiguous.length;
    const parts = [`${name}: ${byName.size} ${byName.size === 1 ? 'vendor' : 'vendors'} read; ${found} of the file's ${names.length} ${names.length === 1 ? 'name' : 'names'} found`];
    if (missing > 0) parts.push(`${missing} not in the list: type their IDs in the vendor table`);
    if (ambiguous.length > 0) parts.push(`${ambiguous.join('; ')}: type the right ID in the vendor table`);
    return { ids, message: `${parts.join('; ')}.` };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
