/**
 * Estimate spreadsheet rows → estimate payloads (docs/reading-rules.md, docs/service.md, Estimates).
 *
 * Rows are grouped by (project, estimate_name); rows of one estimate need not be adjacent, so
 * every group stays open until the file ends. One row is one line of the estimate:
 *   - category + subcategory + item: adds an item to the subcategory;
 *   - category + subcategory: sets the subcategory's own fields;
 *   - category: sets the category's own fields;
 *   - markup_name without category: one COMS row.
 * Estimate names, categories and subcategories are keys (record-key.ts: `Framing`, `framing` and
 * `FRAMING ` are one category, sent as first written); categories and subcategories merge in
 * order of first appearance; items keep file order.
 *
 * Decisions where the contract is silent:
 *   - Field types: see estimate-columns.ts. MARKUP_TYPE is a number, like LINE_ITEM_MARKUP_TYPE
 *     (the same kind of code on a line); markup_value is a number (`15%` = 15).
 *   - A blank cell means "not given": it never disagrees with another row. Two rows giving
 *     different non-blank values for an estimate's top-level field, or for the same field of one
 *     category or subcategory, make the later row invalid, naming both values and lines.
 *   - A row without category and without markup_name is invalid (it names no line); so are an
 *     item without a subcategory (items live in subcategories, docs/service.md, Estimates), line-only fields
 *     (qty, unit_cost, …) on a category row, markup columns on a line row and line fields on a
 *     markup row: never silently dropped.
 *   - A row whose project or estimate name is missing belongs to no estimate and is reported
 *     on its own. Rows naming the same unresolvable project are grouped by the value written.
 *   - When a file gives two estimate names for one project, the group appearing first keeps the
 *     project (the service allows one estimate per project, docs/service.md, Project records) and every row of the later
 *     group is invalid.
 */
import type { CellFormat, CellValue, SourceRow } from '../tables/index.ts';
import type { StaticLine } from './report-line.ts';
import type { EstimatePayload } from '../payloads/index.ts';
import { RowError, wordedOf, type Worded } from '../errors/index.ts';
import { COMMON_FIELDS, LINE_FIELDS, TOP_FIELDS, type FieldKind } from './estimate-columns.ts';
import { addMarkupRow, findLevel, finishGroup, lineOf, noteSpelling, openGroup, type EstimateGroup, type Level, type Node } from './estimate-group.ts';
import type { EstimateRowChecks } from './estimate-row-checks.ts';
import { sealGroup, unsealGroup } from './estimate-seal.ts';
import { cellOf, colOf, formatOf, type Col } from './column-cells.ts';
import { numberOf, textOf } from './fast-cells.ts';
import type { ColumnMap } from './header.ts';
import type { MappedRecord } from './mapped-record.ts';
import { TextArena } from './text-arena.ts';
import { ProjectRefReader, type ProjectResolver } from './project-refs.ts';
import { missingEstimateColumns } from './required-columns.ts';
import { keyText } from './record-key.ts';
import { groupHolding, stopGroup } from './rows/stop-record.ts';
import { addBadLine, invalidLine, rowErrorCells, rowErrorsColumn, rowErrorsText } from './row-errors.ts';
import type { RecordStopper } from './rows/row-rules.ts';
import { CellValueError, parseBoolean, parseId, PERCENT_COLUMNS, US_RULES, type ReadingRules } from './values.ts';

interface FieldCol extends Col {
  field: string;
  kind: FieldKind;
  lineOnly: boolean;
  /** A percent field (`PERCENT_COLUMNS`): a percent-formatted .xlsx cell reads as the percentage it shows. */
  percent: boolean;
}

/** What a planned estimate and the rows that cannot be sent look like once the file is read. */
export interface EstimateMapping {
  records: MappedRecord<EstimatePayload>[];
  statics: StaticLine[];
}

/**
 * Groups the rows of one estimate file into estimates. Feed every data row to `add` (in file
 * order), then call `finish` once.
 */
export class EstimateGrouper implements RecordStopper {
  private readonly projects: ProjectRefReader;
  private readonly name: Col | undefined;
  private readonly category: Col | undefined;
  private readonly subcategory: Col | undefined;
  private readonly item: Col | undefined;
  private readonly fields: FieldCol[];
  private readonly top: Array<Col & { field: string; column: string; kind: 'number' | 'boolean' }>;
  private readonly markupName: Col | undefined;
  private readonly markupValue: Col | undefined;
  private readonly markupType: Col | undefined;

  /** Every estimate, in order of its first line. */
  private readonly groups: EstimateGroup[] = [];
  /** Estimates by project ID (the first one of a project owns it); usually one each. */
  private readonly byProject = new Map<number, EstimateGroup[]>();
  /** Estimates whose project could not be resolved, by the project as written and the name. */
  private readonly unresolved = new Map<string, EstimateGroup>();
  private loose: StaticLine[] = [];
  /** The last line naming each project (`closeEstimatesAfter`): an estimate is complete once it is passed. */
  private lastLineOfProject: ReadonlyMap<string, number> | undefined;
  /** The last line `add` saw. */
  private seen = 0;
  /** Scratch for one row's values, reused across rows. */
  private readonly scratch: unknown[];
  private readonly topScratch: unknown[];
  private readonly errors: RowError[] = [];
  /** Bit i set when the current row gives this.fields[i]. */
  private mask = 0;
  private readonly factories = new Map<number, (name: string, values: unknown[]) => Node>();
  /** The group of the last grouped row: the only one whose objects are open (see `sealGroup`). */
  private current: EstimateGroup | undefined;
  /** The sealed groups' JSON, which the records then keep. */
  private readonly texts = new TextArena();

  constructor(
    private readonly file: string,
    private readonly columns: ColumnMap,
    resolver: ProjectResolver | undefined,
    /** How the file writes numbers (settled once per file, `settleReadingRules`). */
    private readonly rules: ReadingRules = US_RULES,
    /** What a row may not hold however its cells read: another currency, a flat markup (`estimate-row-checks.ts`). */
    private readonly checks?: EstimateRowChecks,
  ) {
    this.projects = new ProjectRefReader(file, columns, resolver);
    this.name = colOf(columns, 'estimate_name');
    this.category = colOf(columns, 'category');
    this.subcategory = colOf(columns, 'subcategory');
    this.item = colOf(columns, 'item');
    this.fields = [];
    for (const [list, lineOnly] of [[COMMON_FIELDS, false], [LINE_FIELDS, true]] as const) {
      for (const [column, kind] of list) {
        const c = colOf(columns, column);
        if (c !== undefined) this.fields.push({ ...c, field: column.toUpperCase(), kind, lineOnly, percent: PERCENT_COLUMNS.has(column) });
      }
    }
    this.top = [];
    for (const [column, kind] of TOP_FIELDS) {
      const c = colOf(columns, column);
      if (c !== undefined) this.top.push({ ...c, field: column.toUpperCase(), column, kind });
    }
    this.markupName = colOf(columns, 'markup_name');
    this.markupValue = colOf(columns, 'markup_value');
    this.markupType = colOf(columns, 'markup_type');
    this.scratch = new Array(this.fields.length);
    this.topScratch = new Array(this.top.length);
  }

  /** The required columns the file lacks (docs/reading-rules.md). */
  missingColumns(): string[] {
    return missingEstimateColumns(this.columns);
  }

  /**
   * Lets `takeFinished` finish an estimate as soon as the last row naming its project has been
   * added (`lastLine`: from a first pass with `estimateProjectKeyReader`, project-refs.ts). Only
   * then is it complete: its rows need not be adjacent, and a later estimate of the same project
   * would make it a conflict (one estimate per project).
   */
  closeEstimatesAfter(lastLine: ReadonlyMap<string, number>): void {
    this.lastLineOfProject = lastLine;
  }

  /**
   * The estimates complete so far (see `closeEstimatesAfter`) and the report lines decided so
   * far, handed out once each; `finish` then hands out the rest.
   */
  takeFinished(): EstimateMapping {
    const records: MappedRecord<EstimatePayload>[] = [];
    const statics = this.loose;
    this.loose = [];
    const lastLine = this.lastLineOfProject;
    if (lastLine === undefined) return { records, statics };
    let open = 0;
    for (let i = 0; i < this.groups.length; i++) {
      const g = this.groups[i]!;
      if ((lastLine.get(g.closeKey) ?? Infinity) > this.seen) {
        this.groups[open++] = g;
        continue;
      }
      if (g === this.current) {
        sealGroup(g, this.texts);
        this.current = undefined;
      }
      // Every estimate of the project closes at the same line: the project's entry goes whole.
      if (g.projectId !== -1) this.byProject.delete(g.projectId);
      if (g.unresolvedKey !== undefined) this.unresolved.delete(g.unresolvedKey);
      const record = finishGroup(g, statics);
      if (record !== undefined) records.push(record);
    }
    this.groups.length = open;
    return { records, statics };
  }

  add(row: SourceRow): void {
    const { line, values, formats } = row;
    this.seen = line;
    const errors = this.errors;
    // Emptied only when it holds something: setting an array's length is a runtime call, on every row.
    if (errors.length !== 0) errors.length = 0;
    if (this.checks !== undefined) for (const [header, message] of this.checks.check(row)) errors.push(this.rowError(line, header, message));

    const projectId = this.projects.read(values, line, formats);
    if (projectId === -1) errors.push(this.projects.error!);
    const name = this.text(this.name, row);
    if (name === undefined) {
      errors.push(this.rowError(line, this.name?.header ?? 'estimate_name', 'the estimate name is missing: every row needs estimate_name'));
    }

    let group: EstimateGroup | undefined;
    if (name !== undefined && projectId !== -1) group = this.groupFor(projectId, name);
    else if (name !== undefined && this.projects.unresolvedKey !== '') group = this.unresolvedGroup(this.projects.unresolvedKey, this.projects.shown, name);
    if (group !== undefined && group !== this.current) this.switchTo(group);
    if (group !== undefined && name !== group.name) noteSpelling(group, line, name!, group.name, group.lines[0] ?? line);

    // Every cell of the row is read and checked before the group changes: an invalid row changes nothing.
    const category = this.text(this.category, row);
    const beforeSub = errors.length;
    const subcategory = this.text(this.subcategory, row);
    // A subcategory cell that cannot be read (a date cell) is reported once, not again as missing.
    const subRefused = errors.length > beforeSub;
    const item = this.text(this.item, row);
    const markupName = this.text(this.markupName, row);
    const markupValue = this.number(this.markupValue, row, true);
    const markupType = this.number(this.markupType, row, false);
    let given = 0;
    let mask = 0;
    // Whether the row gives a line-only field; their headers are listed only for the message that names them.
    let lineOnlyGiven = false;
    for (let i = 0; i < this.fields.length; i++) {
      const f = this.fields[i]!;
      const cell = f.index === -1 ? f.constant : (values[f.index] ?? null);
      const value = cell === '' || cell === null ? undefined : this.parse(f.kind, cell, line, f.header, formatOf(f, formats), f.percent);
      this.scratch[i] = value;
      if (value === undefined) continue;
      given++;
      mask |= 1 << i;
      if (f.lineOnly) lineOnlyGiven = true;
    }
    this.mask = mask;

    if (category === undefined) {
      if (markupName === undefined) {
        if (markupValue !== undefined || markupType !== undefined) {
          errors.push(this.rowError(line, this.markupName?.header ?? 'markup_name', 'markup_value and markup_type need markup_name on the same row (a markup row names its markup)'));
        } else {
          errors.push(this.rowError(line, this.category?.header ?? 'category', 'category is required on a line row; a row without category must be a markup row with markup_name'));
        }
      } else if (subcategory !== undefined || item !== undefined || given > 0) {
        const extra: string[] = [];
        if (subcategory !== undefined) extra.push(this.subcategory!.header);
        if (item !== undefined) extra.push(this.item!.header);
        extra.push(...this.givenHeaders(false));
        errors.push(this.rowError(line, undefined, `a markup row (markup_name without category) cannot set ${extra.join(', ')}; put the markup on a row of its own, or add the category this line belongs to`));
      }
    } else {
      if (markupName !== undefined || markupValue !== undefined || markupType !== undefined) {
        errors.push(this.rowError(line, this.markupName?.header ?? 'markup_name', 'markup columns belong on a markup row, which has no category; put the markup on a row of its own'));
      }
      if (subRefused) {
        // Reported above; the row is invalid.
      } else if (item !== undefined && subcategory === undefined) {
        errors.push(this.rowError(line, this.subcategory?.header ?? 'subcategory', [`item ${JSON.stringify(item)} has a category but no subcategory: items live in subcategories, and a subcategory holds quantities and costs itself; `, { kind: 'item-as-subcategory', header: JSON.stringify(this.item!.header) }, ', or give the row its subcategory']));
      } else if (subcategory === undefined && lineOnlyGiven) {
        errors.push(this.rowError(line, undefined, `${this.givenHeaders(true).join(', ')} cannot be set on a category (the service takes them on subcategories and items only); add a subcategory`));
      } else if (item === undefined && group !== undefined && given > 0) {
        this.checkAgreement(group, line, category, subcategory);
      }
    }
    const anyTop = this.top.length > 0 && this.readTop(row, group);

    if (group === undefined) {
      this.loose.push(invalidLine(line, `project ${this.projects.shown || '?'} / ${name ?? '?'}`, rowErrorsText(errors), rowErrorsColumn(errors), rowErrorCells(errors)));
      return;
    }
    group.lines.push(line);
    if (errors.length > 0) {
      addBadLine(group, line, errors);
      return;
    }
    if (group.badLines !== undefined || group.conflict !== undefined) return; // not sent anyway
    if (category !== undefined) this.applyLine(group, line, category, subcategory, item);
    else addMarkupRow(group, markupName!, markupValue, markupType);
    if (anyTop) {
      // Top fields go before CATS and COMS; one set by an earlier row may come after this row's.
      const late = group.topOn !== undefined || group.payload.CATS !== undefined || group.payload.COMS !== undefined;
      for (let i = 0; i < this.top.length; i++) {
        const v = this.topScratch[i];
        const field = this.top[i]!.field;
        if (v === undefined || group.payload[field] !== undefined) continue;
        group.payload[field] = v;
        if (late) group.unordered = true;
        (group.topOn ??= []).push(field, line);
      }
    }
  }

  /** A row the row rules stopped (`RecordStopper`): the open estimate holding `closedLine` is not sent. */
  stopRecordOf(closedLine: number, line: number, message: Worded, column?: string): boolean {
    const g = groupHolding(this.groups, closedLine);
    if (g !== undefined) stopGroup(g, line, message, column);
    return g !== undefined;
  }

  /** The planned estimates, each kept as its canonical JSON (`JsonRecord`), and the lines that cannot be sent. */
  finish(): EstimateMapping {
    if (this.current !== undefined) sealGroup(this.current, this.texts);
    this.current = undefined;
    const groups = this.groups;
    const records: MappedRecord<EstimatePayload>[] = new Array(groups.length);
    let count = 0;
    const statics: StaticLine[] = this.loose;
    this.byProject.clear();
    this.unresolved.clear();
    this.loose = [];
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i]!;
      (groups as Array<EstimateGroup | undefined>)[i] = undefined;
      const record = finishGroup(g, statics);
      if (record !== undefined) records[count++] = record;
    }
    records.length = count;
    groups.length = 0;
    return { records, statics };
  }

  /** Makes `g` the open group, sealing the one open before. */
  private switchTo(g: EstimateGroup): void {
    if (this.current !== undefined) sealGroup(this.current, this.texts);
    if (g.json !== undefined) unsealGroup(g);
    this.current = g;
  }

  private groupFor(projectId: number, name: string): EstimateGroup {
    // The rows of an estimate are nearly always adjacent. A project's estimates have distinct names, so the open one named exactly so is the one.
    const current = this.current;
    if (current !== undefined && current.projectId === projectId && current.name === name) return current;
    const list = this.byProject.get(projectId);
    if (list !== undefined) {
      for (let i = 0; i < list.length; i++) if (list[i]!.name === name) return list[i]!;
      const key = keyText(name);
      for (let i = 0; i < list.length; i++) if (list[i]!.nameKey === key) return list[i]!;
    }
    const g = this.newGroup(projectId, String(projectId), name, String(projectId));
    if (list === undefined) this.byProject.set(projectId, [g]);
    else {
      const owner = list[0]!;
      g.conflict = `not sent: project ${projectId} already gets estimate ${JSON.stringify(owner.name)} from line ${owner.lines[0]!} of this file, and the service allows one estimate per project; put these rows under that estimate name, or target another project`;
      list.push(g);
    }
    return g;
  }

  private unresolvedGroup(projectKey: string, shown: string, name: string): EstimateGroup {
    const key = `${projectKey}\u0000${keyText(name)}`;
    let g = this.unresolved.get(key);
    if (g === undefined) {
      g = this.newGroup(-1, shown, name, `?${projectKey}`);
      g.unresolvedKey = key;
      this.unresolved.set(key, g);
    }
    return g;
  }

  private newGroup(projectId: number, shown: string, name: string, closeKey: string): EstimateGroup {
    const g = openGroup(projectId, shown, name, closeKey);
    this.groups.push(g);
    return g;
  }

  /** Reads the top-level cells into `topScratch`; true when the row gives any. Adds disagreements to `errors`. */
  private readTop({ values, line, formats }: SourceRow, group: EstimateGroup | undefined): boolean {
    let any = false;
    for (let i = 0; i < this.top.length; i++) {
      const t = this.top[i]!;
      const cell = t.index === -1 ? t.constant : (values[t.index] ?? null);
      this.topScratch[i] = undefined;
      if (cell === '' || cell === null) continue;
      let v: unknown;
      try {
        v = t.kind === 'number' ? numberOf(cell, this.rules, formatOf(t, formats)) : parseBoolean(cell);
      } catch (err) {
        if (!(err instanceof CellValueError)) throw err;
        this.errors.push(this.rowError(line, t.header, wordedOf(err)));
        continue;
      }
      if (v === undefined) continue;
      this.topScratch[i] = v;
      any = true;
      if (group === undefined) continue;
      const before = group.payload[t.field];
      if (before !== undefined && before !== v) {
        this.errors.push(this.rowError(line, t.header, `${t.column} is ${String(v)} here but ${String(before)} on line ${lineOf(group.topOn, t.field)}; every row of an estimate must agree on it (or leave it blank)`));
      }
    }
    return any;
  }

  private applyLine(g: EstimateGroup, line: number, category: string, subcategory: string | undefined, item: string | undefined): void {
    let cat = findLevel(g.cats, category);
    if (cat === undefined) {
      cat = { node: { NAME: category }, setOn: undefined, subs: undefined, line };
      g.cats.push(cat);
      if (g.payload.CATS === undefined && g.payload.COMS !== undefined) g.unordered = true;
      ((g.payload.CATS ??= []) as Node[]).push(cat.node);
    } else if (cat.node.NAME !== category) noteSpelling(g, line, category, cat.node.NAME, cat.line);
    let sub: Level | undefined;
    if (subcategory !== undefined) {
      sub = cat.subs === undefined ? undefined : findLevel(cat.subs, subcategory);
      if (sub === undefined) {
        sub = { node: { NAME: subcategory }, setOn: undefined, subs: undefined, line };
        (cat.subs ??= []).push(sub);
        ((cat.node.SUBCATS ??= []) as Node[]).push(sub.node);
      } else if (sub.node.NAME !== subcategory) noteSpelling(g, line, subcategory, sub.node.NAME, sub.line);
    }
    if (item !== undefined) {
      ((sub!.node.ITEMS ??= []) as Node[]).push(this.itemFactory(this.mask)(item, this.scratch));
      return;
    }
    const target = sub ?? cat;
    // A level's fields go before its children, in field order; those set by an earlier row may come after this row's.
    if (this.mask !== 0 && (target.setOn !== undefined || target.node.SUBCATS !== undefined || target.node.ITEMS !== undefined)) g.unordered = true;
    this.copyFields(target.node);
    for (let i = 0; i < this.fields.length; i++) {
      if (this.scratch[i] !== undefined) (target.setOn ??= []).push(this.fields[i]!.field, line);
    }
  }

  /** Adds an error for each field of the row's category or subcategory that an earlier row set to another value. */
  private checkAgreement(g: EstimateGroup, line: number, category: string, subcategory: string | undefined): void {
    const cat = findLevel(g.cats, category);
    const target = subcategory === undefined ? cat : cat?.subs === undefined ? undefined : findLevel(cat.subs, subcategory);
    if (target === undefined) return;
    const what = subcategory === undefined ? `category ${JSON.stringify(category)}` : `subcategory ${JSON.stringify(subcategory)}`;
    for (let i = 0; i < this.fields.length; i++) {
      const v = this.scratch[i];
      if (v === undefined) continue;
      const f = this.fields[i]!;
      const before = target.node[f.field];
      if (before !== undefined && before !== v) {
        this.errors.push(this.rowError(line, f.header, `${f.header} of ${what} is ${JSON.stringify(v)} here but ${JSON.stringify(before)} on line ${lineOf(target.setOn, f.field)}; rows setting one ${subcategory === undefined ? 'category' : 'subcategory'} must agree (or leave it blank)`));
      }
    }
  }

  /**
   * A function building an item with exactly the fields of `mask` (bit i = this.fields[i]), as
   * one object literal. Items are most of an estimate's memory; an object created with all its
   * properties at once holds them in-object, while one grown property by property also carries a
   * separate property array. Rows of a file share a few masks, so there are few factories. The
   * generated source names only the fixed UPPER_CASE fields of payloads/estimate-fields.ts.
   */
  private itemFactory(mask: number): (name: string, values: unknown[]) => Node {
    let make = this.factories.get(mask);
    if (make === undefined) {
      const props = ['NAME: name'];
      for (let i = 0; i < this.fields.length; i++) if ((mask & (1 << i)) !== 0) props.push(`${this.fields[i]!.field}: values[${i}]`);
      make = new Function('name', 'values', `return { ${props.join(', ')} };`) as (name: string, values: unknown[]) => Node;
      this.factories.set(mask, make);
    }
    return make;
  }

  /** The headers of the fields the current row gives (`scratch`), in field order; `lineOnly`: of the line-only fields only. */
  private givenHeaders(lineOnly: boolean): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.fields.length; i++) if (this.scratch[i] !== undefined && (!lineOnly || this.fields[i]!.lineOnly)) out.push(this.fields[i]!.header);
    return out;
  }

  private copyFields(node: Node): void {
    for (let i = 0; i < this.fields.length; i++) {
      const v = this.scratch[i];
      if (v !== undefined) node[this.fields[i]!.field] = v;
    }
  }

  private text(col: Col | undefined, row: SourceRow): string | undefined {
    const cell = cellOf(col, row.values);
    if (cell === null || cell === '') return undefined;
    return this.parse('text', cell, row.line, col!.header, formatOf(col, row.formats), false) as string | undefined;
  }

  private number(col: Col | undefined, row: SourceRow, percent: boolean): number | undefined {
    const cell = cellOf(col, row.values);
    if (cell === null || cell === '') return undefined;
    return this.parse('number', cell, row.line, col!.header, formatOf(col, row.formats), percent) as number | undefined;
  }

  /**
   * One cell; a bad value adds its message to `errors` and reads as not given. Texts are not
   * interned: a group's objects live only until it is sealed (a few rows), so sharing equal
   * strings saved no memory, while the map lookups cost about 5% of the dry run.
   */
  private parse(kind: FieldKind, cell: CellValue, line: number, header: string, format: CellFormat | undefined, percent: boolean): unknown {
    try {
      if (kind === 'text') return textOf(cell, format);
      return kind === 'number' ? numberOf(cell, this.rules, format, percent) : parseId(cell, format);
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
