/**
 * Fast paths in front of the value parsers of `values.ts`, for the planning loop (a
 * 1,000,000-row import must stay close to raw csv-parse speed). Each returns exactly what the
 * full parser would; only the common, unambiguous shapes skip it.
 */
import type { CellValue } from '../csv/index.ts';
import { parseNumber, parseText } from './values.ts';

/** `parseText`: a string with no white space at either end is returned as it is. */
export function textOf(cell: CellValue): string | undefined {
  if (typeof cell === 'string' && cell.length > 0) {
    const first = cell.charCodeAt(0);
    const last = cell.charCodeAt(cell.length - 1);
    // Printable ASCII at both ends: nothing for trim() to remove.
    if (first > 32 && first < 127 && last > 32 && last < 127) return cell;
  }
  return parseText(cell);
}

/** Plain decimal notation (`12`, `-3`, `14.25`), which `Number` reads exactly as `parseNumber` does. */
const PLAIN_NUMBER = /^-?\d{1,15}(?:\.\d{1,15})?$/;

/** `parseNumber` with a fast path for plain decimals. */
export function numberOf(cell: CellValue): number | undefined {
  if (typeof cell === 'string' && PLAIN_NUMBER.test(cell)) return Number(cell) || 0; // `|| 0`: no -0
  return parseNumber(cell);
}

/**
 * Shares one string among equal cell values. Spreadsheet columns repeat themselves (units, cost
 * codes, category names, boilerplate notes), and every open estimate keeps its strings until the
 * file ends: sharing them cuts the plan's memory and the garbage collector's work. Bounded, so a
 * file of all-different texts costs at most `limit` map entries.
 */
export class Interner {
  private readonly seen = new Map<string, string>();
  constructor(private readonly limit = 100_000) {}

  get(s: string): string {
    const known = this.seen.get(s);
    if (known !== undefined) return known;
    if (this.seen.size < this.limit) this.seen.set(s, s);
    return s;
  }

  clear(): void {
    this.seen.clear();
  }
}
