/**
 * Sectioned estimates (docs/reading-rules.md). An estimator's sheet often writes `02 - Demolition` on a
 * row of its own and the items under it. With `--layout sections` (mapping `"layout":
 * "sections"`), such a row, one with no quantity and no amount whose only text besides the
 * estimate's keys is in one cell, is a section heading (`ignored`, `heading`), and its text as
 * written is the category of the rows under it; a heading numbered under the one before (`02`
 * then `02.10`), or one .xlsx indent level deeper (`SourceRow.indents`), sets the subcategory
 * instead. Cells of columns the mapping does not read never count against a heading. A heading with no item row under it before the
 * next heading is a row error that stops the estimate of the item rows after it (the next
 * heading may be an unnumbered sub-heading of it) and the one it sits in. Without the layout
 * (and without fill-down of category), a file with such headings and item rows without a
 * category stops before anything is sent, saying so.
 *
 * Decision where the contract is silent: an item under a category heading with no subcategory
 * (no numbered sub-heading, no subcategory cell) goes into a subcategory named as the category,
 * since the service keeps items in subcategories only.
 */
import type { CellValue, SourceRow } from '../../tables/index.ts';
import { FileError } from '../../errors/index.ts';
import { sameKeyText } from '../../values/key-text.ts';
import type { Col } from '../column-cells.ts';
import type { RowContext, RowReport, RowRule } from './row-rules.ts';
import type { ColumnsOf } from './totals.ts';

const KEY_COLUMNS = ['project_id', 'project_number', 'project_name', 'estimate_name'];
const NUMBER = /^\s*(\d+(?:\.\d+)*)(?![\d.]*\d)/;

/** What makes a row a section heading, and an item row without a category. */
class RowShape {
  private readonly keys: Set<number>;
  private readonly numbers: Set<number>;
  readonly item: Col | undefined;
  readonly category: Col | undefined;
  readonly subcategory: Col | undefined;
  private readonly markup: Col | undefined;

  constructor(cols: ColumnsOf, numberColumns: readonly string[], private readonly skip: readonly number[], private readonly read?: ReadonlySet<number>) {
    this.keys = new Set(KEY_COLUMNS.map(cols).filter((c): c is Col => c !== undefined).map((c) => c.index));
    this.numbers = new Set(numberColumns.map(cols).filter((c): c is Col => c !== undefined).map((c) => c.index));
    this.item = cols('item');
    this.category = cols('category');
    this.subcategory = cols('subcategory');
    this.markup = cols('markup_name');
  }

  /** The index of the cell that holds the text of the last heading found. */
  at = -1;

  /** The heading's text when the row is one (`at` its cell), else undefined. */
  heading(row: SourceRow): string | undefined {
    let text: string | undefined;
    const values = row.values;
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v === null || v === undefined || (typeof v === 'string' && v.trim() === '') || this.keys.has(i) || this.skip.includes(i)) continue;
      // A cell of a column the mapping does not read (ignored or unmapped) does not count against a heading.
      if (this.read !== undefined && !this.read.has(i)) continue;
      if (text !== undefined || typeof v !== 'string' || this.numbers.has(i) || i === this.markup?.index) return undefined;
      text = v.trim();
      this.at = i;
    }
    return text;
  }

  /**
   * Whether a heading row (`heading`) may sit in the estimate of an item row (`item`): no key
   * cell (project, estimate name) filled in both says otherwise, as a person reads it.
   */
  sameEstimate(heading: readonly CellValue[], item: readonly CellValue[]): boolean {
    for (const i of this.keys) {
      const a = heading[i] ?? null;
      const b = item[i] ?? null;
      if (filled(a) && filled(b) && !sameKeyText(String(a), String(b))) return false;
    }
    return true;
  }

  /** An item row (an item, or a number) that names no category. */
  itemWithoutCategory(row: SourceRow): boolean {
    if (filled(cell(this.category, row)) || filled(cell(this.markup, row))) return false;
    if (filled(cell(this.item, row))) return true;
    for (const i of this.numbers) if (filled(row.values[i] ?? null)) return true;
    return false;
  }
}

export interface SectionsSetup {
  file: string;
  cols: ColumnsOf;
  numberColumns: readonly string[];
  /** Indexes that are no part of the table's data (an errors file's `source_line` and `error`). */
  skip: readonly number[];
  /** The indexes the mapping reads, when known (`RowRulesSetup.read`). */
  read?: ReadonlySet<number>;
  /** Where the section's category and subcategory go (the file's own columns, or ones added after them). */
  category: Col;
  subcategory: Col;
  report: RowReport | undefined;
}

interface Heading {
  line: number;
  /** The row's cells (its key cells say which estimate it sits in, when filled). */
  values: readonly CellValue[];
  text: string;
  number: string | undefined;
  /** The .xlsx indent level of its text's cell (0: none). */
  indent: number;
  items: number;
}

export class Sections implements RowRule {
  private readonly shape: RowShape;
  private cat: Heading | undefined;
  private sub: Heading | undefined;
  /** The last item row let through. */
  private lastItem: SourceRow | undefined;

  constructor(private readonly setup: SectionsSetup) {
    this.shape = new RowShape(setup.cols, setup.numberColumns, setup.skip, setup.read);
  }

  apply(row: SourceRow, ctx: RowContext): boolean {
    if (ctx.total) return true;
    const text = this.shape.heading(row);
    if (text !== undefined) {
      ctx.heading = true;
      this.onHeading(row, text, row.indents?.[this.shape.at] ?? 0);
      return false;
    }
    if (this.cat === undefined) return true;
    const { category, subcategory } = this.setup;
    if (!filled(row.values[category.index] ?? null)) {
      row.values[category.index] = this.cat.text;
      if (!filled(row.values[subcategory.index] ?? null)) {
        const sub = this.sub?.text ?? (filled(cell(this.shape.item, row)) ? this.cat.text : null);
        if (sub !== null) row.values[subcategory.index] = sub;
      }
    }
    this.cat.items++;
    if (this.sub !== undefined) this.sub.items++;
    this.lastItem = row;
    return true;
  }

  end(): void {
    if (this.sub !== undefined) this.close(this.sub, undefined);
    if (this.cat !== undefined) this.close(this.cat, undefined);
  }

  private onHeading(row: SourceRow, text: string, indent: number): void {
    const number = NUMBER.exec(text)?.[1];
    // Under the category heading: numbered under it (`02` then `02.10`), or one .xlsx indent level deeper.
    const under = (this.cat?.number !== undefined && number !== undefined && number.startsWith(`${this.cat.number}.`)) || (this.cat !== undefined && indent > 0 && indent === this.cat.indent + 1);
    const heading: Heading = { line: row.line, values: row.values, text, number, indent, items: 0 };
    if (this.sub !== undefined) this.close(this.sub, heading);
    this.sub = undefined;
    if (under) this.sub = heading;
    else {
      if (this.cat !== undefined) this.close(this.cat, heading);
      this.cat = heading;
    }
  }

  /**
   * A heading is over (`next`: the heading that ends it; none at the end of the file): reported
   * `ignored` when items came under it, else a row error that stops the estimate it sits in (the
   * record of the item row above it, if still open and the heading names no other estimate) and
   * the one of the item rows it was meant to head (the next row let through), so that no
   * estimate is sent with its sections misread.
   */
  private close(h: Heading, next: Heading | undefined): void {
    const report = this.setup.report;
    if (report === undefined) return;
    const sub = h === this.sub;
    if (h.items > 0) {
      report.ignored(h.line, 'heading', `section heading: ${sub ? 'subcategory' : 'category'} ${JSON.stringify(h.text)} of the rows under it`);
      return;
    }
    const message = `${this.setup.file}:${h.line}: section heading ${JSON.stringify(h.text)} ${emptyHeadingAdvice(h, next, sub)}`;
    const above = this.lastItem !== undefined && this.shape.sameEstimate(h.values, this.lastItem.values) ? this.lastItem.line : undefined;
    if (next === undefined) report.stop(above, h.line, '', message);
    else report.stopWithNext(above, h.line, '', message);
  }
}

/**
 * What an empty heading's message says to do. A category heading before the next one (`next`)
 * may be a category whose sub-heading is not numbered (the tool cannot tell): the message says
 * how to write either reading. A subcategory has no level under it; the last heading no next one.
 */
function emptyHeadingAdvice(h: Heading, next: Heading | undefined, sub: boolean): string {
  const add = 'add its items or delete the heading';
  if (next === undefined) return `has no item row under it before the end of the file; ${add}`;
  const quoted = JSON.stringify(next.text);
  if (sub) return `has no item row under it before the next heading (${quoted} on line ${next.line}); ${add}`;
  const number = h.number ?? '1';
  const cat = h.number === undefined ? `${number} ${h.text}` : h.text;
  const rest = next.number === undefined ? ` ${next.text}` : next.text.slice(next.text.indexOf(next.number) + next.number.length);
  return `has no item row under it before the next heading (${quoted} on line ${next.line}): if ${quoted} is a sub-heading of it, number them (${cat}, ${number}.1${rest}: numbered sub-headings are read as subcategories) or give the subcategory column; else ${add}`;
}

/**
 * Without `--layout sections` (or fill-down of category): a file holding section headings and
 * item rows without a category stops (exit 2) before anything is sent, saying how to read it.
 */
export class SectionsGuard implements RowRule {
  private readonly shape: RowShape;
  private heading: { line: number; text: string } | undefined;
  private bare: number | undefined;

  constructor(private readonly file: string, cols: ColumnsOf, numberColumns: readonly string[], skip: readonly number[], read?: ReadonlySet<number>) {
    this.shape = new RowShape(cols, numberColumns, skip, read);
  }

  apply(row: SourceRow, ctx: RowContext): boolean {
    if (ctx.total) return true;
    const text = this.shape.heading(row);
    if (text !== undefined) this.heading ??= { line: row.line, text };
    else if (this.bare === undefined && this.shape.itemWithoutCategory(row)) this.bare = row.line;
    if (this.heading !== undefined && this.bare !== undefined) {
      throw new FileError(this.file, [
        `${this.file}:${this.heading.line}: ${JSON.stringify(this.heading.text)} looks like a section heading, and line ${this.bare} holds an item without a category: the sheet is laid out in sections. `,
        { kind: 'layout-sections', fill: this.shape.category !== undefined },
        '; nothing was sent.',
      ]);
    }
    return true;
  }
}

function cell(col: Col | undefined, row: SourceRow): CellValue {
  return col === undefined || col.index < 0 ? null : (row.values[col.index] ?? null);
}

function filled(v: CellValue): boolean {
  return v !== null && !(typeof v === 'string' && v.trim() === '');
}
