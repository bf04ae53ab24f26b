/**
 * Total rows (docs/reading-rules.md), recognised before any other rule. A row is a total row when its
 * label is one (`total-labels.ts`: in a label column, or, on a row that names no project, vendor,
 * estimate or item of its own and holds more than that one cell, its first text cell, whatever
 * column) or when its number cells are SUM/SUBTOTAL formulas over rows above (`SourceRow.sums`, .xlsx). Formulas prove it: the row is `ignored` (`total`). A row found
 * by its label only is checked: its amount must equal the sum of the amounts of the rows it
 * closes, else it is a row error naming both sums and the record it closes is not sent.
 *
 * What a total closes: bills: `Total for X` bill X (or vendor X), `Grand total` every line since
 * the previous grand total, a total on a row with a bill_ref that bill, and one naming no bill
 * (QuickBooks' closing `TOTAL`) every line since the previous such total. Such a total, and a
 * vendor's, spans several bills and holds none back: a streamed plan has handed them on already,
 * so when it does not check, the row alone is the error. Estimates: a named category or
 * subcategory of the estimate above (`Subtotal Demolition` closes `02 - Demolition`), `Grand
 * total` the estimate, and a total with no name the innermost level its own key cells name.
 *
 * The amount of a row: for bills rate × qty (rate alone without qty), for estimates qty × unit
 * cost (or rate), the unit cost or rate alone without qty. Sums are kept only per open level.
 */
import type { CellValue, SourceRow } from '../../tables/index.ts';
import { cellOf, formatOf, type Col } from '../column-cells.ts';
import { numberOf } from '../fast-cells.ts';
import { CellValueError, type ReadingRules } from '../values.ts';
import type { RowContext, RowReport, RowRule } from './row-rules.ts';
import { readKey, withoutNumber, type TotalLabel, type TotalLabels } from './total-labels.ts';

export type ColumnsOf = (column: string) => Col | undefined;

interface Sum {
  sum: number;
  /** The last line it holds (the record to stop when its total does not check). */
  last: number | undefined;
  /** The level as written, for messages. */
  name: string;
  /** The first line it holds whose amount cannot be read: its sum is not the level's, and a total of it is not checked. */
  unreadable?: number;
}

/** The sums of one estimate: the whole, and its categories and subcategories by `readKey` of their names (a numbered one by its bare name too). */
interface EstimateSums {
  whole: Sum | undefined;
  c: Map<string, Sum>;
  s: Map<string, Sum>;
}

/** What a total closes: its sum, how messages name it, whether its record is stopped when it does not check, and how it starts again. */
interface Closed {
  sum: Sum;
  what: string;
  stops: boolean;
  reset: () => void;
}

export interface TotalsSetup {
  kind: 'bills' | 'estimates';
  cols: ColumnsOf;
  labels: TotalLabels;
  /** More label columns (a kind column of a bill export). */
  labelColumns?: readonly string[];
  /** How numbers read; undefined: recognise total rows only (a replay), report and check nothing. */
  rules: ReadingRules | undefined;
  report: RowReport;
  /**
   * Bills: false when the file holds no total row (a streamed plan's first pass knows): the sums
   * of each bill, one entry per bill of the file, are then not kept.
   */
  sumsByBill?: boolean;
}

const PROJECT_COLUMNS = ['project_id', 'project_number', 'project_name'];

/** Total rows: `classify` first in the rules, `observe` last (it sums the rows that stay, as the later rules left them). */
export class Totals {
  private readonly labelCols: Col[];
  private readonly amount: Col | undefined;
  private readonly qty: Col | undefined;
  private readonly ref: Col | undefined;
  private readonly vendor: Col | undefined;
  private readonly projects: Col[];
  /** The columns whose own cell names a record or a line of the row (project, vendor, estimate, item): a row with none of them filled is read for a label in its first text cell. */
  private readonly own: Col[];
  private readonly name: Col | undefined;
  private readonly category: Col | undefined;
  private readonly subcategory: Col | undefined;
  /** Bills: by bill_ref (`b\0ref`) and by vendor (`v\0vendor`). */
  private readonly byKey = new Map<string, Sum>();
  /** Estimates: the sums of each estimate's levels, by the estimate's key (`noteEstimate`). */
  private byEstimate = new Map<string, EstimateSums>();
  private closing: Sum = { sum: 0, last: undefined, name: '' };
  private grand: Sum = { sum: 0, last: undefined, name: '' };
  /** Estimates: the estimate of the last row that named one. */
  private estimate = '';
  private estimateShown = '';
  /** Estimates: the project and name cells of the last row (`noteEstimate`). */
  private lastName: CellValue | undefined = undefined;
  private lastProjects: CellValue[] = [];
  /** Estimates: the last level of each kind a row added to (`level$`). */
  private readonly lastLevel: Record<'e' | 'c' | 's', { est: string; cell: CellValue; sum: Sum | undefined }> = {
    e: { est: '', cell: null, sum: undefined }, c: { est: '', cell: null, sum: undefined }, s: { est: '', cell: null, sum: undefined },
  };
  /**
   * Estimates: the current estimate's category and subcategory sums by their cell as written
   * (`level$`), new when the estimate changes: rows of an estimate alternate between a few
   * subcategories, each found again without building its key.
   *
   * Maps that change per estimate are replaced, never emptied (`clear`, or `delete` down to a
   * smaller table): V8 links an emptied map's old table to its new one, and an old table that a
   * young-generation collection had promoted keeps the next one alive through every such
   * collection until a full one, and so on down the chain, with every key and sum in them
   * (docs/benchmarks.md, import-plan).
   */
  private cellLevels = { c: new Map<string, Sum>(), s: new Map<string, Sum>() };
  /** A total row has been met: from then on every level is kept. */
  private sawTotal = false;

  readonly classify: RowRule = { apply: (row, ctx) => this.recognise(row, ctx) };
  readonly observe: RowRule = { apply: (row, ctx) => (this.add(row, ctx.splitOf), true) };

  constructor(private readonly setup: TotalsSetup) {
    const { cols, kind } = setup;
    const labels = kind === 'bills' ? ['bill_ref', ...(setup.labelColumns ?? []), 'item_name', 'item_description'] : ['item', 'subcategory', 'category', ...(setup.labelColumns ?? [])];
    this.labelCols = labels.map(cols).filter((c): c is Col => c !== undefined && c.index >= 0);
    this.amount = kind === 'bills' ? cols('rate') : (cols('unit_cost') ?? cols('rate'));
    this.qty = cols('qty');
    this.ref = kind === 'bills' ? cols('bill_ref') : undefined;
    this.vendor = kind === 'bills' ? (cols('vendor') ?? cols('vendor_id')) : undefined;
    this.projects = PROJECT_COLUMNS.map(cols).filter((c): c is Col => c !== undefined);
    this.name = kind === 'estimates' ? cols('estimate_name') : undefined;
    this.category = kind === 'estimates' ? cols('category') : undefined;
    this.subcategory = kind === 'estimates' ? cols('subcategory') : undefined;
    const own = kind === 'bills' ? [...PROJECT_COLUMNS, 'vendor', 'vendor_id', 'item_name'] : [...PROJECT_COLUMNS, 'estimate_name', 'item'];
    this.own = own.map(cols).filter((c): c is Col => c !== undefined && c.index >= 0);
  }

  private recognise(row: SourceRow, ctx: RowContext): boolean {
    const byFormula = row.sums !== undefined && this.formulasOnly(row);
    const label = this.labelOf(row);
    if (!byFormula && label === undefined) return true;
    ctx.total = true;
    this.sawTotal = true;
    if (this.setup.kind === 'bills') ctx.totalRef = this.billNamed(row, label?.label);
    if (this.setup.rules === undefined) return false;
    const shown = label === undefined ? 'a row of SUM formulas' : JSON.stringify(label.text);
    if (byFormula) {
      this.setup.report.ignored(row.line, 'total', `total row: ${shown}, its amounts SUM formulas over the rows above`);
      this.closeAll(row, label?.label);
      return false;
    }
    this.check(row, label!.label, shown);
    return false;
  }

  /** True when every amount cell holding a number is a SUM/SUBTOTAL formula (and one cell at least is). */
  private formulasOnly(row: SourceRow): boolean {
    const sums = row.sums!;
    for (const c of [this.amount, this.qty]) {
      if (c === undefined || c.index < 0) continue;
      if (typeof row.values[c.index] === 'number' && !sums.includes(c.index)) return false;
    }
    return sums.length > 0;
  }

  private labelOf(row: SourceRow): { label: TotalLabel; text: string } | undefined {
    const labels = this.setup.labels;
    for (const c of this.labelCols) {
      const cell = row.values[c.index] ?? null;
      const label = labels.of(cell);
      if (label !== undefined) return { label, text: String(cell).trim() };
    }
    // A report's total row repeats no project, vendor, estimate or item of its own (a constant of
    // the mapping is no cell of the row): its label is its first text, whatever column it stands
    // in, provided the row holds something besides it (its sum). A row whose only text is one cell
    // is a heading or a note: a vendor heading "Total Plumbing Supply" is no total.
    if (!this.own.every((c) => empty(row.values[c.index] ?? null))) return undefined;
    const values = row.values;
    let at = -1;
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (typeof v === 'string' && v.trim() !== '') {
        at = i;
        break;
      }
    }
    if (at < 0) return undefined;
    const first = values[at] as string;
    const label = labels.of(first);
    if (label === undefined) return undefined;
    for (let i = 0; i < values.length; i++) if (i !== at && !empty(values[i] ?? null)) return { label, text: first.trim() };
    return undefined;
  }

  /** The bill a bill total names or holds (its bill_ref as written), for the first pass of a streamed plan. */
  private billNamed(row: SourceRow, label: TotalLabel | undefined): string | undefined {
    if (label?.name !== undefined) return label.name;
    const own = cellOf(this.ref, row.values);
    return label !== undefined && !label.grand && typeof own === 'string' && this.setup.labels.of(own) === undefined && own.trim() !== '' ? own.trim() : undefined;
  }

  /** A row that stays: its amount counts toward every level that holds it. */
  private add(row: SourceRow, splitOf: string | undefined): void {
    if (this.setup.rules === undefined) return;
    const read = this.amountOf(row);
    const amount = typeof read === 'number' ? read : 0;
    // An amount that cannot be read (a row error of its own) leaves every sum holding it unknown.
    const unreadable = read === UNREADABLE;
    const line = row.line;
    if (this.setup.kind === 'bills') {
      const ref = this.setup.sumsByBill === false ? undefined : (splitOf ?? text(cellOf(this.ref, row.values)));
      if (ref !== undefined) addTo(this.sumOf(`b\0${readKey(ref)}`, ref), amount, line, unreadable);
      const vendor = text(cellOf(this.vendor, row.values));
      if (vendor !== undefined) addTo(this.sumOf(`v\0${readKey(vendor)}`, vendor), amount, line, unreadable);
    } else {
      this.noteEstimate(row);
      const est = this.estimate;
      const whole = this.level$('e', est, this.estimateShown);
      if (whole !== undefined) addTo(whole, amount, line, unreadable);
      const cat = this.level$('c', est, cellOf(this.category, row.values));
      if (cat !== undefined) {
        addTo(cat, amount, line, unreadable);
        const sub = this.level$('s', est, cellOf(this.subcategory, row.values));
        if (sub !== undefined) addTo(sub, amount, line, unreadable);
      }
    }
    addTo(this.closing, amount, line, unreadable);
    addTo(this.grand, amount, line, unreadable);
  }

  private sumOf(key: string, name: string): Sum {
    let s = this.byKey.get(key);
    if (s === undefined) this.byKey.set(key, (s = { sum: 0, last: undefined, name: flat(name) }));
    return s;
  }

  /**
   * The sum of one level of the current estimate (`e` the estimate, `c` a category, `s` a
   * subcategory), made on first use; a category or subcategory written with its section number
   * (`02 - Demolition`) is also found by its bare name (the level made last with that bare name
   * is the one found by it). Consecutive rows of one level (the rule) reuse the last one found
   * without reading its cell again.
   */
  private level$(kind: 'e' | 'c' | 's', est: string, cell: CellValue): Sum | undefined {
    const last = this.lastLevel[kind];
    if (last.sum !== undefined && last.est === est && last.cell === cell) return last.sum;
    if (cell === null || cell === '') return undefined;
    const sums = this.sumsOf(est);
    // Only the current estimate's levels are in `cellLevels` (`est` is always `this.estimate`).
    const byCell = kind === 'e' || typeof cell !== 'string' ? undefined : this.cellLevels[kind];
    let sum = byCell?.get(cell as string);
    if (sum === undefined) {
      const shown = text(cell);
      if (shown === undefined) return undefined;
      if (kind === 'e') sum = sums.whole ??= { sum: 0, last: undefined, name: flat(shown) };
      else {
        const levels = sums[kind];
        const key = readKey(shown);
        sum = levels.get(key);
        if (sum === undefined) {
          levels.set(key, (sum = { sum: 0, last: undefined, name: flat(shown) }));
          const bare = readKey(withoutNumber(shown));
          if (bare !== key) {
            // The bare name may have named another level: cells read as that one are read again.
            if (levels.has(bare)) this.cellLevels[kind] = new Map();
            levels.set(bare, sum);
          }
        }
        byCell?.set(cell as string, sum);
      }
    }
    last.est = est;
    last.cell = cell;
    last.sum = sum;
    return sum;
  }

  /** The sums of estimate `est`, made on first use. */
  private sumsOf(est: string): EstimateSums {
    let sums = this.byEstimate.get(est);
    if (sums === undefined) this.byEstimate.set(est, (sums = { whole: undefined, c: new Map(), s: new Map() }));
    return sums;
  }

  private noteEstimate(row: SourceRow): void {
    // Most rows repeat the project and name of the row above: compared as read, not rebuilt.
    const name = cellOf(this.name, row.values);
    let same = name === this.lastName;
    for (let i = 0; same && i < this.projects.length; i++) same = cellOf(this.projects[i], row.values) === this.lastProjects[i];
    if (same) return;
    this.lastName = name;
    this.lastProjects = this.projects.map((c) => cellOf(c, row.values));
    const project = this.projects.map((c) => text(cellOf(c, row.values)) ?? '').join('\0');
    const nameText = text(name);
    if (project.replaceAll('\0', '') === '' && nameText === undefined) return;
    const key = `${readKey(project)}\0${readKey(nameText ?? '')}`;
    if (key === this.estimate) return;
    // Until a total row has been met, no level of an estimate left behind is kept: a file without
    // totals (the usual one) holds the sums of one estimate at a time, not of every estimate. A
    // total that names a level of an estimate left before the file's first total finds no sum and
    // stops its row (never a silent pass).
    if (!this.sawTotal) this.byEstimate = new Map();
    this.cellLevels = { c: new Map(), s: new Map() };
    this.estimate = key;
    this.estimateShown = flat(`project ${project.replaceAll('\0', '').trim() || '?'} / ${nameText ?? '?'}`);
  }

  /** The row's amount (amount × qty); undefined when it has none; UNREADABLE when a cell of it cannot be read. */
  private amountOf(row: SourceRow): number | undefined | typeof UNREADABLE {
    try {
      const rules = this.setup.rules!;
      const base = this.amount === undefined ? undefined : numberOf(cellOf(this.amount, row.values), rules, formatOf(this.amount, row.formats));
      const qty = this.qty === undefined ? undefined : numberOf(cellOf(this.qty, row.values), rules, formatOf(this.qty, row.formats));
      if (base === undefined) return undefined;
      return qty === undefined ? base : base * qty;
    } catch (err) {
      if (err instanceof CellValueError) return UNREADABLE;
      throw err;
    }
  }

  /** The levels a total closes, and the record to stop when it does not check. */
  private closed(row: SourceRow, label: TotalLabel | undefined): Closed {
    if (label?.grand === true) {
      if (this.setup.kind === 'estimates') return this.estimateLevel(this.estimate, 'e', '', 'the estimate') ?? this.whole('grand');
      return this.whole('grand');
    }
    if (this.setup.kind === 'bills') {
      if (label?.name !== undefined) {
        const named = this.level(`b\0${readKey(label.name)}`, 'bill', true) ?? this.level(`v\0${readKey(label.name)}`, 'vendor', false);
        if (named !== undefined) return named;
      }
      const own = text(cellOf(this.ref, row.values));
      const held = own === undefined || this.setup.labels.of(own) !== undefined ? undefined : this.level(`b\0${readKey(own)}`, 'bill', true);
      return held ?? this.whole('closing');
    }
    this.noteEstimate(row);
    const est = this.estimate;
    if (label?.name !== undefined) {
      const key = readKey(label.name);
      const named = this.estimateLevel(est, 'c', key, 'category') ?? this.estimateLevel(est, 's', key, 'subcategory');
      if (named !== undefined) return named;
    }
    const cat = text(cellOf(this.category, row.values));
    const sub = text(cellOf(this.subcategory, row.values));
    return (sub !== undefined ? this.estimateLevel(est, 's', readKey(sub), 'subcategory') : undefined)
      ?? (cat !== undefined ? this.estimateLevel(est, 'c', readKey(cat), 'category') : undefined)
      ?? this.estimateLevel(est, 'e', '', 'the estimate')
      ?? this.whole('grand');
  }

  /** A bill's or a vendor's sum: the entry goes when its total resets it (a bill's total comes once). */
  private level(key: string, what: string, stops: boolean): Closed | undefined {
    const sum = this.byKey.get(key);
    if (sum === undefined) return undefined;
    return { sum, what: `${what} ${JSON.stringify(sum.name)}`, stops, reset: () => this.byKey.delete(key) };
  }

  /** A level of estimate `est` (`key`: `readKey` of its name; '' for the whole estimate): it keeps its entry (and its alias) at zero when its total resets it. */
  private estimateLevel(est: string, kind: 'e' | 'c' | 's', key: string, what: string): Closed | undefined {
    const sums = this.byEstimate.get(est);
    const sum = sums === undefined ? undefined : kind === 'e' ? sums.whole : sums[kind].get(key);
    if (sum === undefined) return undefined;
    return { sum, what: kind === 'e' ? sum.name : `${what} ${JSON.stringify(sum.name)}`, stops: true, reset: () => {
      sum.sum = 0;
      sum.unreadable = undefined;
    } };
  }

  private whole(which: 'grand' | 'closing'): Closed {
    const sum = which === 'grand' ? this.grand : this.closing;
    return {
      sum, what: which === 'grand' ? 'every line since the previous grand total' : 'every line since the previous total', stops: false,
      reset: () => {
        if (which === 'grand') this.grand = { sum: 0, last: undefined, name: '' };
        else this.closing = { sum: 0, last: undefined, name: '' };
      },
    };
  }

  /** A total proved by its formulas: what it closes starts again from zero. */
  private closeAll(row: SourceRow, label: TotalLabel | undefined): void {
    this.closed(row, label).reset();
  }

  private check(row: SourceRow, label: TotalLabel, shown: string): void {
    const { report } = this.setup;
    const closes = this.closed(row, label);
    const amount = this.amountOf(row);
    const { sum, unreadable } = closes.sum;
    closes.reset();
    if (amount === undefined || amount === UNREADABLE) {
      report.ignored(row.line, 'total', `total row: ${shown} (no amount to check)`);
      return;
    }
    if (unreadable !== undefined) {
      // Saying what the readable lines add up to would name a figure that is not the total's.
      const message = `total row ${shown} says ${money(amount)}; not checked, since line ${unreadable} of the lines it closes (${closes.what}) cannot be read: correct it and run again`;
      report.stop(closes.stops ? closes.sum.last : undefined, row.line, closes.stops ? closes.what : '', message);
      return;
    }
    if (Math.abs(round(sum) - round(amount)) < 0.005) {
      report.ignored(row.line, 'total', `total row: ${shown}, ${money(amount)} = the sum of ${closes.what}`);
      return;
    }
    const message = `total row ${shown} says ${money(amount)} but the lines it closes (${closes.what}) add up to ${money(sum)}; ${closes.stops ? 'not sent: ' : ''}correct the amounts, or the total`;
    report.stop(closes.stops ? closes.sum.last : undefined, row.line, closes.stops ? closes.what : '', message);
  }
}

/** The amount of a row with a cell that cannot be read (`amountOf`). */
const UNREADABLE = 'unreadable';

/** `amount` at `line` added to `s`; `unreadable`: that row's amount cannot be read (counted as 0, the sum marked). */
function addTo(s: Sum, amount: number, line: number, unreadable: boolean): void {
  if (unreadable) s.unreadable ??= line;
  s.sum += amount;
  s.last = line;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

function money(n: number): string {
  return round(n).toFixed(2);
}

function empty(cell: CellValue): boolean {
  return cell === null || (typeof cell === 'string' && cell.trim() === '');
}

function text(cell: CellValue): string | undefined {
  if (cell === null) return undefined;
  const t = (cell instanceof Date ? cell.toISOString() : String(cell)).trim();
  return t === '' ? undefined : t;
}

/** A copy that does not share storage with the chunk the cell was sliced from. */
function flat(s: string): string {
  return (' ' + s).slice(1);
}
