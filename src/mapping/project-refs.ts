/**
 * The project a row targets (docs/reading-rules.md, §4): `project_id`, or `project_number` /
 * `project_name` resolved through the account's project listing.
 */
import type { CellValue, SourceRow } from '../tables/index.ts';
import { RowError, listAtMost } from '../errors/index.ts';
import type { ColumnMap } from './header.ts';
import { CellValueError, parseId, parseText } from './values.ts';

export type ProjectRefKind = 'id' | 'number' | 'name';

/** Turns a project reference into a project ID, or says why it cannot. */
export interface ProjectResolver {
  resolve(ref: { kind: ProjectRefKind; value: string | number }): { id: number } | { error: string };
  /** The project's number and name as the listing names them ('' when it has none), undefined for a project it does not list. */
  listed?(id: number): { number: string; name: string } | undefined;
  /** Every project a record may name (never "My Documents"), by number then name: the import page's `Same for every row: project`. */
  targets?(): Array<{ id: number; number: string; name: string }>;
}

export const PROJECT_REF_COLUMNS = ['project_id', 'project_number', 'project_name'] as const;

/** Seed §1: the pseudo-project holding the user's own files; never a target for an estimate or bill. */
const MY_DOCUMENTS = 'My Documents';

interface ListedProject {
  id: number;
  name: string;
  number: string;
}

/**
 * A resolver over one project listing (GET /api/v2/Projects, read once). IDs must be in the
 * listing: a project the account cannot see would be refused by the service anyway, and saying so
 * here names the row. Numbers and names match exactly after trimming; when nothing matches
 * exactly, a case-insensitive match is tried (a spreadsheet retyped by hand often changes case).
 * Two or more matches are an error naming their IDs, so the user can write `project_id` instead.
 */
export function projectResolverFromListing(projects: Iterable<Record<string, unknown>>): ProjectResolver {
  const byId = new Map<number, ListedProject>();
  const byNumber = new Map<string, ListedProject[]>();
  const byName = new Map<string, ListedProject[]>();
  const add = (index: Map<string, ListedProject[]>, key: string, p: ListedProject): void => {
    for (const k of [key, `\u0000${key.toLowerCase()}`]) {
      const list = index.get(k);
      if (list === undefined) index.set(k, [p]);
      else if (!list.includes(p)) list.push(p);
    }
  };
  for (const record of projects) {
    const id = record.ID;
    if (typeof id !== 'number') continue;
    const name = typeof record.NAME === 'string' ? record.NAME : '';
    const number = typeof record.PROJECT_NUMBER === 'string' ? record.PROJECT_NUMBER.trim() : '';
    const p = { id, name, number };
    byId.set(id, p);
    if (name.trim() !== '') add(byName, name.trim(), p);
    if (number !== '') add(byNumber, number, p);
  }

  const notTarget = (what: string): { error: string } => ({
    error: `${what} is a "My Documents" record (the user's personal files), not a valid target; name a real project`,
  });
  const lookup = (index: Map<string, ListedProject[]>, column: string, value: string): { id: number } | { error: string } => {
    const key = value.trim();
    const found = index.get(key) ?? index.get(`\u0000${key.toLowerCase()}`);
    const shown = JSON.stringify(value);
    if (found === undefined) return { error: `no project visible to this account has ${column} ${shown}; check the spelling or use project_id` };
    const targets = found.filter((p) => p.name !== MY_DOCUMENTS);
    if (targets.length === 0) return notTarget(`${column} ${shown}`);
    if (targets.length > 1) {
      return { error: `${column} ${shown} matches ${targets.length} projects (IDs ${listAtMost(targets.map((p) => p.id))}); use project_id to say which` };
    }
    return { id: targets[0]!.id };
  };

  return {
    resolve({ kind, value }) {
      if (kind === 'id') {
        const p = byId.get(Number(value));
        if (p === undefined) return { error: `project ${value} is not visible to this account` };
        if (p.name === MY_DOCUMENTS) return notTarget(`project ${value}`);
        return { id: p.id };
      }
      return lookup(kind === 'number' ? byNumber : byName, kind === 'number' ? 'project_number' : 'project_name', String(value));
    },
    listed(id) {
      const p = byId.get(id);
      return p === undefined ? undefined : { number: p.number, name: p.name.trim() };
    },
    targets() {
      const order = (a: ListedProject, b: ListedProject) => a.number.localeCompare(b.number, 'en', { numeric: true }) || a.name.localeCompare(b.name, 'en') || a.id - b.id;
      return [...byId.values()].filter((p) => p.name !== MY_DOCUMENTS).sort(order).map((p) => ({ id: p.id, number: p.number, name: p.name.trim() }));
    },
  };
}

/**
 * Reads the project of one row. Used in the hot loop: the columns are looked up once, and
 * resolutions are cached by value (a 1,000,000-row file names a few thousand projects).
 *
 * A row may fill more than one of the three columns; they must then name the same project.
 * Without a resolver (a dry run with no service), `project_id` is taken as written and
 * `project_number` / `project_name` cannot be resolved: such a row is invalid and says so.
 */
export class ProjectRefReader {
  /** After `read` returned -1: why, as a RowError (file, line, column). */
  error: RowError | undefined;
  /** After `read`: the project as written, for labels of rows that cannot be grouped by ID. */
  shown = '';
  /** After `read` returned -1: a key grouping rows that name the same unresolvable project, '' when none was named. */
  unresolvedKey = '';

  private readonly cols: Array<{ kind: ProjectRefKind; column: string; header: string; index: number; constant: CellValue }>;
  private readonly cache = new Map<string, { id: number } | { error: string }>();
  private lastIdCell: CellValue = null;
  private lastId: number | undefined;

  constructor(
    private readonly file: string,
    columns: ColumnMap,
    private readonly resolver: ProjectResolver | undefined,
  ) {
    const kinds: Record<(typeof PROJECT_REF_COLUMNS)[number], ProjectRefKind> = { project_id: 'id', project_number: 'number', project_name: 'name' };
    this.cols = PROJECT_REF_COLUMNS.filter((c) => columns.has(c)).map((column) => {
      const s = columns.source(column)!;
      return { kind: kinds[column], column, header: s.header, index: s.index, constant: s.constant ?? null };
    });
  }

  /** True when the file has at least one of the project columns. */
  get present(): boolean {
    return this.cols.length > 0;
  }

  /**
   * The project ID of the row, or -1 with `error`, `shown` and `unresolvedKey` set. `formats`:
   * the row's .xlsx number formats (a project number formatted `0000` is read as it shows).
   */
  read(values: readonly CellValue[], line: number, formats?: SourceRow['formats']): number {
    let id = -1;
    let firstShown = '';
    this.error = undefined;
    this.unresolvedKey = '';
    for (let i = 0; i < this.cols.length; i++) {
      const c = this.cols[i]!;
      const cell = c.index === -1 ? c.constant : (values[c.index] ?? null);
      if (cell === '' || cell === null) continue;
      let value: string | number | undefined;
      try {
        // Rows of one record are usually adjacent: the same project_id cell as the previous row is not read again.
        const format = formats === undefined || c.index < 0 ? undefined : formats[c.index];
        if (c.kind === 'id' && cell === this.lastIdCell && format === undefined) value = this.lastId;
        else if (c.kind === 'id') {
          value = parseId(cell, format);
          this.lastIdCell = format === undefined ? cell : null;
          this.lastId = value;
        } else value = parseText(cell, format);
      } catch (err) {
        if (!(err instanceof CellValueError)) throw err;
        this.fail(line, c.header, err.message, `${c.kind}:${String(cell)}`, JSON.stringify(String(cell)));
        return -1;
      }
      if (value === undefined) continue;
      const shown = c.kind === 'id' ? String(value) : `${c.column} ${JSON.stringify(value)}`;
      const got = this.resolveOne(c.kind, value);
      if (typeof got === 'string') {
        if (c.kind !== 'id' && this.resolver === undefined && id !== -1) continue; // checked against project_id only when a listing is available
        this.fail(line, c.header, got, `${c.kind}:${value}`, c.kind === 'id' ? shown : JSON.stringify(value));
        return -1;
      }
      if (id === -1) {
        id = got;
        firstShown = shown;
      } else if (got !== id) {
        this.fail(line, c.header, `${shown} is project ${got}, but ${firstShown} on the same row is project ${id}; give one project per row`, `${c.kind}:${value}`, firstShown);
        return -1;
      }
    }
    if (id === -1) {
      const names = this.cols.map((c) => c.header).join(' / ') || 'project_id';
      this.fail(line, undefined, `the project is missing: fill ${names}`, '', '?');
      return -1;
    }
    this.shown = String(id);
    return id;
  }

  private fail(line: number, column: string | undefined, message: string, key: string, shown: string): void {
    this.error = new RowError(this.file, line, column, message);
    this.unresolvedKey = key;
    this.shown = shown;
  }

  /** The ID, or the reason as text. */
  private resolveOne(kind: ProjectRefKind, value: string | number): number | string {
    if (this.resolver === undefined) {
      if (kind === 'id') return value as number;
      return `${kind === 'number' ? 'project_number' : 'project_name'} ${JSON.stringify(value)} can only be resolved through the service's project listing, which this run does not have (a dry run without credentials); use project_id, or set the account's credentials`;
    }
    const cacheKey = `${kind}\u0000${value}`;
    let got = this.cache.get(cacheKey);
    if (got === undefined) {
      got = this.resolver.resolve({ kind, value });
      this.cache.set(cacheKey, got);
    }
    return 'id' in got ? got.id : got.error;
  }
}

/**
 * How `EstimateGrouper` (estimates.ts) keys a row's project for `closeEstimatesAfter`: the project ID, or the
 * project as written when it cannot be resolved (undefined when the row names none), for a first
 * pass over the file that finds the last row naming each project.
 */
export function estimateProjectKeyReader(file: string, columns: ColumnMap, resolver: ProjectResolver | undefined): (row: SourceRow) => string | undefined {
  const projects = new ProjectRefReader(file, columns, resolver);
  return ({ values, line, formats }) => {
    const id = projects.read(values, line, formats);
    if (id !== -1) return String(id);
    return projects.unresolvedKey !== '' ? `?${projects.unresolvedKey}` : undefined;
  };
}

/** Project IDs from here up stand for numbers and names that `UnresolvedProjects` could not resolve. */
const PLACEHOLDER_BASE = 9_000_000_000_000;

/**
 * A dry run without the service (README, Commands, §3): project IDs are taken as written, and each
 * distinct `project_number` / `project_name` stands for one project not yet resolved, so that
 * everything else of the file is still checked and grouped. The IDs it hands out are
 * placeholders: `describe` names what they stand for, and nothing with them is ever sent.
 */
export class UnresolvedProjects implements ProjectResolver {
  private readonly byRef = new Map<string, number>();
  private readonly refs: string[] = [];

  resolve(ref: { kind: ProjectRefKind; value: string | number }): { id: number } {
    if (ref.kind === 'id') return { id: ref.value as number };
    const key = `${ref.kind === 'number' ? 'project_number' : 'project_name'} ${JSON.stringify(String(ref.value).trim())}`;
    let id = this.byRef.get(key);
    if (id === undefined) {
      id = PLACEHOLDER_BASE + this.refs.length;
      this.refs.push(key);
      this.byRef.set(key, id);
    }
    return { id };
  }

  /** How many distinct numbers and names were left unresolved. */
  get count(): number {
    return this.refs.length;
  }

  /** `project_number "P-7"` for a placeholder ID, undefined for a real one. */
  describe(id: number): string | undefined {
    return id >= PLACEHOLDER_BASE ? this.refs[id - PLACEHOLDER_BASE] : undefined;
  }
}
