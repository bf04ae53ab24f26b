import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import { ConfigError } from '../errors/index.ts';
import { DELIMITER_OPTIONS } from '../tables/delimiter.ts';
import { isEncodingOption, unknownEncodingText } from '../tables/encodings.ts';

/**
 * The `--mapping MAP.json` file (docs/reading-rules.md, §4): how a spreadsheet whose headers differ from
 * the canonical columns is read.
 *
 * ```json
 * {
 *   "columns":   { "Job #": "project_id", "Cost": "unit_cost" },
 *   "ignore":    ["Internal ref", "Comments"],
 *   "constants": { "estimate_name": "Base bid", "unit": "ea" },
 *   "encoding": "cp1252", "dateFormat": "DMY", "decimalSeparator": ",", "headerRow": 5, "hidden": "skip",
 *   "kinds": {"column": "Type", "bill": ["PI"], "credit": ["PC"], "ignore": ["SP"]},
 *   "status": {"column": "Status", "keep": ["PAID"], "ignore": ["VOIDED"]},
 *   "credits": "negative", "discounts": "apply", "ignoreTax": true,
 *   "fillDown": ["bill_ref", "vendor"], "layout": "sections", "totalLabels": ["Balance due"],
 *   "notCurrency": ["Area"], "amountCurrency": "account",
 *   "summaryRows": {"column": "Main Line", "values": ["*"]}
 * }
 * ```
 * `encoding` to `hidden`, `fillDown` and `layout` say how the file is read, as `--encoding`,
 * `--date-format`, `--decimal-separator`, `--header-row`, `--hidden`, `--fill-down` and `--layout`
 * do (docs/reading-rules.md, §3a); a saved mapping thus reads next month's export the same way;
 * `totalLabels` adds labels of total rows; `notCurrency` and `amountCurrency` settle what a
 * currency column means (`currency-columns.ts`); `summaryRows` says how a bill file's summary rows
 * are known (or `"none"`: it has none). `kinds` and `status` (bills) say which rows of an
 * accounting export are bills, credits or neither (`bill-kinds.ts`); `credits`, `discounts` and
 * `ignoreTax` are `--credits negative`, `--discounts apply` and `--ignore-tax` (given, either
 * decides whatever `ignore` lists; `false` says the amounts stop their rows).
 * Header names on the left of `columns` and in `ignore` are matched like headers are (case,
 * spaces, `_`, `-` and `.` ignored); entries naming a header the file does not have are allowed,
 * so one mapping serves several exports. Constants give a column one value on every row.
 */
export const MappingFileSchema = z
  .object({
    /** Header in the file → canonical column it fills. */
    columns: z.record(z.string().min(1, 'a header name cannot be empty'), z.string().min(1, 'a column name cannot be empty')).default({}),
    /** Headers in the file to skip. */
    ignore: z.array(z.string().min(1, 'a header name cannot be empty')).default([]),
    /** Canonical column → the value it has on every row. */
    constants: z.record(z.string().min(1, 'a column name cannot be empty'), z.union([z.string(), z.number(), z.boolean()], { error: 'a constant must be text, a number or true/false' })).default({}),
    /** As `--encoding`. */
    encoding: z.string({ error: 'encoding must be text: "auto", "utf8", "utf16le", "utf16be", "cp1252" or a WHATWG encoding label' }).refine(isEncodingOption, { error: (i) => `encoding ${unknownEncodingText(String(i.input))}` }).optional(),
    /** As `--delimiter`. */
    delimiter: z.enum(DELIMITER_OPTIONS, { error: 'delimiter must be "auto", ",", ";", "tab" or "pipe"' }).optional(),
    /** As `--date-format`. */
    dateFormat: z.enum(['auto', 'YMD', 'MDY', 'DMY'], { error: 'dateFormat must be "auto", "YMD", "MDY" or "DMY"' }).optional(),
    /** As `--decimal-separator`. */
    decimalSeparator: z.enum(['auto', '.', ','], { error: 'decimalSeparator must be "auto", "." or ","' }).optional(),
    /** As `--header-row`: the line (CSV) or sheet row (.xlsx) of the header row. */
    headerRow: z.number({ error: 'headerRow must be a line number (1 or more)' }).int('headerRow must be a whole line number').min(1, 'headerRow must be a line number (1 or more)').optional(),
    /** As `--hidden`: how hidden rows and hidden columns of an .xlsx are read. */
    hidden: z.enum(['include', 'skip'], { error: 'hidden must be "include" or "skip"' }).optional(),
    /** Bills: what each value of a kind column (`Type`) makes of its row (README, "Kinds of rows"). */
    kinds: z
      .object({
        column: z.string().min(1, 'kinds.column names the header of the kind column'),
        bill: z.array(z.string()).default([]),
        credit: z.array(z.string()).default([]),
        ignore: z.array(z.string()).default([]),
      })
      .strict()
      .optional(),
    /** Bills: which values of a status column (`Status`) are kept and which ignored. */
    status: z
      .object({
        column: z.string().min(1, 'status.column names the header of the status column'),
        keep: z.array(z.string()).default([]),
        ignore: z.array(z.string()).default([]),
      })
      .strict()
      .optional(),
    /** As `--credits negative`: a credit is sent as a bill whose rates are negative. */
    credits: z.enum(['negative'], { error: 'credits must be "negative" (or leave it out: credits are not sent)' }).optional(),
    /**
     * As `--discounts apply`: a discount column's percentage is taken off the rate. `false` says
     * outright that discounts are not applied: a discount stops its row. Either value decides,
     * whether or not `ignore` lists the column (the import page writes it so; README, "Amounts
     * the service cannot hold").
     */
    discounts: z.union([z.literal('apply'), z.literal(false)], { error: 'discounts must be "apply" or false (or leave it out: a discount stops its row)' }).optional(),
    /**
     * As `--ignore-tax`: tax amount and tax rate columns not mapped to tax_percent are left out.
     * `false` says outright that tax is not ignored: a tax amount stops its row, whether or not
     * `ignore` lists its column.
     */
    ignoreTax: z.boolean({ error: 'ignoreTax must be true or false' }).optional(),
    /** As `--fill-down`: canonical columns whose empty cells take the value of the row above. */
    fillDown: z.array(z.string().min(1, 'a column name cannot be empty'), { error: 'fillDown must be a list of column names, e.g. ["bill_ref", "vendor"]' }).optional(),
    /** As `--layout sections`: heading rows give the category of the rows under them. */
    layout: z.enum(['sections'], { error: 'layout must be "sections"' }).optional(),
    /** Headers of columns whose values look like currency codes (`ALL`) but name none: not currency columns (README, "Amounts the service cannot hold"). */
    notCurrency: z.array(z.string().min(1, 'a header name cannot be empty'), { error: 'notCurrency must be a list of headers, e.g. ["Area"]' }).optional(),
    /** `"account"`: the mapped amounts are in the account's currency, whatever the row's currency column names (the original currency). */
    amountCurrency: z.enum(['account'], { error: 'amountCurrency must be "account" (or leave it out: a row in another currency stops)' }).optional(),
    /**
     * Bills: how the file's summary rows (a row repeating its bill's total without a label,
     * NetSuite's "Main Line") are known: the rows whose `column` holds one of `values` are
     * ignored as totals, each checked against its bill's lines (without `values`: every row with a
     * value in `column`); `"none"`: the file has none, such rows are lines.
     */
    summaryRows: z
      .union([
        z.literal('none'),
        z.object({
          column: z.string().min(1, 'summaryRows.column names the header of the column that marks summary rows'),
          values: z.array(z.string().min(1, 'a value cannot be empty')).min(1, 'summaryRows.values lists the values that mark a summary row, e.g. ["*"]; leave it out for any value').optional(),
        }).strict(),
      ], { error: 'summaryRows must be "none" or {"column": "<header>", "values": ["<value>"]} (without "values": any value)' })
      .optional(),
    /** More labels of total rows (besides Total, Subtotal, Sub-total, Grand total, Total for, Invoice total). */
    totalLabels: z.array(z.string().min(1, 'a total label cannot be empty'), { error: 'totalLabels must be a list of labels, e.g. ["Balance due"]' }).optional(),
  })
  .strict();

export type MappingFile = z.infer<typeof MappingFileSchema>;

/** A mapping's rules of rows (`kinds`, `status`, `totalLabels`), checked as the mapping file checks them. */
export const MappingRulesSchema = MappingFileSchema.pick({ kinds: true, status: true, totalLabels: true });

export type MappingRules = z.infer<typeof MappingRulesSchema>;

/** Reads and validates a mapping file; every problem is a `ConfigError` naming the file and what to write. */
export async function loadMappingFile(path: string): Promise<MappingFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'there is no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
    throw new ConfigError(`cannot read the mapping file ${path}: ${why}. Check the --mapping path.`, { cause: err });
  }
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new ConfigError(`the mapping file ${path} is not valid JSON (${(err as Error).message}). ${EXAMPLE}`, { cause: err });
  }
  return parseMappingFile(json, path);
}

/** Validates an already-parsed mapping (a built-in preset, or JSON from elsewhere). */
export function parseMappingFile(json: unknown, source: string): MappingFile {
  const result = MappingFileSchema.safeParse(json);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)';
    const message = issue.code === 'unrecognized_keys' ? `unknown key(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}; ${issue.path.length > 0 ? NESTED_KEYS[String(issue.path[0])] ?? 'not allowed here' : ALLOWED_KEYS}` : issue.message;
    return `${where}: ${message}`;
  });
  throw new ConfigError([{ kind: 'mapping-file' }, ` ${source} is invalid: ${problems.join('; ')}. ${EXAMPLE}`]);
}

const ALLOWED_KEYS = 'only "columns", "ignore", "constants", "encoding", "delimiter", "dateFormat", "decimalSeparator", "headerRow", "hidden", "kinds", "status", "credits", "discounts", "ignoreTax", "fillDown", "layout", "totalLabels", "notCurrency", "amountCurrency" and "summaryRows" are allowed';
const NESTED_KEYS: Record<string, string> = {
  kinds: '"kinds" takes "column", "bill", "credit" and "ignore"',
  status: '"status" takes "column", "keep" and "ignore"',
  summaryRows: '"summaryRows" takes "column" and "values"',
};

const EXAMPLE = 'Expected {"columns": {"<header in file>": "<column>"}, "ignore": ["<header>"], "constants": {"<column>": "<value>"}}.';
