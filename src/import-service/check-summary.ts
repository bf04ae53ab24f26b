/**
 * The import page's check as a person reads it (README, The import page): each record it would
 * create summed up as the sheet shows it, a bill by its ref, project, vendor, lines and total, an
 * estimate by its project, name, categories, items and total; totals as exact decimals
 * (src/values/decimal.ts), never through binary floating point.
 */
import type { MappedRecord, ProjectResolver } from '../mapping/index.ts';
import type { BillPayload, EstimatePayload } from '../payloads/index.ts';
import { decimalProduct, decimalSum, groupedDecimalText, numberToDecimalText } from '../values/index.ts';

export interface BillSummary {
  /** The bill_ref as first written ('' for a bill of one row without one). */
  ref: string;
  project: string;
  /** The vendor's name as the file writes it and its VENDOR_ID (`Acme Supply (55)`), or the ID alone. */
  vendor: string;
  /** Items. */
  lines: number;
  /** The sum of the lines' rate × qty (qty 1 when not given), as `630,370.00`. */
  total: string;
}

export interface EstimateSummary {
  project: string;
  name: string;
  categories: number;
  items: number;
  /** The sum of qty × unit_cost of every item, as `630,370.00`. */
  total: string;
}

const BILL_REF = 'bill:ref:';
const TRAILING_IDS = /\|-?\d+\|-?\d+$/;

/** The project as the account's listing names it (`P-1042 · Kitchen remodel`), or its ID. */
export function projectText(id: number, resolver: ProjectResolver | undefined): string {
  const listed = resolver?.listed?.(id);
  const parts = [listed?.number ?? '', listed?.name ?? ''].filter((p) => p !== '');
  return parts.length === 0 ? String(id) : parts.join(' · ');
}

/** A payload number or decimal text as exact decimal text. */
function decimalOf(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return numberToDecimalText(v);
  if (typeof v === 'string' && v.trim() !== '') return v.trim();
  return undefined;
}

/** The bill's summary; `vendorName`: the vendor name the bill's first row gives, if it gives one. */
export function billSummary(record: MappedRecord<BillPayload>, resolver: ProjectResolver | undefined, vendorName: string | undefined): BillSummary {
  const bill = record.payload;
  const ref = record.key.startsWith(BILL_REF) ? record.key.slice(BILL_REF.length).replace(TRAILING_IDS, '') : '';
  const amounts = bill.ITEMS.map((item) => decimalProduct(item.RATE, decimalOf(item.QTY) ?? '1'));
  return {
    ref,
    project: projectText(bill.PRJ_ID, resolver),
    vendor: vendorName === undefined ? String(bill.VENDOR_ID) : `${vendorName} (${bill.VENDOR_ID})`,
    lines: bill.ITEMS.length,
    total: groupedDecimalText(decimalSum(amounts)),
  };
}

/** The estimate's summary: its total as the sheet shows it, qty × unit_cost of every item (an item lacking either adds 0). */
export function estimateSummary(estimate: EstimatePayload, resolver: ProjectResolver | undefined): EstimateSummary {
  const cats = estimate.CATS ?? [];
  const amounts: string[] = [];
  let items = 0;
  for (const cat of cats) {
    for (const sub of cat.SUBCATS ?? []) {
      for (const item of sub.ITEMS ?? []) {
        items++;
        const qty = decimalOf(item.QTY);
        const cost = decimalOf(item.UNIT_COST);
        if (qty !== undefined && cost !== undefined) amounts.push(decimalProduct(qty, cost));
      }
    }
  }
  return { project: projectText(estimate.PROJECT_ID, resolver), name: estimate.NAME, categories: cats.length, items, total: groupedDecimalText(decimalSum(amounts)) };
}
