/**
 * "Did you mean" for headers (docs/reading-rules.md, §7): which known column an unknown header most
 * likely is, and which header of a file a mapping entry most likely meant. Shared by the CLI's
 * messages (`resolveColumns`) and the import page, which preselects its column comboboxes with it.
 *
 * Two sources, tried in order:
 *   1. a table of the names other systems give these columns (`UOM` → unit, `Job #` →
 *      project_number, `Invoice #` → bill_ref, …), each name listing its columns in order of
 *      preference, so `Description` is `description` for estimates and `item_description` for bills;
 *   2. spelling: the Damerau-Levenshtein distance (optimal string alignment) between the
 *      comparable forms, within a threshold that grows with the length of the shorter name,
 *      so `Quantiy` is qty but `red` is not bill_ref.
 * Only columns in the `known` list passed in are ever proposed; a suggestion is a hint in a
 * message, never a reading: the user confirms it with a mapping file.
 *
 * This module does not import `header.ts` (which imports it): `looseName` is a superset of
 * `normalizeHeader`, so two names equal for the importer are equal here too.
 */

/**
 * A name in the form compared here: lower case letters and digits only, with `#` read as
 * "number" and `%` as "percent" (`Job #` = `Job number`, `Tax %` = `Tax percent`). Also drops
 * Xero's leading `*` and any other punctuation.
 */
export function looseName(name: string): string {
  return name
    .toLowerCase()
    .replace(/#/g, 'number')
    .replace(/%/g, 'percent')
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * Marks names that are a mere guess of their column: a line's `Amount` is most often its total
 * (quantity times the unit price), not the unit price; a `Description` may be any text of the
 * row. A guess from such a name yields to every better match (`guessColumn`'s strength), and to
 * any column of the same meaning the file gives (`SAME_MEANING`): a file with `Unit Cost` never
 * has its `Amount` read as the rate.
 */
const WEAK = 'weak';

/**
 * Other names of the canonical columns, written in any spelling (`looseName` is applied), each
 * with its columns in order of preference: the first one the importer knows is proposed.
 */
const SYNONYMS: ReadonlyArray<readonly [readonly string[], readonly string[], typeof WEAK?]> = [
  // Projects
  [['Job', 'Job number', 'Job #', 'Job No', 'Job num', 'Project No', 'Project #', 'Project num', 'Proj number', 'Proj No', 'Project code', 'Job code'], ['project_number']],
  [['Job name', 'Project', 'Project title', 'Proj name', 'Customer', 'Customer:Job', 'Customer job', 'Customer project'], ['project_name']],
  [['Proj ID', 'Job ID', 'Project key'], ['project_id']],
  // Estimates
  [['Estimate', 'Estimate title', 'Estimate name', 'Bid', 'Bid name', 'Proposal', 'Proposal name'], ['estimate_name']],
  [['Cat', 'Category name', 'Cost category', 'Division', 'Cost division', 'Group'], ['category']],
  [['Subcat', 'Sub cat', 'Subcategory name', 'Sub category name', 'Cost group', 'Subgroup', 'Subdivision'], ['subcategory']],
  [['Item', 'Line item', 'Item name', 'Line', 'Product', 'Product/Service', 'Product service', 'Service', 'Line name'], ['item', 'item_name']],
  [['Description', 'Desc', 'Descr', 'Details'], ['description', 'item_description'], WEAK],
  [['Item description', 'Line description'], ['description', 'item_description']],
  [['Code', 'Cost code name', 'Costcode', 'Phase code'], ['cost_code']],
  [['Cost code #', 'Cost code number'], ['cost_code_id', 'cost_code']],
  [['UOM', 'U/M', 'UM', 'Unit of measure', 'Unit of measurement', 'Units', 'Measure', 'Unit type'], ['unit']],
  [['Quantity', 'Qnty', 'Qtys', 'Quantities', 'Quant', 'Count', 'No of units', 'Number of units'], ['qty']],
  [['Unit Price', 'Price', 'Cost each', 'Price each', 'Each', 'Cost per unit', 'Price per unit', 'Unit costs', 'Cost', 'Unit rate'], ['unit_cost', 'rate']],
  [['Amount', 'Line amount', 'Line amt', 'Amt', 'Line total', 'Extended amount', 'Ext amount'], ['rate'], WEAK],
  [['Unit amount'], ['rate']],
  [['Total', 'Estimate total', 'Contract price', 'Total amount', 'Grand total'], ['total_price']],
  [['Markup', 'Markup label'], ['markup_name']],
  [['Markup amount', 'Markup percent', 'Markup %', 'Markup pct', 'Markup rate'], ['markup_value']],
  [['Markup kind'], ['markup_type']],
  [['Notes', 'Note', 'Memo', 'Comment', 'Comments', 'Remarks'], ['notes', 'general_notes']],
  // Bills
  [['Supplier', 'Vendor name', 'Supplier name', 'Payee', 'Contact', 'Contact name', 'Subcontractor'], ['vendor']],
  [['Supplier ID', 'Vendor number', 'Vendor #', 'Vendor No', 'Supplier number', 'Supplier No'], ['vendor_id']],
  [['Invoice', 'Invoice #', 'Invoice number', 'Invoice No', 'Invoice ref', 'Bill', 'Bill #', 'Bill number', 'Bill No', 'Bill reference', 'Ref', 'Ref No', 'Document number', 'Doc number'], ['bill_ref']],
  [['Date', 'Bill date', 'Invoice dt', 'Document date', 'Doc date'], ['invoice_date']],
  [['Due', 'Due by', 'Due on', 'Payment due', 'Payment due date', 'Date due'], ['due_date']],
  [['Received', 'Date received', 'Received on', 'Recieved date'], ['received_date']],
  [['Approved by', 'Approved'], ['approver']],
  [['Approved on', 'Approved date', 'Date approved'], ['approval_date']],
  [['Bill title', 'Subject'], ['title']],
  [['Ready to pay', 'Approved for payment', 'Ok to pay'], ['ready_for_payment']],
  [['Tax', 'Tax rate', 'Tax %', 'Tax pct', 'Tax percentage', 'VAT', 'VAT rate', 'GST', 'Sales tax'], ['tax_percent']],
  [['Tax type', 'Tax code'], ['tax_type_id']],
  [['Type'], ['bill_type']],
];

/** looseName → columns, in order of preference. */
const SYNONYM_INDEX: ReadonlyMap<string, readonly string[]> = (() => {
  const index = new Map<string, readonly string[]>();
  for (const [names, columns] of SYNONYMS) for (const n of names) if (!index.has(looseName(n))) index.set(looseName(n), columns);
  return index;
})();

/** The loose names that are a mere guess (`WEAK`). */
const WEAK_NAMES: ReadonlySet<string> = new Set(SYNONYMS.filter(([, , weak]) => weak === WEAK).flatMap(([names]) => names.map(looseName)));

/**
 * Columns that hold the same thing in two fields of the service: a line's price per unit is its
 * `unit_cost` or its `rate`. A mere guess of one yields to the other given by a better match.
 */
const SAME_MEANING: ReadonlyArray<readonly string[]> = [['unit_cost', 'rate']];

/** The columns of the same meaning as `column` (itself included). */
export function sameMeaning(column: string): readonly string[] {
  return SAME_MEANING.find((group) => group.includes(column)) ?? [column];
}

/**
 * How well a header names a column, best first: its own name in a loose spelling (`Unit-Cost`),
 * another name of it (`UOM`), a near spelling (`Quantiy`), a mere guess (`Amount`, `WEAK`).
 */
export const GUESS_STRENGTHS = ['name', 'synonym', 'spelling', 'weak'] as const;
export type GuessStrength = (typeof GUESS_STRENGTHS)[number];

/** A column a header most likely is, and how well it names it. */
export interface ColumnGuess {
  column: string;
  strength: GuessStrength;
}

/** Names longer than this are not compared by spelling: no column name is near that long. */
const MAX_FUZZY_LENGTH = 64;

/** How many edits a pair of names may differ by, from the length of the shorter one. */
function threshold(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  if (n <= 3) return 0; // `red` vs `ref`: too short to tell a typo from another word
  if (n <= 5) return 1;
  if (n <= 9) return 2;
  return 3;
}

/**
 * Damerau-Levenshtein distance (optimal string alignment: insertions, deletions, substitutions
 * and transpositions of neighbours), or `limit + 1` as soon as it must exceed `limit`.
 */
export function editDistance(a: string, b: string, limit = Number.MAX_SAFE_INTEGER): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  if (a === b) return 0;
  const m = a.length;
  const n = b.length;
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  let cur = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= m; i++) {
    cur[0] = i;
    let rowMin = cur[0];
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > limit) return limit + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[n]!;
}

/** The distance of two loose names when within their threshold, else undefined. */
function near(a: string, b: string): number | undefined {
  if (a.length > MAX_FUZZY_LENGTH || b.length > MAX_FUZZY_LENGTH) return undefined;
  const limit = threshold(a, b);
  if (limit === 0) return undefined;
  const d = editDistance(a, b, limit);
  return d <= limit ? d : undefined;
}

/**
 * The known column an unknown header most likely is, or undefined when nothing is close.
 * Only a column of `known` is returned. An exact other name (`UOM`) wins over a spelling
 * match; among spelling matches the closest wins, ties going to the earlier column of `known`.
 */
export function suggestColumn(header: string, known: readonly string[]): string | undefined {
  return guessColumn(header, known)?.column;
}

/** `suggestColumn`'s column, with how well the header names it (`GuessStrength`). */
export function guessColumn(header: string, known: readonly string[]): ColumnGuess | undefined {
  const name = looseName(header);
  if (name === '') return undefined;
  const byLoose = new Map<string, string>();
  for (const k of known) if (!byLoose.has(looseName(k))) byLoose.set(looseName(k), k);
  const direct = byLoose.get(name);
  if (direct !== undefined) return { column: direct, strength: 'name' };
  const synonym = firstKnown(SYNONYM_INDEX.get(name), known);
  if (synonym !== undefined) return { column: synonym, strength: WEAK_NAMES.has(name) ? 'weak' : 'synonym' };

  let best: ColumnGuess | undefined;
  let bestDistance = Infinity;
  let bestRank = Infinity;
  // A near spelling of a mere guess (`Amout`) is a mere guess too.
  const consider = (column: string | undefined, d: number | undefined, weak = false): void => {
    if (column === undefined || d === undefined) return;
    const rank = known.indexOf(column);
    if (d < bestDistance || (d === bestDistance && rank < bestRank)) {
      best = { column, strength: weak ? 'weak' : 'spelling' };
      bestDistance = d;
      bestRank = rank;
    }
  };
  for (const [loose, column] of byLoose) consider(column, near(name, loose));
  for (const [loose, columns] of SYNONYM_INDEX) {
    const column = firstKnown(columns, known);
    if (column !== undefined) consider(column, near(name, loose), WEAK_NAMES.has(loose));
  }
  return best;
}

function firstKnown(columns: readonly string[] | undefined, known: readonly string[]): string | undefined {
  return columns?.find((c) => known.includes(c));
}

/**
 * The header of `headers` that a mapping entry most likely meant, or undefined. `entry` is the
 * header the mapping names; `column`, when given, the column it maps to. In order: the same
 * name, a near spelling (the closest), one name starting with the other (`Internal ref` →
 * `Internal_Reference`), another name of the same column (`Bill Number` → `Bill No`). Headers the file already reads as known columns are not proposed
 * unless `known` is empty.
 */
export function suggestHeader(entry: string, headers: readonly string[], known: readonly string[], column?: string): string | undefined {
  const name = looseName(entry);
  if (name === '') return undefined;
  const knownLoose = new Set(known.map(looseName));
  const entryColumn = column ?? suggestColumn(entry, known);
  let best: string | undefined;
  let bestScore = Infinity;
  for (const header of headers) {
    const loose = looseName(header);
    if (loose === '' || knownLoose.has(loose)) continue;
    let score: number | undefined;
    if (loose === name) score = 0;
    else {
      const d = near(name, loose);
      if (d !== undefined) score = d;
      else if (Math.min(name.length, loose.length) >= 4 && (loose.startsWith(name) || name.startsWith(loose))) score = 5;
      else if (entryColumn !== undefined && suggestColumn(header, known) === entryColumn) score = 10;
    }
    if (score !== undefined && score < bestScore) {
      best = header;
      bestScore = score;
    }
  }
  return best;
}
