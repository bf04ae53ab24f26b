/**
 * Which built-in preset (presets.ts) a file's header row is written for, as the import page's
 * `File layout` "detect" reads it (README, The import page): QuickBooks writes a kind column
 * (`Type` or `Transaction Type`) beside its number (`Num`, `Bill No.`), vendor (`Vendor`,
 * `Supplier`) and amount (`Amount`, `Line Amount`); Xero's bill export has `ContactName` and
 * `InvoiceNumber`, with or without the leading `*` of its required columns. A file that has
 * both kinds of header reads as neither.
 */
import { normalizeHeader } from './header.ts';
import type { MappingFile } from './mapping-file.ts';
import { presetMapping } from './presets.ts';
import { QUICKBOOKS_KIND_COLUMNS } from './quickbooks.ts';

export type PresetName = 'quickbooks' | 'xero';

/** Every group must be matched by one header of the row. */
const SIGNS: ReadonlyArray<[PresetName, ReadonlyArray<readonly string[]>]> = [
  ['quickbooks', [QUICKBOOKS_KIND_COLUMNS, ['Num', 'Bill No.'], ['Vendor', 'Supplier'], ['Amount', 'Line Amount']]],
  ['xero', [['ContactName'], ['InvoiceNumber']]],
];

/** A header as compared here: as headers are (`normalizeHeader`), without Xero's leading `*`. */
function signName(header: string): string {
  return normalizeHeader(header.replace(/^\s*\*/, ''));
}

/** The preset whose export `headers` is, or undefined. */
export function detectPreset(headers: readonly string[]): PresetName | undefined {
  const names = new Set(headers.map(signName));
  const found = SIGNS.filter(([, groups]) => groups.every((group) => group.some((h) => names.has(signName(h)))));
  return found.length === 1 ? found[0]![0] : undefined;
}

/**
 * The preset whose `kinds` and `status` rules `mapping` carries (a mapping the page wrote for a
 * QuickBooks or Xero layout has them, on the file's own kind column), or undefined.
 */
export function presetOfRules(mapping: Pick<MappingFile, 'kinds' | 'status'>): PresetName | undefined {
  const same = (a: readonly string[] | undefined, b: readonly string[] | undefined) => JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
  for (const name of ['quickbooks', 'xero'] as const) {
    const preset = presetMapping(name)!;
    if (preset.kinds === undefined || mapping.kinds === undefined) continue;
    if (!same(preset.kinds.bill, mapping.kinds.bill) || !same(preset.kinds.credit, mapping.kinds.credit) || !same(preset.kinds.ignore, mapping.kinds.ignore)) continue;
    // A file without the status column has no status rules to carry.
    if (mapping.status !== undefined && (preset.status === undefined || !same(preset.status.keep, mapping.status.keep) || !same(preset.status.ignore, mapping.status.ignore))) continue;
    return name;
  }
  return undefined;
}
