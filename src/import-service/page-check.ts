/**
 * The import page's check (README, The import page): the file planned by the import's own streamed
 * plan (`streamBills` / `streamEstimates`, as the CLI's import and Send read it), against the
 * account's project listing (read once by the caller, handed over as plain data) and, for bills,
 * its vendor list with the IDs typed in the page's vendor table over it; then said as a person
 * reads it: the first records summed up (check-summary.ts), those the ledger already has marked
 * `created` (looked up batch by batch, nothing claimed), the invalid rows with the header of each
 * bad cell, the rows that are no part of any record, and the vendor table.
 *
 * It keeps only what the page shows, never the whole plan: the first `SHOWN_ROWS` records, the
 * first `INVALID_SHOWN` invalid rows and `SHOWN_ROWS` ignored rows (by line), and counts. The page
 * runs it in its reader thread (src/dashboard/upload-reading.ts), within that thread's memory and
 * time limits.
 */
import { messageFor } from '../errors/index.ts';
import { ignoredLine, wirePayload, type PlanFacts } from '../import/index.ts';
import { projectResolverFromListing, type IgnoredCounts, type MappedRecord, type ProjectResolver, type StaticLine } from '../mapping/index.ts';
import type { BillPayload, EstimatePayload } from '../payloads/index.ts';
import { linesNamedIn, sheetLineName } from '../tables/index.ts';
import { billSummary, estimateSummary, type BillSummary, type EstimateSummary } from './check-summary.ts';
import { SHOWN_ROWS } from './columns.ts';
import { FileVendorNames, type VendorRow } from './page-vendors.ts';
import { pagePlan, type PagePlanInput } from './page-plan.ts';
import type { ImportKind } from './run-import.ts';

/** How many invalid rows the check lists (each with its cells); the count says how many in all. */
export const INVALID_SHOWN = 1_000;

/** A line as the page names it: the line, or `Sheet!row` when every sheet of a workbook was read. */
export type PageLine = number | string;

export interface CheckedRecord {
  key: string;
  label: string;
  lines: PageLine[];
  /** `created`: the ledger has it (a send reports it `skipped`); `new`: it would be created. */
  status: 'new' | 'created';
  bill?: BillSummary;
  estimate?: EstimateSummary;
  /** What would be sent, exactly (`Info` JSON of a bill, the estimate's JSON). */
  payload: string;
}

/** One error of an invalid row (a row with several errors has one entry for each, beside its own cell). */
export interface InvalidRow {
  line: PageLine;
  record: string;
  /** The header of the bad cell, as the error names it; null when it names none. */
  column: string | null;
  message: string;
}

/** What the page shows of a check (the JSON of `/import/check`, with the rows and budget the dashboard adds). */
export interface PageCheckResponse {
  rows: number;
  /** The first `INVALID_SHOWN` invalid rows' errors. */
  invalid: InvalidRow[];
  /** The first `SHOWN_ROWS` records. */
  records: CheckedRecord[];
  /** Records to create: the ledger does not have them. */
  recordCount: number;
  alreadyCreated: number;
  ignored: { text: string; counts: IgnoredCounts; count: number; lines: Array<{ line: PageLine; reason: string | null; message: string }> };
  /** Bills with a vendor-name column: each distinct name with its ID ('' unknown). */
  vendors: VendorRow[];
}

/** The check: what the page shows, and what the dashboard keeps of it for the rows shown and Send. */
export interface PageCheck {
  response: PageCheckResponse;
  /** Rows reported invalid, all of them (Send refuses while there are any, unless they are skipped). */
  invalidRows: number;
  /** The physical lines of the invalid rows listed (the rows table shows them besides the first rows). */
  invalidLines: number[];
  /** The header row's line as the plan found it. */
  headerLine?: number;
}

/** What a check reads: the upload with the plan options, project listing and vendors of Send's plan. */
export type PageCheckInput = PagePlanInput;

export interface PageCheckCalls {
  /** Whether the ledger has each record of `keys` created (`Ledger.createdAmong`). */
  createdAmong(keys: string[]): Promise<boolean[]>;
  /** Every message passes through it (the page names the file as uploaded). */
  scrub(message: string): string;
}

/** Checks `file` as the page does, sending nothing and keeping only what the page shows. */
export async function pageCheck(input: PageCheckInput, calls: PageCheckCalls): Promise<PageCheck> {
  const { kind } = input;
  const names = kind === 'bills' ? new FileVendorNames() : undefined;
  const resolver = projectResolverFromListing(input.projects);
  const kept = new CheckKeeper(kind, resolver, names, calls.createdAmong);
  const facts = await pagePlan(input, kept, { names, resolver });
  return kept.result(facts, names?.table([...input.vendors.listed, ...input.vendors.typed], input.vendors.listed) ?? [], calls.scrub);
}

/** The lowest `max` items of a stream by `line`, in line order. */
class Lowest<T> {
  readonly items: Array<{ line: number; item: T }> = [];
  constructor(private readonly max: number) {}

  /** Whether an item at `line` would be kept. */
  wants(line: number): boolean {
    return this.items.length < this.max || line < this.items[this.items.length - 1]!.line;
  }

  add(line: number, item: T): void {
    if (!this.wants(line)) return;
    let i = this.items.length;
    while (i > 0 && this.items[i - 1]!.line > line) i--;
    this.items.splice(i, 0, { line, item });
    if (this.items.length > this.max) this.items.pop();
  }

  /** The line past which nothing more is kept, once full. */
  get bound(): number {
    return this.items.length < this.max ? Infinity : this.items[this.items.length - 1]!.line;
  }
}

/** The check's sink of the streamed plan: counts everything, keeps what the page shows. */
class CheckKeeper {
  readonly #records: Lowest<CheckedRecord> = new Lowest(SHOWN_ROWS);
  readonly #invalid: Lowest<StaticLine> = new Lowest(INVALID_SHOWN);
  readonly #ignored: Lowest<StaticLine> = new Lowest(SHOWN_ROWS);
  #created = 0;
  #all = 0;
  #ignoredCount = 0;

  constructor(
    private readonly kind: ImportKind,
    private readonly resolver: ProjectResolver,
    private readonly names: FileVendorNames | undefined,
    private readonly createdAmong: (keys: string[]) => Promise<boolean[]>,
  ) {}

  async add(records: readonly MappedRecord[], statics: readonly StaticLine[]): Promise<void> {
    if (records.length > 0) {
      const created = await this.createdAmong(records.map((r) => r.key));
      records.forEach((r, i) => {
        this.#all++;
        if (created[i]) this.#created++;
        const first = r.lines[0] ?? 0;
        if (this.#records.wants(first)) this.#records.add(first, checkedRecord(this.kind, r, created[i] === true, this.resolver, this.names));
      });
      // A row's vendor name is kept only while a record starting there could still be shown.
      if (this.names !== undefined) this.names.linesUpTo = this.#records.bound;
    }
    for (const s of statics) {
      if (s.status === 'invalid') this.#invalid.add(s.line, s);
      else if (s.status === 'ignored') {
        this.#ignoredCount++;
        this.#ignored.add(s.line, s);
      }
    }
  }

  result(facts: PlanFacts, vendors: VendorRow[], scrub: (message: string) => string): PageCheck {
    const sheets = facts.table?.sheets?.read;
    const lineName: (line: number) => PageLine = sheets === undefined ? (line) => line : sheetLineName(sheets);
    const said = (message: string) => scrub(linesNamedIn(message, lineName));
    const headers = new Set(facts.table?.headers ?? []);
    const invalid = this.#invalid.items.map((i) => i.item);
    const ignored = this.#ignored.items.map((i) => i.item);
    return {
      response: {
        rows: facts.rows,
        // A row with several errors: each beside its own cell (`cells`); the report keeps them as one message.
        invalid: invalid.flatMap((s) => (s.cells ?? [s]).map((c) => ({ line: lineName(s.line), record: s.record, column: c.column !== undefined && headers.has(c.column) ? c.column : null, message: said(messageFor(c, 'page')) }))),
        records: this.#records.items.map(({ item }) => ({ ...item, lines: item.lines.map((l) => lineName(l as number)) })),
        recordCount: this.#all - this.#created,
        alreadyCreated: this.#created,
        ignored: {
          text: ignoredLine(facts.ignored) ?? '',
          counts: facts.ignored,
          count: this.#ignoredCount,
          lines: ignored.map((s) => ({ line: lineName(s.line), reason: s.reason ?? null, message: said(messageFor(s, 'page')) })),
        },
        vendors,
      },
      invalidRows: facts.invalidRows,
      invalidLines: invalid.map((s) => s.line),
      headerLine: facts.table?.headerLine,
    };
  }
}

function checkedRecord(kind: ImportKind, r: MappedRecord, created: boolean, resolver: ProjectResolver, names: FileVendorNames | undefined): CheckedRecord {
  const base = { key: r.key, label: r.label, lines: [...r.lines], status: created ? ('created' as const) : ('new' as const) };
  // An estimate builds its payload from its JSON on each read: read it once.
  if (kind === 'estimates') {
    const payload = r.payloadJson ?? JSON.stringify(r.payload);
    return { ...base, estimate: estimateSummary(JSON.parse(payload) as EstimatePayload, resolver), payload };
  }
  return { ...base, bill: billSummary(r as MappedRecord<BillPayload>, resolver, names?.nameOf(r.lines[0]!)), payload: wirePayload(kind, r) };
}
