/**
 * The import page's vendor table (README, The import page; "Vendor lists"): every distinct vendor
 * name of a bill file, with the VENDOR_ID the account's vendor list gives it or the one typed in
 * the table. The typed IDs overlay the list for the check; sending saves them into the list, so
 * that the next file naming those vendors needs none typed.
 *
 * On the page a bill file with a vendor-name column is always read with a vendor list (the
 * account's, empty or not): a name it lacks is a row error on its rows, never a file-level stop.
 */
import { UsageError } from '../errors/index.ts';
import { readBillVendorNames, type PlanOptions } from '../import/index.ts';
import type { VendorNameSink } from '../mapping/index.ts';
import type { RedisConnection as Redis } from '../redis/layout.ts';
import { vendorKey, VendorStore, type VendorEntry } from '../vendors/vendor-store.ts';

/**
 * A row of the vendor table: the name as first written in the file, its ID ('' when unknown), and
 * the ID the account's vendor list has for it ('' none): an ID typed or loaded on the page differs
 * from `listed`, and the page sends it with every check until Send saves it in the list.
 */
export interface VendorRow {
  name: string;
  vendorId: string;
  listed: string;
}

/** The largest VENDOR_ID a JSON number holds exactly. */
const MAX_ID = Number.MAX_SAFE_INTEGER;

/**
 * The vendor IDs typed in the table (`vendorIds`: vendor name as in the file → VENDOR_ID as
 * typed), as vendor list entries; an empty cell is no entry. A typed ID that is not a whole number
 * above 0 is refused, naming the vendor.
 */
export function typedVendorIds(vendorIds: unknown): VendorEntry[] {
  if (vendorIds === undefined || vendorIds === null) return [];
  if (typeof vendorIds !== 'object' || Array.isArray(vendorIds)) throw new UsageError('the vendor table was not sent as names and IDs; read the file again');
  const out: VendorEntry[] = [];
  for (const [vendor, typed] of Object.entries(vendorIds as Record<string, unknown>)) {
    const text = typeof typed === 'number' ? String(typed) : typeof typed === 'string' ? typed.trim() : undefined;
    if (text === undefined) throw new UsageError(`the vendor ID of ${JSON.stringify(vendor)} in the vendor table is not a number`);
    if (text === '' || vendor.trim() === '') continue;
    const id = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!(id > 0 && id <= MAX_ID)) throw new UsageError(`the vendor ID typed for ${JSON.stringify(vendor)} in the vendor table is ${JSON.stringify(text)}; type the vendor's VENDOR_ID, a whole number such as 55`);
    out.push({ vendor, vendor_id: id });
  }
  return out;
}

/**
 * The vendor names a bill file's rows give, as the plan reads them (`PlanOptions.vendorNames`):
 * each distinct name (compared as the key rule compares them) in its first spelling, in the order
 * of first appearance, and the name each row gives.
 */
export class FileVendorNames implements VendorNameSink {
  readonly #byKey = new Map<string, string>();
  readonly #byLine = new Map<number, string>();
  /** The name of a row past this line is not kept (the check shows no record that starts there): the rows' names stay bounded. */
  linesUpTo = Infinity;

  seen(line: number, name: string): void {
    const key = vendorKey(name);
    if (key === '') return;
    let first = this.#byKey.get(key);
    if (first === undefined) this.#byKey.set(key, (first = name.replace(/\s+/gu, ' ').trim()));
    if (line <= this.linesUpTo) this.#byLine.set(line, first);
  }

  /** The vendor name (first spelling) row `line` gives, if it gives one. */
  nameOf(line: number): string | undefined {
    return this.#byLine.get(line);
  }

  /** Every distinct name with its ID in `entries` (later entries win; the typed ones after the account's `listed`), '' when they lack it. */
  table(entries: readonly VendorEntry[], listed: readonly VendorEntry[] = entries): VendorRow[] {
    const ids = new Map(entries.map((e) => [vendorKey(e.vendor), e.vendor_id]));
    const own = new Map(listed.map((e) => [vendorKey(e.vendor), e.vendor_id]));
    const text = (m: Map<string, number>, key: string) => (m.has(key) ? String(m.get(key)) : '');
    return [...this.#byKey].map(([key, name]) => ({ name, vendorId: text(ids, key), listed: text(own, key) }));
  }
}

/** Data rows a first reading reads vendor names from: the head of a big file only (a check reads every row). */
export const READING_VENDOR_ROWS = 2_000;

/**
 * The vendor table of a reading, before any check: the names the rows of a bill file give, read
 * as the check reads them with `opts` (`readBillVendorNames`: header row, sheet, hidden rows, the
 * rows that are no bill's left out), with their IDs in `entries`. Only the first
 * `READING_VENDOR_ROWS` data rows are read, so that a big upload reads as fast as a small one:
 * `complete` is false when the file has more.
 */
export async function readingVendorTable(file: string, opts: PlanOptions, entries: readonly VendorEntry[]): Promise<{ vendors: VendorRow[]; complete: boolean }> {
  const names = new FileVendorNames();
  const { complete } = await readBillVendorNames(file, opts, names, { rows: READING_VENDOR_ROWS });
  return { vendors: names.table(entries), complete };
}

/** The account's vendor list (README, "Vendor lists"). */
export function accountVendorList(where: { redis: Redis; prefix: string; account: string }): Promise<VendorEntry[]> {
  return new VendorStore(where.redis, where.prefix).list(where.account);
}

/**
 * A page's check or send of a bill file: `opts` with the account's vendor list (`listed`), the
 * IDs typed in the vendor table over it, and, for a check, `names` told every name the rows give.
 * Estimates are read without.
 */
export function pageVendorOptions(
  kind: 'estimates' | 'bills',
  opts: PlanOptions,
  vendors: { account: string; listed: readonly VendorEntry[]; typed: readonly VendorEntry[] },
  names?: FileVendorNames,
): PlanOptions {
  if (kind !== 'bills') return opts;
  const entries = [...vendors.listed, ...vendors.typed];
  return { ...opts, accountVendors: { account: vendors.account, entries, front: 'page' }, ...(names === undefined ? {} : { vendorNames: names }) };
}

/**
 * After a send: the IDs typed in the vendor table of its check saved into the account's vendor list
 * (README, "Vendor lists"), as `buildsync vendors import` merges a file.
 */
export async function saveTypedVendorIds(where: { redis: Redis; prefix: string; account: string }, typed: readonly VendorEntry[]): Promise<void> {
  if (typed.length === 0) return;
  // One entry per name (the last typed), as `VendorStore.import` takes them.
  const byKey = new Map(typed.map((e) => [vendorKey(e.vendor), e]));
  await new VendorStore(where.redis, where.prefix).import(where.account, [...byKey.values()]);
}
