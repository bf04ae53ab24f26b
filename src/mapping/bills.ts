/**
 * Bill CSV rows → bill payloads (README, import bills, docs/service.md, Bills).
 *
 * Rows with the same bill_ref, project and vendor are one bill, one item per row in file
 * order; rows need not be adjacent. A file without a bill_ref column is one bill per row.
 *
 * Decisions where the contract is silent:
 *   - A blank bill_ref on a row of a file that has the column makes that row a bill of its own,
 *     keyed like the rows of a file without the column.
 *   - Blank cells are "not given": bill-level fields must agree only among the rows that give
 *     them. A different non-blank value on a later row makes that row invalid, naming both values.
 *   - RATE keeps the exact decimal text typed (`parseRateText`); the API's encoder writes it
 *     with the two decimals of the wire form, and a rate with more decimals that are not zeros
 *     is a row error (README, import bills: never rounded). QTY and TAX_PERCENT are JSON numbers: the seed's
 *     observed shape makes only identifiers and RATE decimal text.
 *   - APPROVER is a user ID (sent as an identifier) when it is a whole number, else the name
 *     as written. BILL_TYPE, TRADE and TRAFFIC_COLOR are sent as written (text).
 *   - `vendor_id` wins over `vendor`; when a row has both and the vendors file gives the name
 *     another ID, the row is invalid.
 *   - As with estimates, a bill with any invalid row is not sent at all (never half a bill).
 *   - `bill:row:` keys count occurrences among the valid bills of the file.
 *   - bill_ref and vendor names are keys (record-key.ts): `INV-7` and `inv-7 ` are one bill, named
 *     and keyed as first written; a bill_ref Excel wrote in E-notation is a row error.
 */
import type { CellFormat, CellValue, SourceRow } from '../tables/index.ts';
import type { CellProblem, StaticLine } from './report-line.ts';
import { encodeBillInfo, MAX_BILL_QUERY_LENGTH, type BillPayload } from '../payloads/index.ts';
import { BuildsyncError, listAtMost, RowError, wordedLine, wordedOf, type Worded } from '../errors/index.ts';
import { contentHashOfJson } from './content-hash.ts';
import { cellOf, colOf, formatOf, type Col } from './column-cells.ts';
import { numberOf, textOf } from './fast-cells.ts';
import type { BillRowRules } from './bill-row-rules.ts';
import type { ColumnMap } from './header.ts';
import type { MappedRecord } from './mapped-record.ts';
import { ProjectRefReader, type ProjectResolver } from './project-refs.ts';
import { BILL_FIELDS, fieldCols, ITEM_FIELDS, ordered, type FieldCol, type FieldKind } from './bill-columns.ts';
export { BILL_COLUMNS, BILL_DATE_COLUMNS, BILL_NUMBER_COLUMNS } from './bill-columns.ts';
export { billRefReader } from './bill-ref-reader.ts';
import { missingBillColumns } from './required-columns.ts';
import { TaxAmountField } from './tax-amount.ts';
import { CellValueError, parseBoolean, parseDate, parseDecimalText, parseId, parseRateText, parseText, US_RULES, type ReadingRules } from './values.ts';
import type { VendorLookup, VendorNameSink } from './vendors.ts';
import { addLineNote, keyText, parseRef, spellingNote, type LineNotes } from './record-key.ts';
import { groupHolding, stopGroup } from './rows/stop-record.ts';
import { addBadLine, invalidLine, rowErrorCells, rowErrorsColumn, rowErrorsText } from './row-errors.ts';
import type { RecordStopper } from './rows/row-rules.ts';
import { addAmount, centsOf, withNoteOnEvery, type BillAmounts, type HeldSummary, type SummaryRows } from './bill-summary.ts';


interface BillGroup {
  /** The bill_ref as first written, and its `keyText` (the key rows of the bill share). */
  ref: string | undefined;
  refKey: string | undefined;
  /** Rows whose bill_ref is spelled otherwise: the report's note on each. */
  notes: LineNotes | undefined;
  /** In an errors file (README, Reports, re-runs and `unknown`): the `source_line` of the bill's first row, which keeps a row-keyed bill's key. */
  sourceLine: string | undefined;
  /** In an errors file: a row whose earlier import ended `unknown` (its `error` says so). */
  priorUnknown: boolean;
  projectId: number;
  vendorId: number;
  /** `project 1042 / vendor 55` (or the values as written when they cannot be resolved). */
  target: string;
  lines: number[];
  payload: BillPayload & Record<string, unknown>;
  setOn: Map<string, number> | undefined;
  badLines: number[] | undefined;
  badMessages: Worded[] | undefined;
  /** The header of each bad line's bad cell (undefined: its message names none), in parallel. */
  badColumns: Array<string | undefined> | undefined;
  /** The bad rows with several errors: each error with its cell, by line. */
  badCells?: Map<number, CellProblem[]>;
  /** Its key in `byRef` (bills with a bill_ref). */
  mapKey: string | undefined;
  /** Its rows' amounts, and the summary rows the mapping names (bill-summary.ts). */
  amounts?: BillAmounts;
  summaries?: HeldSummary[];
}

export interface BillMapping {
  records: MappedRecord<BillPayload>[];
  statics: StaticLine[];
}

/**
 * What makes a bill `unknown` again when its errors-file row comes back: the `error` cell the
 * errors file wrote for it (`writeErrorsFile` starts such a message with `unknown:`).
 */
const PRIOR_UNKNOWN = /^\s*unknown:/;

/** Groups the rows of one bill file into bills: `add` every data row in file order, then `finish` once. */
export class BillGrouper implements RecordStopper {
  private readonly projects: ProjectRefReader;
  private readonly ref: Col | undefined;
  private readonly vendorId: Col | undefined;
  private readonly vendorName: Col | undefined;
  private readonly billFields: FieldCol[];
  private readonly itemFields: FieldCol[];
  private readonly billScratch: unknown[];
  private readonly itemScratch: unknown[];
  /** `tax_amount`, when mapped: sent as TAX_PERCENT (`tax-amount.ts`). */
  private readonly taxAmount: TaxAmountField | undefined;
  private readonly byRef = new Map<string, BillGroup>();
  /** Every bill not finished yet, in order of its first line. */
  private bills: BillGroup[] = [];
  private loose: StaticLine[] = [];
  /** `bill:row:` keys: occurrences of each content among the valid bills finished so far. */
  private readonly occurrences = new Map<string, number>();
  /** The last line of each bill_ref in the file (`closeBillsAfter`): a bill is complete once it is passed. */
  private lastLineOfRef: ReadonlyMap<string, number> | undefined;
  /** The last line `add` saw. */
  private seen = 0;
  private readonly errors: RowError[] = [];
  /** The row rules' problems with the current row, as [header, message]. */
  private readonly ruleProblems: Array<[string, Worded]> = [];
  private readonly sourceLineIndex: number;
  private readonly errorIndex: number;
  /** Told every vendor name a row gives (the import page's vendor table). */
  vendorNames: VendorNameSink | undefined;
  /** The summary-row rules of the file (`bill-summary.ts`); without them none is looked for. */
  summaries: SummaryRows | undefined;
  /** Where the bill's rates and quantities are among `itemFields`. */
  private readonly rateAt: number;
  private readonly qtyAt: number;

  constructor(
    private readonly file: string,
    private readonly columns: ColumnMap,
    resolver: ProjectResolver | undefined,
    private readonly vendors: VendorLookup | undefined,
    /** How the file writes numbers and dates (settled once per file, `settleReadingRules`). */
    private readonly rules: ReadingRules = US_RULES,
    /** `--resend-unknown`: a bill an errors file says was `unknown` is planned to be sent again. */
    private readonly resendUnknown = false,
    /** Which rows are bills (their kinds rule runs in the row rules before) and which amounts may be sent (`billRowRules`); without it every row is a bill item as written. */
    private readonly rowRules?: BillRowRules,
  ) {
    this.projects = new ProjectRefReader(file, columns, resolver);
    this.ref = colOf(columns, 'bill_ref');
    this.vendorId = colOf(columns, 'vendor_id');
    this.vendorName = colOf(columns, 'vendor');
    this.billFields = fieldCols(columns, BILL_FIELDS);
    this.sourceLineIndex = columns.sourceLineIndex;
    this.errorIndex = columns.errorIndex;
    this.itemFields = fieldCols(columns, ITEM_FIELDS);
    this.billScratch = new Array(this.billFields.length);
    this.itemScratch = new Array(this.itemFields.length);
    this.taxAmount = TaxAmountField.of(this.itemFields);
    this.rateAt = this.itemFields.findIndex((f) => f.column === 'rate');
    this.qtyAt = this.itemFields.findIndex((f) => f.column === 'qty');
  }

  /** Required columns the file lacks, and a vendor column that has no vendors file to read it. */
  missingColumns(): string[] {
    return missingBillColumns(this.columns, this.vendors !== undefined);
  }

  /**
   * Lets `takeFinished` finish a bill as soon as the last row of its bill_ref has been added
   * (`lastLine`: each bill_ref's last line, from a first pass with `billRefReader`), so that a streamed
   * plan holds only the bills still open. Rows without a bill_ref are bills finished at once.
   */
  closeBillsAfter(lastLine: ReadonlyMap<string, number>): void {
    this.lastLineOfRef = lastLine;
  }

  /** A summary row the mapping names (`RecordStopper.summaryRow`): held by its bill, checked once the bill is complete. */
  summaryRow(row: SourceRow, shown: string): void {
    this.add(row, shown);
  }

  /** `summary`: the row is a summary row the mapping names (its column and value), no line of its bill. */
  add(row: SourceRow, summary?: string): void {
    const { line, values, formats } = row;
    this.seen = line;
    const errors = this.errors;
    errors.length = 0;
    if (this.rowRules !== undefined && summary === undefined) {
      const problems = this.ruleProblems;
      problems.length = 0;
      this.rowRules.admit(row, problems);
      for (const [header, message] of problems) errors.push(this.rowError(line, header, message));
    }

    const projectId = this.projects.read(values, line, formats);
    if (projectId === -1) errors.push(this.projects.error!);
    const projectShown = this.projects.shown;
    const projectKey = projectId !== -1 ? String(projectId) : this.projects.unresolvedKey;

    let vendorId = -1;
    let vendorShown = '?';
    let vendorKey = '';
    const idCell = this.cell(this.vendorId, values);
    const nameCell = this.cell(this.vendorName, values);
    const givenId = idCell === null ? undefined : (this.parse('id', idCell, line, this.vendorId!.header, formatOf(this.vendorId, formats)) as number | undefined);
    const givenName = nameCell === null ? undefined : (this.parse('text', nameCell, line, this.vendorName!.header, formatOf(this.vendorName, formats)) as string | undefined);
    if (givenName !== undefined) this.vendorNames?.seen(line, givenName);
    if (givenId !== undefined) {
      vendorId = givenId;
      vendorShown = String(givenId);
      vendorKey = vendorShown;
      if (givenName !== undefined && this.vendors !== undefined) {
        const named = this.vendors.lookup(givenName);
        if (typeof named === 'number' && named !== givenId) {
          errors.push(this.rowError(line, this.vendorName!.header, `vendor ${JSON.stringify(givenName)} is vendor ${named} in ${this.vendors.sourceOf(givenName)}, but vendor_id on the same row is ${givenId}; give one vendor per row`));
        }
      }
    } else if (givenName !== undefined) {
      vendorShown = JSON.stringify(givenName);
      vendorKey = `name:${keyText(givenName)}`;
      const found: number | Worded = this.vendors === undefined
        ? [`vendor ${JSON.stringify(givenName)} `, { kind: 'vendor-names' }]
        : this.vendors.lookup(givenName);
      if (typeof found === 'number') {
        vendorId = found;
        vendorShown = String(found);
        vendorKey = vendorShown;
      } else errors.push(this.rowError(line, this.vendorName!.header, found));
    } else if (this.vendorId === undefined || !this.failedOn(this.vendorId.header)) {
      errors.push(this.rowError(line, (this.vendorId ?? this.vendorName)?.header ?? 'vendor_id', 'the vendor is missing: fill vendor_id (or vendor, a name from the vendors file)'));
    }

    const refCell = this.cell(this.ref, values);
    const ref = refCell === null ? undefined : (this.parse('ref', refCell, line, this.ref!.header, formatOf(this.ref, formats)) as string | undefined);

    for (let i = 0; i < this.billFields.length; i++) {
      const f = this.billFields[i]!;
      const cell = f.index === -1 ? f.constant : (values[f.index] ?? null);
      this.billScratch[i] = cell === '' || cell === null ? undefined : this.parse(f.kind, cell, line, f.header, formatOf(f, formats));
    }
    let rawRate: unknown;
    for (let i = 0; i < this.itemFields.length; i++) {
      const f = this.itemFields[i]!;
      const cell = f.index === -1 ? f.constant : (values[f.index] ?? null);
      let value = cell === '' || cell === null ? undefined : this.parse(f.kind, cell, line, f.header, formatOf(f, formats), f.percent);
      if (i === this.rateAt) rawRate = value;
      if (value !== undefined && f.column === 'rate' && this.rowRules !== undefined && summary === undefined) value = this.ruled(value as string, line, f.header);
      this.itemScratch[i] = value;
      if (value === undefined && (f.column === 'item_name' || f.column === 'rate') && !this.failedOn(f.header)) {
        errors.push(this.rowError(line, f.header, f.column === 'rate' ? 'the item rate is missing: every row is a bill item and needs rate' : 'the item name is missing: every row is a bill item and needs item_name'));
      }
    }

    const taxProblem = this.taxAmount?.apply(this.itemScratch);
    if (taxProblem !== undefined) errors.push(this.rowError(line, taxProblem[0], taxProblem[1]));

    const target = `project ${projectShown || '?'} / vendor ${vendorShown}`;
    const group = projectKey !== '' && vendorKey !== '' ? this.groupOf(ref, projectKey, vendorKey, projectId, vendorId, target, line) : undefined;
    const cents = centsOf(rawRate, this.itemScratch[this.qtyAt]);
    if (group !== undefined && summary !== undefined) {
      (group.summaries ??= []).push({ line, cents, why: cents === undefined && errors.length > 0 ? rowErrorsText(errors) : undefined, shown: summary });
      return;
    }
    if (group !== undefined) this.checkAgreement(group, line);

    if (group === undefined) {
      const record = ref !== undefined ? `bill ${ref} / ${target}` : `bill row ${line} / ${target}`;
      this.loose.push(invalidLine(line, record, rowErrorsText(errors), rowErrorsColumn(errors), rowErrorCells(errors)));
      return;
    }
    if (group.lines.length === 0 && this.sourceLineIndex >= 0) {
      const sl = values[this.sourceLineIndex];
      group.sourceLine = sl === null || sl === undefined || String(sl).trim() === '' ? undefined : String(sl).trim();
    }
    if (this.errorIndex >= 0 && PRIOR_UNKNOWN.test(String(values[this.errorIndex] ?? ''))) group.priorUnknown = true;
    group.lines.push(line);
    group.amounts = addAmount(group.amounts, errors.length > 0 ? undefined : cents, line);
    if (errors.length > 0) {
      addBadLine(group, line, errors);
      return;
    }
    if (group.badLines !== undefined) return; // not sent anyway
    this.addToPayload(group, line);
  }

  /**
   * The bill a row belongs to: with a bill_ref, the one of that ref, project and vendor (a note
   * when the ref is spelt differently from its first row); without one, a bill of its own.
   */
  private groupOf(ref: string | undefined, projectKey: string, vendorKey: string, projectId: number, vendorId: number, target: string, line: number): BillGroup {
    if (ref === undefined) return this.newGroup(undefined, projectId, vendorId, target);
    const refKey = keyText(ref);
    const key = `${refKey}\u0000${projectKey}\u0000${vendorKey}`;
    let group = this.byRef.get(key);
    if (group === undefined) {
      group = this.newGroup(ref, projectId, vendorId, target);
      group.refKey = refKey;
      group.mapKey = key;
      this.byRef.set(key, group);
    } else {
      const note = spellingNote(ref, group.ref!, group.lines[0] ?? line);
      if (note !== undefined) addLineNote((group.notes ??= []), line, note);
    }
    return group;
  }

  /** A valid row's values (`billScratch`, `itemScratch`) into its bill: the bill's fields its first row to give them sets, and one item. */
  private addToPayload(group: BillGroup, line: number): void {
    for (let i = 0; i < this.billFields.length; i++) {
      const v = this.billScratch[i];
      const field = this.billFields[i]!.field;
      if (v === undefined || group.payload[field] !== undefined) continue;
      group.payload[field] = v;
      (group.setOn ??= new Map()).set(field, line);
    }
    const item: Record<string, unknown> = {};
    for (let i = 0; i < this.itemFields.length; i++) {
      const v = this.itemScratch[i];
      if (v !== undefined) item[this.itemFields[i]!.field] = v;
    }
    group.payload.ITEMS.push(item as BillPayload['ITEMS'][number]);
  }

  /** A row the row rules stopped (`RecordStopper`): the open bill holding `closedLine` is not sent. */
  stopRecordOf(closedLine: number, line: number, message: Worded, column?: string): boolean {
    const g = groupHolding(this.bills, closedLine);
    if (g !== undefined) stopGroup(g, line, message, column);
    return g !== undefined;
  }

  /** Every remaining bill, finished: call once, after the last `add`. */
  finish(): BillMapping {
    const records: MappedRecord<BillPayload>[] = [];
    const statics = this.loose;
    this.loose = [];
    for (const g of this.bills) this.finishBill(g, records, statics);
    this.bills = [];
    this.byRef.clear();
    this.summaries?.end();
    return { records, statics };
  }

  /**
   * The bills complete so far (see `closeBillsAfter`) and the report lines decided so far, handed
   * out once each; `finish` then hands out the rest. Without `closeBillsAfter`, only the lines.
   */
  takeFinished(): BillMapping {
    const records: MappedRecord<BillPayload>[] = [];
    const statics = this.loose;
    this.loose = [];
    const lastLine = this.lastLineOfRef;
    if (lastLine === undefined) return { records, statics };
    let open = 0;
    for (let i = 0; i < this.bills.length; i++) {
      const g = this.bills[i]!;
      if (g.refKey === undefined || (lastLine.get(g.refKey) ?? Infinity) <= this.seen) {
        this.finishBill(g, records, statics);
        if (g.mapKey !== undefined) this.byRef.delete(g.mapKey);
      } else this.bills[open++] = g;
    }
    this.bills.length = open;
    return { records, statics };
  }

  /** One complete bill: a record to send, or report lines saying why it is not sent. */
  private finishBill(g: BillGroup, records: MappedRecord<BillPayload>[], statics: StaticLine[]): void {
    const label = g.ref !== undefined ? `bill ${g.ref} / ${g.target}` : `bill row ${g.lines[0] ?? g.summaries?.[0]?.line} / ${g.target}`;
    const summary = this.summaries?.bill(g.amounts, g.summaries, g.ref === undefined ? 'this bill' : `bill ${JSON.stringify(g.ref)}`);
    if (summary !== undefined) {
      for (const l of summary.ignored) statics.push(l);
      for (const [line, message] of summary.stops) stopGroup(g, line, message);
    }
    if (g.badLines !== undefined) {
      this.reject(g, label, statics);
      return;
    }
    if (this.rowRules?.leftOutAsCredit(g.payload.ITEMS, g.lines, label, statics) === true) return;
    const payload = ordered(g.payload);
    let info: string;
    try {
      info = encodeBillInfo(payload);
    } catch (err) {
      if (!(err instanceof BuildsyncError)) throw err;
      for (const line of g.lines) statics.push({ line, record: label, status: 'invalid', message: `not sent: ${err.message}` });
      return;
    }
    // The same count as ServiceClient#billQueryLength: `Info=` and the percent-encoded JSON.
    const queryLength = 'Info='.length + encodeURIComponent(info).length;
    if (queryLength > MAX_BILL_QUERY_LENGTH) {
      const message = `not sent: this bill's query string would be ${queryLength.toLocaleString('en-US')} characters, over the ${MAX_BILL_QUERY_LENGTH.toLocaleString('en-US')} the service accepts (the bill travels in the URL); it is never sent truncated. Split it into smaller bills (fewer items per bill_ref) or shorten its texts`;
      for (const line of g.lines) statics.push({ line, record: label, status: 'invalid', message });
      return;
    }
    const json = JSON.stringify(payload);
    const hash = contentHashOfJson(json);
    let key: string;
    if (g.ref !== undefined) key = `bill:ref:${g.ref}|${g.projectId}|${g.vendorId}`;
    else if (g.sourceLine !== undefined) {
      // A row of an errors file: its place in the original file is its `source_line`, so two
      // identical bills of the original (one created, one fixed later) stay two records.
      key = `bill:row:${hash}@L${g.sourceLine}`;
    } else {
      const n = this.occurrences.get(hash) ?? 0;
      this.occurrences.set(hash, n + 1);
      key = `bill:row:${hash}#${n}`;
    }
    if (g.priorUnknown && !this.resendUnknown) {
      const message = wordedLine(['unknown: an earlier import could not tell whether this bill reached the service (see its errors file); it is not sent again on its own. Check the bill in the service, ', { kind: 'resend-unknown' }]);
      for (const line of g.lines) statics.push({ line, record: label, status: 'unknown', ...message });
      return;
    }
    // A streamed plan sends the JSON at once; a plan held whole (a dry run) keeps only the object.
    const record: MappedRecord<BillPayload> = this.lastLineOfRef !== undefined ? { key, label, lines: g.lines, contentHash: hash, payload, payloadJson: json } : { key, label, lines: g.lines, contentHash: hash, payload };
    if (summary?.note !== undefined) g.notes = withNoteOnEvery(g.lines, g.notes, summary.note);
    if (g.notes !== undefined) record.notes = g.notes;
    records.push(record);
  }

  private newGroup(ref: string | undefined, projectId: number, vendorId: number, target: string): BillGroup {
    const g: BillGroup = {
      ref, refKey: undefined, notes: undefined, sourceLine: undefined, priorUnknown: false, projectId, vendorId, target, lines: [],
      payload: { PRJ_ID: projectId, VENDOR_ID: vendorId, ITEMS: [] },
      setOn: undefined, badLines: undefined, badMessages: undefined, badColumns: undefined, mapKey: undefined,
    };
    this.bills.push(g);
    return g;
  }

  /** Bill-level fields must agree on every row of a bill (README, import bills). */
  private checkAgreement(g: BillGroup, line: number): void {
    if (g.setOn === undefined) return;
    for (let i = 0; i < this.billFields.length; i++) {
      const v = this.billScratch[i];
      if (v === undefined) continue;
      const f = this.billFields[i]!;
      const before = g.payload[f.field];
      if (before !== undefined && before !== v) {
        this.errors.push(this.rowError(line, f.header, `${f.column} is ${JSON.stringify(v)} here but ${JSON.stringify(before)} on line ${g.setOn.get(f.field)}; every row of a bill must agree on it (or leave it blank)`));
      }
    }
  }

  private reject(g: BillGroup, label: string, statics: StaticLine[]): void {
    const bad = g.badLines!;
    const why = `not sent: ${bad.length === 1 ? `line ${bad[0]} of this bill is invalid` : `lines ${listAtMost(bad)} of this bill are invalid`}`;
    let b = 0;
    for (const line of g.lines) {
      if (b < bad.length && bad[b] === line) {
        statics.push(invalidLine(line, label, g.badMessages![b]!, g.badColumns?.[b], g.badCells?.get(line)));
        b++;
      } else statics.push({ line, record: label, status: 'invalid', message: why });
    }
  }

  private cell(col: Col | undefined, values: readonly CellValue[]): CellValue {
    const cell = cellOf(col, values);
    return cell === '' ? null : cell;
  }

  /** True when a message about `header` was already added for this row (a bad cell is not also "missing"). */
  private failedOn(header: string): boolean {
    return this.errors.some((e) => e.column === header);
  }

  /** One cell; a bad value adds its message to `errors` and reads as not given. */
  private parse(kind: FieldKind, cell: CellValue, line: number, header: string, format: CellFormat | undefined, percent = false): unknown {
    try {
      switch (kind) {
        case 'text': return textOf(cell, format);
        case 'ref': return parseRef(cell, format);
        case 'date': return parseDate(cell, this.rules);
        case 'boolean': return parseBoolean(cell);
        case 'id': return parseId(cell, format);
        case 'number': return numberOf(cell, this.rules, format, percent);
        case 'decimal': return parseRateText(this.rowRules === undefined ? cell : this.rowRules.rateCell(cell), this.rules, format);
        case 'amount': return parseDecimalText(this.rowRules === undefined ? cell : this.rowRules.rateCell(cell), this.rules, format);
        case 'approver': {
          const text = parseText(cell, format);
          return text !== undefined && /^\d+$/.test(text) && Number(text) > 0 ? Number(text) : text;
        }
      }
    } catch (err) {
      if (!(err instanceof CellValueError)) throw err;
      this.errors.push(this.rowError(line, header, wordedOf(err)));
      return undefined;
    }
  }

  /** The rate as the row rules send it (discount, credit); a rate they refuse adds its message and reads as not given. */
  private ruled(rate: string, line: number, header: string): string | undefined {
    try {
      return this.rowRules!.rate(rate);
    } catch (err) {
      if (!(err instanceof CellValueError)) throw err;
      this.errors.push(this.rowError(line, header, wordedOf(err)));
      return undefined;
    }
  }

  private rowError(line: number, column: string | undefined, message: Worded): RowError {
    return new RowError(this.file, line, column, message, column === undefined ? undefined : this.columns.cellName(line, column));
  }
}
