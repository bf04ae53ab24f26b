/**
 * Sectioned estimates (docs/reading-rules.md). An estimator's sheet often writes `02 - Demolition` on a
 * row of its own and the items under it. With `--layout sections` (mapping `"layout":
 * "sections"`), such a row, one with no quantity and no amount whose only text besides the
 * estimate's keys is in one cell, is a section heading (`ignored`, `heading`), and its text as
 * written is the category of the rows under it; a heading numbered under the one before (`02`
 * then `02.10`) sets the subcategory instead. A heading with no item row under it before the
 * next heading is a row error. Without the layout (and without fill-down of category), a file
 * with such headings and item rows without a category stops before anything is sent, saying so.
 *
 * Decision where the contract is silent: an item under a category heading with no subcategory
 * (no numbered sub-heading, no subcategory cell) goes into a subcategory named as the category,
 * since the service keeps items in subcategories only.
 */
import type { CellValue, SourceRow } from '../../tables/index.ts';
import { FileError } from '../../errors/index.ts';
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

  constructor(cols: ColumnsOf, numberColumns: readonly string[], private readonly skip: readonly number[]) {
    this.keys = new Set(KEY_COLUMNS.map(cols).filter((c): c is Col => c !== undefined).map((c) => c.index));
    this.numbers = new Set(numberColumns.map(cols).filter((c): c is Col => c !== undefined).map((c) => c.index));
    this.item = cols('item');
    this.category = cols('category');
    this.subcategory = cols('subcategory');
    this.markup = cols('markup_name');
  }

  /** The heading's text when the row is one, else undefined. */
  heading(row: SourceRow): string | undefined {
    let text: string | undefined;
    const values = row.values;
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v === null || v === undefined || (typeof v === 'string' && v.trim() === '') || this.keys.has(i) || this.skip.includes(i)) continue;
      if (text !== undefined || typeof v !== 'string' || this.numbers.has(i) || i === this.markup?.index) return undefined;
      text = v.trim();
    }
    return text;
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
  /** Where the section's category and subcategory go (the file's own columns, or ones added after them). */
  category: Col;
  subcategory: Col;
  report: RowReport | undefined;
}

interface Heading {
  line: number;
  text: string;
  number: string | undefined;
  items: number;
}

export class Sections implements RowRule {
  private readonly shape: RowShape;
  private cat: Heading | undefined;
  private sub: Heading | undefined;
  private lastItemLine: number | undefined;

  constructor(private readonly setup: SectionsSetup) {
    this.shape = new RowShape(setup.cols, setup.numberColumns, setup.skip);
  }

  apply(row: SourceRow, ctx: RowContext): boolean {
    if (ctx.total) return true;
    const text = this.shape.heading(row);
    if (text !== undefined) {
      ctx.heading = true;
      this.onHeading(row.line, text);
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
    this.lastItemLine = row.line;
    return true;
  }

  end(): void {
    if (this.sub !== undefined) this.close(this.sub);
    if (this.cat !== undefined) this.close(this.cat);
  }

  private onHeading(line: number, text: string): void {
    const number = NUMBER.exec(text)?.[1];
    const under = this.cat?.number !== undefined && number !== undefined && number.startsWith(`${this.cat.number}.`);
    if (this.sub !== undefined) this.close(this.sub);
    this.sub = undefined;
    const heading: Heading = { line, text, number, items: 0 };
    if (under) this.sub = heading;
    else {
      if (this.cat !== undefined) this.close(this.cat);
      this.cat = heading;
    }
  }

  /** A heading is over: reported `ignored` when items came under it, else a row error. */
  private close(h: Heading): void {
    const report = this.setup.report;
    if (report === undefined) return;
    const what = h === this.sub ? 'subcategory' : 'category';
    if (h.items > 0) {
      report.ignored(h.line, 'heading', `section heading: ${what} ${JSON.stringify(h.text)} of the rows under it`);
      return;
    }
    report.stop(this.lastItemLine, h.line, '', `${this.setup.file}:${h.line}: section heading ${JSON.stringify(h.text)} has no item row under it before the next heading; add its items, or delete the heading`);
  }
}

/**
 * Without `--layout sections` (or fill-down of category): a file holding section headings and
 * item rows without a category stops (exit 2) before anything is sent, saying how to read it.
 */
export class SectionsGuard implements RowRule {
  private readonly shape: RowShape;
  private heading: { line: number; text: string } | undefined;
  private bare: number | undefined;

  constructor(private readonly file: string, cols: ColumnsOf, numberColumns: readonly string[], skip: readonly number[]) {
    this.shape = new RowShape(cols, numberColumns, skip);
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
