/**
 * `buildsync template estimates|bills` (README, Commands): an empty spreadsheet with every column
 * of §3 or §4, in the order the importer lists them, and one example row that imports cleanly,
 * for a user to fill in.
 *
 * Decisions:
 *   - A row names its project by one of project_id / project_number / project_name, and its
 *     vendor by vendor_id or vendor; the template has only `project_id` and `vendor_id`, since a
 *     row giving two must make them agree. The others are named in the README and in messages.
 *   - The example is one line of an estimate (category, subcategory and item) or one line of a
 *     bill. Markup columns stay empty: a markup goes on a row of its own, without category.
 *     Fields whose codes the seed does not give (STATUS, CLASSIFICATION, …) stay empty too.
 *   - .xlsx by the name (`.xlsx`, any case), otherwise CSV in UTF-8 (no BOM: the text is ASCII).
 *     In .xlsx the example's numbers, dates and booleans are typed cells, as a spreadsheet user
 *     would enter them; in CSV dates are `YYYY-MM-DD` and booleans `true`/`false`.
 *   - An existing file is never overwritten (`wx`): the user removes it or picks another name.
 */
import { writeFile } from 'node:fs/promises';
import { stringify } from 'csv-stringify/sync';
import ExcelJS from 'exceljs';
import { FileError, UsageError } from '../errors/index.ts';
import { BILL_COLUMNS, ESTIMATE_COLUMNS } from '../mapping/index.ts';

export type TemplateKind = 'estimates' | 'bills';
export type TemplateFormat = 'csv' | 'xlsx';

type ExampleValue = string | number | boolean | { date: string } | { money: number };

/**
 * Columns a row may give only one of (the template keeps the first of each set: `tax_percent`
 * over `tax_amount`), and `currency`, which only checks what the account's currency says.
 */
const LEFT_OUT = new Set(['project_number', 'project_name', 'vendor', 'tax_amount', 'currency']);

const EXAMPLES: Record<TemplateKind, Record<string, ExampleValue>> = {
  estimates: {
    project_id: 10039,
    estimate_name: 'Kitchen remodel',
    category: 'Cabinets',
    subcategory: 'Base cabinets',
    item: 'Shaker base cabinet 36 in',
    description: 'Supply and install, soft-close hinges',
    cost_code: '06-4100',
    cost_code_id: 310,
    unit: 'ea',
    qty: 4,
    unit_cost: { money: 450 },
    general_notes: 'Owner to confirm the finish',
    advanced_estimate: false,
    five_column_estimate: false,
    total_price: { money: 1800 },
  },
  bills: {
    bill_ref: 'INV-1001',
    project_id: 10039,
    vendor_id: 55,
    title: 'Concrete for kitchen slab',
    due_date: { date: '2026-04-01' },
    invoice_date: { date: '2026-03-02' },
    received_date: { date: '2026-03-04' },
    active: true,
    ready_for_payment: false,
    notes: 'Net 30',
    item_name: 'Ready-mix 4000 psi',
    rate: { money: 1250 },
    qty: 6,
    unit: 'cy',
    item_description: 'Delivered with pump',
    cost_code_id: 310,
    tax_percent: 8.25,
  },
};

/** The template's columns, in the importer's order (docs/reading-rules.md, §4). */
export function templateColumns(kind: TemplateKind): string[] {
  return (kind === 'estimates' ? ESTIMATE_COLUMNS : BILL_COLUMNS).filter((c) => !LEFT_OUT.has(c));
}

/** `xlsx` when the path ends in `.xlsx` (any case), else `csv`; `-` (standard output) is CSV. */
export function templateFormat(path: string | undefined): TemplateFormat {
  return path !== undefined && path !== '-' && /\.xlsx$/i.test(path) ? 'xlsx' : 'csv';
}

function csvText(value: ExampleValue | undefined): string {
  if (value === undefined) return '';
  if (typeof value === 'object') return 'date' in value ? value.date : value.money.toFixed(2);
  return String(value);
}

/** The template as CSV text: the header row and the example row, each ending in a newline. */
export function templateCsv(kind: TemplateKind): string {
  const columns = templateColumns(kind);
  const example = EXAMPLES[kind];
  return stringify([columns, columns.map((c) => csvText(example[c]))]);
}

/** The template as an .xlsx workbook: one sheet named after the kind. */
export async function templateXlsx(kind: TemplateKind): Promise<Buffer> {
  const columns = templateColumns(kind);
  const example = EXAMPLES[kind];
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet(kind === 'estimates' ? 'Estimates' : 'Bills', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.addRow(columns).font = { bold: true };
  const row = sheet.addRow(columns.map(() => null));
  columns.forEach((column, i) => {
    const value = example[column];
    const cell = row.getCell(i + 1);
    if (value === undefined) return;
    if (typeof value !== 'object') cell.value = value;
    else if ('date' in value) {
      // exceljs writes a Date's UTC fields as the wall-clock date (as its reader returns them).
      cell.value = new Date(`${value.date}T00:00:00Z`);
      cell.numFmt = 'yyyy-mm-dd';
    } else {
      cell.value = value.money;
      cell.numFmt = '#,##0.00';
    }
  });
  columns.forEach((column, i) => {
    sheet.getColumn(i + 1).width = Math.max(column.length, csvText(example[column]).length) + 2;
  });
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/**
 * Writes the template to `path` (a new file: an existing one is refused) in the format its name
 * says. Standard output is the command's business: call `templateCsv` for it.
 */
export async function writeTemplate(kind: TemplateKind, path: string): Promise<TemplateFormat> {
  const format = templateFormat(path);
  const data = format === 'xlsx' ? await templateXlsx(kind) : templateCsv(kind);
  try {
    await writeFile(path, data, { flag: 'wx' });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      throw new UsageError(`${path} already exists; the template never overwrites a file. Remove it, or choose another name with --out.`, { cause: err });
    }
    const why = code === 'ENOENT' ? 'its directory does not exist' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EISDIR' ? 'it is a directory' : (err as Error).message;
    throw new FileError(path, `cannot write ${path}: ${why}. Choose another path with --out.`, { cause: err });
  }
  return format;
}
