/**
 * The columns an import cannot do without (CONTRACT.md §3, §4), in one place: the groupers refuse
 * a header row that lacks one, and the reader looks for the header row as the first row that
 * lacks none (`headerRule`).
 */
import type { ColumnMap } from './header.ts';
import { PROJECT_REF_COLUMNS } from './project-refs.ts';

const PROJECT = 'project_id (or project_number / project_name)';

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
 * named as lacking its vendors file.
 */
export function missingBillColumns(columns: Pick<ColumnMap, 'has'>, vendorNames: boolean): string[] {
  const missing: string[] = [];
  if (!PROJECT_REF_COLUMNS.some((c) => columns.has(c))) missing.push(PROJECT);
  if (!columns.has('vendor_id') && !columns.has('vendor')) missing.push('vendor_id (or vendor with --vendors VENDORS.csv)');
  else if (!columns.has('vendor_id') && !vendorNames) missing.push('vendor_id, or --vendors VENDORS.csv to read the vendor names of the vendor column (or the account\'s vendor list: buildsync vendors import VENDORS.csv)');
  if (!columns.has('item_name')) missing.push('item_name');
  if (!columns.has('rate')) missing.push('rate');
  return missing;
}
