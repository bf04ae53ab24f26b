/**
 * `--vendors VENDORS.csv` (CONTRACT.md §4): a CSV of `vendor,vendor_id` that turns the vendor
 * names of a bill file into VENDOR_IDs.
 *
 * Names match as every record key does (`keyText`, record-key.ts: ignoring case and leading,
 * trailing and repeated spaces, no-break spaces too: "ACME  Supply " = "Acme Supply"). The same
 * name twice with the same ID is harmless; with different IDs the name is ambiguous, and only
 * the bill rows using it are invalid (the rest of the import goes on). A vendors file that
 * cannot be read, lacks a column or has a bad row is a `FileError`: it is configuration, and
 * guessing around it could bill the wrong vendor.
 */
import { openTable } from '../tables/index.ts';
import { FileError, RowError } from '../errors/index.ts';
import { resolveColumns } from './header.ts';
import { CellValueError, parseId, parseText } from './values.ts';
import { keyText } from './record-key.ts';

interface VendorEntry {
  name: string;
  ids: number[];
  lines: number[];
}

export class VendorDirectory {
  private constructor(
    readonly file: string,
    private readonly byName: Map<string, VendorEntry>,
  ) {}

  /** Reads the whole vendors file (small: one line per vendor). */
  static async load(file: string, signal?: AbortSignal): Promise<VendorDirectory> {
    const table = await openTable(file, { signal });
    const columns = resolveColumns(table.headers, ['vendor', 'vendor_id'], undefined, file, table.headerLine);
    const name = columns.source('vendor');
    const id = columns.source('vendor_id');
    if (name === undefined || id === undefined) {
      throw new FileError(file, `${file}:${table.headerLine}: a vendors file needs the columns vendor and vendor_id (one vendor per line, e.g. "Acme Supply,55").`);
    }
    const byName = new Map<string, VendorEntry>();
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
        const key = keyText(vendor);
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
    return new VendorDirectory(file, byName);
  }

  /** The vendor's ID, or the reason there is none (naming the vendor and this file). */
  lookup(name: string): number | string {
    const entry = this.byName.get(keyText(name));
    if (entry === undefined) {
      return `vendor ${JSON.stringify(name)} is not in the vendors file ${this.file}; add a line "${name.replace(/"/g, '""')},<vendor_id>" there, or give vendor_id in this file`;
    }
    if (entry.ids.length > 1) {
      const where = entry.ids.map((id, i) => `${id} on line ${entry.lines[i]}`).join(', ');
      return `vendor ${JSON.stringify(name)} is ambiguous in the vendors file ${this.file}: it has the IDs ${where}; keep one, or give vendor_id in this file`;
    }
    return entry.ids[0]!;
  }
}
