/**
 * The columns of a bill file that no field reads but whose values decide what may be sent
 * (README, "Kinds of rows" and "Amounts the service cannot hold"): a `Type` or `Status` column,
 * `Currency`, `Discount`, tax amounts and rates. They are found by their headers, whether the
 * mapping ignores them or not: an `ignore` entry of a built-in preset never silences them.
 */
import type { ColumnMap } from './header.ts';
import { normalizeHeader } from './header.ts';
import type { MappingFile } from './mapping-file.ts';
import { isBuiltInPreset } from './presets.ts';

/** A header of the file that gives no field. */
export interface AuxColumn {
  /** The header as written, for messages. */
  header: string;
  index: number;
  /** Its name compared as headers are, without Xero's leading `*` (`*TaxAmount` is `taxamount`). */
  name: string;
  /** A user's own mapping file lists it under `ignore` (a decision; a preset's list is not one). */
  userIgnored: boolean;
}

/** `name` as headers are compared, without a leading `*`: the form the aux header lists below use. */
export function auxName(header: string): string {
  return normalizeHeader(header.replace(/^\s*\*/, ''));
}

/** The headers no canonical column reads (ignored by the mapping, or the rules' own columns). */
export function auxColumns(headers: readonly string[], columns: ColumnMap, mapping: MappingFile | undefined): AuxColumn[] {
  const read = new Set<number>();
  for (const c of columns.columns()) {
    const index = columns.source(c)?.index ?? -1;
    if (index >= 0) read.add(index);
  }
  const userIgnored = new Set(isBuiltInPreset(mapping) ? [] : (mapping?.ignore ?? []).map(normalizeHeader));
  const out: AuxColumn[] = [];
  headers.forEach((header, index) => {
    if (read.has(index) || index === columns.sourceLineIndex || index === columns.errorIndex || header.trim() === '') return;
    out.push({ header, index, name: auxName(header), userIgnored: userIgnored.has(normalizeHeader(header)) });
  });
  return out;
}

/** The cell of an aux column as trimmed text ('' for blank). */
export function auxText(values: readonly unknown[], index: number): string {
  const v = values[index];
  if (v === null || v === undefined) return '';
  return (typeof v === 'string' ? v : v instanceof Date ? v.toISOString().slice(0, 10) : String(v)).trim();
}
