/**
 * The columns an import cannot do without (docs/reading-rules.md, §4), in one place: the groupers refuse
 * a header row that lacks one, and the reader looks for the header row as the first row that
 * lacks none (`headerRule`).
 */
import { advise, joinWording, type Advice, type Wording } from '../errors/index.ts';
import type { ColumnMap } from './header.ts';
import { PROJECT_REF_COLUMNS } from './project-refs.ts';

const PROJECT = 'project_id (or project_number / project_name)';

/**
 * The vendor column's two ways to be missing: the reader lists required columns as text (the CLI's
 * words), and a message turns these back into their advice (`missingList`) for each front end.
 */
const VENDOR_MISSING: readonly Advice[] = [{ kind: 'missing-vendor-id', hasVendorColumn: false }, { kind: 'missing-vendor-id', hasVendorColumn: true }];
const VENDOR_BY_TEXT = new Map(VENDOR_MISSING.map((a) => [advise(a, 'cli'), a]));

/** The missing columns of a header row as a message lists them (`a; b`), each worded per front end. */
export function missingList(missing: readonly string[]): Wording {
  return joinWording(missing.map((m) => VENDOR_BY_TEXT.get(m) ?? m), '; ');
}

/** The required estimate columns `columns` lacks. */
export function missingEstimateColumns(columns: Pick<ColumnMap, 'has'>): string[] {
  const missing: string[] = [];
  if (!PROJECT_REF_COLUMNS.some((c) => columns.has(c))) missing.push(PROJECT);
  if (!columns.has('estimate_name')) missing.push('estimate_name');
  return missing;
}

/**
 * The required bill columns `columns` lacks. `vendorNames`: vendor names can be read (a vendors
 * file was given), so a `vendor` column does for `vendor_id`; without it a `vendor` column is
 * named as lacking its vendors file. `sections`: bills in sections, whose headings name the vendor.
 */
export function missingBillColumns(columns: Pick<ColumnMap, 'has'>, vendorNames: boolean, sections = false): string[] {
  const missing: string[] = [];
  if (!PROJECT_REF_COLUMNS.some((c) => columns.has(c))) missing.push(PROJECT);
  // In sections (`--layout sections`) headings name the vendor: no vendor column is required.
  if (!columns.has('vendor_id') && !columns.has('vendor')) {
    if (!sections) missing.push(advise(VENDOR_MISSING[0]!, 'cli'));
  } else if (!columns.has('vendor_id') && !vendorNames) missing.push(advise(VENDOR_MISSING[1]!, 'cli'));
  if (!columns.has('item_name')) missing.push('item_name');
  if (!columns.has('rate')) missing.push('rate');
  return missing;
}
