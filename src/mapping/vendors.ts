/**
 * Where the vendor names of a bill file become VENDOR_IDs: `--vendors VENDORS.csv` (the README
 * §4, a CSV of `vendor,vendor_id`), the account's vendor list (README, "Vendor lists"; read from
 * Redis by src/vendors/vendor-store.ts), or both, the file winning for the names it holds.
 *
 * Names match as people read them (`vendorKey`: case and spaces aside, "ACME  Supply " = "Acme
 * Supply"). The same
 * name twice with the same ID is harmless; with different IDs the name is ambiguous, and only
 * the bill rows using it are invalid (the rest of the import goes on). A vendors file that
 * cannot be read, lacks a column or has a bad row is a `FileError`: it is configuration, and
 * guessing around it could bill the wrong vendor.
 */
import { openTable } from '../tables/index.ts';
import { FileError, MAX_LISTED, RowError, listAtMost } from '../errors/index.ts';
import { resolveColumns } from './header.ts';
import { CellValueError, parseId, parseText } from './values.ts';
import { vendorKey, type VendorEntry } from '../vendors/vendor-store.ts';
import type { Front } from '../errors/index.ts';

/** A name of a vendors file: its spelling, every ID the file gives it, and the line of each. */
export interface VendorFileEntry {
  name: string;
  ids: number[];
  lines: number[];
}

/** What a bill file's vendor names are looked up in. */
export interface VendorLookup {
  /** The vendor's ID, or the reason there is none (naming the vendor and where it was looked for). */
  lookup(name: string): number | string;
  /** Where `name` was found: the vendors file's path, or the account's vendor list. */
  sourceOf(name: string): string;
}

/**
 * Reads a whole vendors file (small: one line per vendor) into its names by `vendorKey`. A line
 * that cannot be read makes the file unusable (`FileError`); a name given two IDs is kept with both.
 */
export async function readVendorsFile(file: string, signal?: AbortSignal): Promise<Map<string, VendorFileEntry>> {
  const table = await openTable(file, { signal });
  const columns = resolveColumns(table.headers, ['vendor', 'vendor_id'], undefined, file, table.headerLine);
  const name = columns.source('vendor');
  const id = columns.source('vendor_id');
  if (name === undefined || id === undefined) {
    throw new FileError(file, `${file}:${table.headerLine}: a vendors file needs the columns vendor and vendor_id (one vendor per line, e.g. "Acme Supply,55").`);
  }
  const byName = new Map<string, VendorFileEntry>();
  const problems: string[] = [];
  for await (const batch of table.batches()) {
    for (const row of batch) {
      let vendor: string | undefined;
      let vendorId: number | undefined;
      try {
        vendor = parseText(row.values[name.index] ?? null, row.formats?.[name.index]);
        vendorId = parseId(row.values[id.index] ?? null, row.formats?.[id.index]);
      } catch (err) {
        if (!(err instanceof CellValueError)) throw err;
        problems.push(new RowError(file, row.line, vendor === undefined ? name.header : id.header, err.message).message);
        continue;
      }
      if (vendor === undefined || vendorId === undefined) {
        problems.push(new RowError(file, row.line, vendor === undefined ? name.header : id.header, 'every line needs both a vendor name and its vendor_id').message);
        continue;
      }
      const key = vendorKey(vendor);
      const entry = byName.get(key);
      if (entry === undefined) byName.set(key, { name: vendor, ids: [vendorId], lines: [row.line] });
      else if (!entry.ids.includes(vendorId)) {
        entry.ids.push(vendorId);
        entry.lines.push(row.line);
      }
    }
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).join('; ') + (problems.length > 5 ? `; and ${problems.length - 5} more` : '');
    throw new FileError(file, `the vendors file cannot be used: ${shown}. Fix these lines of ${file}.`);
  }
  return byName;
}

/** A name the file gives two IDs, as a message: `vendor "X" … has the IDs 57 on line 4, 58 on line 5`. */
export function ambiguityOf(entry: VendorFileEntry, file: string): string {
  const where = listAtMost(entry.ids.slice(0, MAX_LISTED).map((id, i) => `${id} on line ${entry.lines[i]}`), entry.ids.length);
  return `vendor ${JSON.stringify(entry.name)} is ambiguous in the vendors file ${file}: it has the IDs ${where}`;
}

/** `--vendors VENDORS.csv`. */
export class VendorDirectory implements VendorLookup {
  private constructor(
    readonly file: string,
    private readonly byName: Map<string, VendorFileEntry>,
  ) {}

  static async load(file: string, signal?: AbortSignal): Promise<VendorDirectory> {
    return new VendorDirectory(file, await readVendorsFile(file, signal));
  }

  holds(name: string): boolean {
    return this.byName.has(vendorKey(name));
  }

  sourceOf(): string {
    return this.file;
  }

  lookup(name: string): number | string {
    const entry = this.byName.get(vendorKey(name));
    if (entry === undefined) {
      return `vendor ${JSON.stringify(name)} is not in the vendors file ${this.file}; add a line "${name.replace(/"/g, '""')},<vendor_id>" there, or give vendor_id in this file`;
    }
    if (entry.ids.length > 1) return `${ambiguityOf(entry, this.file)}; keep one, or give vendor_id in this file`;
    return entry.ids[0]!;
  }
}

/**
 * The account's vendor list (read from Redis by the caller), alone or under a vendors file that
 * wins for the names it holds. A name the entries give twice takes the later ID (the import
 * page's vendor table is given after the list). `front`: whose words a missing name's advice is in.
 */
export class AccountVendors implements VendorLookup {
  private readonly byName: Map<string, number>;

  constructor(
    readonly account: string,
    entries: readonly VendorEntry[],
    private readonly file?: VendorDirectory,
    private readonly front: Front = 'cli',
  ) {
    this.byName = new Map(entries.map((e) => [vendorKey(e.vendor), e.vendor_id]));
  }

  sourceOf(name: string): string {
    return this.file?.holds(name) ? this.file.file : `the vendor list of account ${this.account}`;
  }

  lookup(name: string): number | string {
    if (this.file?.holds(name)) return this.file.lookup(name);
    const id = this.byName.get(vendorKey(name));
    if (id !== undefined) return id;
    if (this.front === 'page') return `vendor ${JSON.stringify(name)} is not in the vendor list of account ${this.account}; type its vendor ID in the vendor table, or fill vendor_id in the file`;
    const line = `"${name.replace(/"/g, '""')},<vendor_id>"`;
    return this.file === undefined
      ? `vendor ${JSON.stringify(name)} is not in the vendor list of account ${this.account}; add it (a line ${line} in a file for buildsync vendors import), or give vendor_id in this file`
      : `vendor ${JSON.stringify(name)} is neither in the vendors file ${this.file.file} nor in the vendor list of account ${this.account}; add a line ${line} to ${this.file.file}, or give vendor_id in this file`;
  }
}

/** Placeholder IDs of vendor names left unresolved: far above any real VENDOR_ID. */
const PLACEHOLDER_BASE = 9_000_000_000_000;

/**
 * A dry run whose account's vendor list could not be read (Redis did not answer): names the
 * vendors file holds are looked up in it, the others get a placeholder ID each (the same one for
 * the same name) and are counted, so that the dry run checks everything else and says once that
 * vendor names were not resolved (README, Commands).
 */
export class UnresolvedVendors implements VendorLookup {
  private readonly byName = new Map<string, number>();
  private readonly names: string[] = [];
  private file: VendorDirectory | undefined;

  /** Names `file` holds are looked up in it. */
  under(file: VendorDirectory | undefined): this {
    this.file = file;
    return this;
  }

  sourceOf(name: string): string {
    return this.file?.holds(name) ? this.file.file : 'the vendor list (not read)';
  }

  lookup(name: string): number | string {
    if (this.file?.holds(name)) return this.file.lookup(name);
    const key = vendorKey(name);
    let id = this.byName.get(key);
    if (id === undefined) {
      id = PLACEHOLDER_BASE + this.names.length;
      this.byName.set(key, id);
      this.names.push(name.trim());
    }
    return id;
  }

  /** `vendor "Acme Supply"` for a placeholder ID, undefined for a real one. */
  describe(id: number): string | undefined {
    const name = id >= PLACEHOLDER_BASE ? this.names[id - PLACEHOLDER_BASE] : undefined;
    return name === undefined ? undefined : `vendor ${JSON.stringify(name)}`;
  }

  /** How many distinct names were left unresolved. */
  get count(): number {
    return this.byName.size;
  }

  /** Whether `id` is a placeholder of an unresolved name. */
  isPlaceholder(id: number): boolean {
    return id >= PLACEHOLDER_BASE;
  }
}

/**
 * The account's vendor list as a plan is given it: its entries as read (`front`: whose words the
 * advice on a missing name is in, the CLI's by default), or, when it could not be read, an
 * `UnresolvedVendors` that counts the names left unresolved.
 */
export type AccountVendorList = { account: string; entries: readonly VendorEntry[]; front?: Front } | UnresolvedVendors;

/** Who is told each vendor name a bill file's rows give (the import page's vendor table): `line` is the row's. */
export interface VendorNameSink {
  seen(line: number, name: string): void;
}

/**
 * What a bill plan looks vendor names up in: the `--vendors` file, the account's vendor list, or
 * both (the file winning for the names it holds); undefined when neither is given.
 */
export async function vendorLookup(file: string | undefined, list: AccountVendorList | undefined, signal?: AbortSignal): Promise<VendorLookup | undefined> {
  const directory = file === undefined ? undefined : await VendorDirectory.load(file, signal);
  if (list === undefined) return directory;
  if (list instanceof UnresolvedVendors) return list.under(directory);
  return new AccountVendors(list.account, list.entries, directory, list.front);
}
