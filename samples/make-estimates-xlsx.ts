/**
 * Builds samples/estimates.xlsx from samples/estimates.csv, the way a spreadsheet user would
 * have it: IDs, quantities and amounts as numbers (amounts in a currency format, percentages as
 * plain numbers), booleans as TRUE/FALSE cells. The data sheet is the first one; a second sheet,
 * "Alternates", holds another estimate, to be read with --sheet Alternates.
 *
 *   npx tsx samples/make-estimates-xlsx.ts
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { parseBoolean, parseNumber } from '../src/mapping/index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const NUMERIC = new Set(['project_id', 'cost_code_id', 'qty', 'unit_cost', 'adjustment', 'line_item_markup', 'total_price', 'markup_value', 'markup_type']);
const MONEY = new Set(['unit_cost', 'adjustment', 'total_price']);
const BOOLEAN = new Set(['advanced_estimate']);

const rows = parse(readFileSync(path.join(here, 'estimates.csv'), 'utf8'), { columns: false }) as string[][];
const [headers, ...data] = rows as [string[], ...string[][]];

const workbook = new ExcelJS.Workbook();
workbook.created = new Date(Date.UTC(2026, 2, 1));
const sheet = workbook.addWorksheet('Estimates');
sheet.addRow(headers);
for (const row of data) {
  sheet.addRow(
    row.map((text, i) => {
      const column = headers[i]!;
      if (text === '') return null;
      if (NUMERIC.has(column)) return parseNumber(text);
      if (BOOLEAN.has(column)) return parseBoolean(text);
      return text;
    }),
  );
}
headers.forEach((column, i) => {
  if (MONEY.has(column)) sheet.getColumn(i + 1).numFmt = '"$"#,##0.00;("$"#,##0.00)';
});

const alternates = workbook.addWorksheet('Alternates');
alternates.addRow(['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'unit', 'qty', 'unit_cost']);
alternates.addRow([10049, 'School fit-out alternate', 'Finishes', 'Flooring', 'Sheet vinyl', 'sf', 2200, 3.4]);
alternates.addRow([10049, 'School fit-out alternate', 'Finishes', 'Paint', 'Corridor walls', 'sf', 5400, 0.95]);

await workbook.xlsx.writeFile(path.join(here, 'estimates.xlsx'));
console.log(`wrote ${path.join(here, 'estimates.xlsx')}: ${data.length} rows on "Estimates", 2 on "Alternates"`);
