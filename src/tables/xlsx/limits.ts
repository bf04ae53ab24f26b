import { FileError } from '../../errors/index.ts';

/*
 * The bounds on every dimension of a workbook (README, "Reading a file as it was meant"), checked while it is read: each is
 * counted as its part is parsed and refused the moment it is passed, before the memory or the time
 * it would take is spent. They sit beside the reader's other guards: the zip's (a part must inflate
 * to the size its directory says, a directory of at most 64 MiB: `zip.ts`), a run of XML text cut
 * at a cell's worth (`xml.ts`), and saxes, which expands no entity a document declares (no XXE, no
 * billion laughs). Each limit is far above what a spreadsheet program writes (Excel's own sheet is
 * 1,048,576 rows by 16,384 columns), so only a damaged or hostile file meets one.
 */

export const XLSX_LIMITS = {
  /** Elements open at once in any part (Excel writes at most about 8: worksheet, sheetData, row, c, is, r, t). */
  depth: 64,
  /** `<sheet>`s in `xl/workbook.xml` (Excel's tabs). */
  sheets: 1_000,
  /** `<si>`s in the shared strings. */
  sharedStrings: 2_000_000,
  /** Characters of all shared strings together. */
  sharedCharacters: 50_000_000,
  /** `<mergeCell>`s of one sheet. */
  mergedRanges: 100_000,
  /** `<col>` definitions of one sheet. */
  columnDefinitions: 16_384,
  /** Rows of one sheet (Excel's limit): no row number above it. */
  rows: 1_048_576,
} as const;

export type XlsxLimit = keyof typeof XLSX_LIMITS;

/** What each limit counts, and over what, as a message names it. */
const COUNTED: Record<XlsxLimit, [what: string, per: string]> = {
  depth: ['elements nested in one another', 'part'],
  sheets: ['sheets', 'workbook'],
  sharedStrings: ['shared strings', 'workbook'],
  sharedCharacters: ['characters of shared strings', 'workbook'],
  mergedRanges: ['merged ranges', 'sheet'],
  columnDefinitions: ['column definitions (<col>)', 'sheet'],
  rows: ['rows', 'sheet'],
};

/** Where a part is read: the file as the user named it, and the part's path inside the workbook. */
export interface PartOf {
  file: string;
  part: string;
}

/**
 * The error for `limit` passed in `where`: exit 2, naming the limit, its number and the part, e.g.
 * `book.xlsx: xl/worksheets/sheet1.xml holds more than 100,000 merged ranges (the limit)`.
 */
export function limitPassed(where: PartOf, limit: XlsxLimit, detail = ''): FileError {
  const n = XLSX_LIMITS[limit].toLocaleString('en-US');
  const [what, per] = COUNTED[limit];
  return new FileError(
    where.file,
    `${where.file}: ${where.part} holds more than ${n} ${what}${detail}, past the limit of ${n} ${what} per ${per}: ` +
      'the workbook is damaged or was not written by a spreadsheet program. Open it in Excel or LibreOffice and save it again as .xlsx, or export the sheet as CSV.',
  );
}

/** Counts one more of `limit` in `where`; throws once the count passes the limit. */
export class LimitCounter {
  count = 0;
  constructor(
    private readonly where: PartOf,
    private readonly limit: XlsxLimit,
  ) {}

  add(n = 1): void {
    this.count += n;
    if (this.count > XLSX_LIMITS[this.limit]) throw limitPassed(this.where, this.limit);
  }
}
