/**
 * The shapes of the dashboard's answers the import page reads (src/dashboard/import-page.ts
 * writes them from src/import-service/): only the fields the page uses.
 */

import type { Cell } from './dom.ts';

export type Line = number | string;

export interface Vendor {
  name: string;
  /** The ID the account's vendor list holds, if any. */
  listed?: string | null;
  vendorId?: string | null;
}

export interface ReadColumn {
  header: string;
  index: number;
  column: string;
  role?: 'kind' | 'status' | null;
  samples?: string[];
  fromMapping?: boolean;
}

export interface PageOptions {
  dateFormat?: string;
  decimalSeparator?: string;
  encoding?: string;
  delimiter?: string;
  credits?: string;
  discounts?: boolean;
  ignoreTax?: boolean;
  /** `stop`, `none`, or the column whose rows with a value are summary rows. */
  summaryRows?: string | { column: string; values?: string[] };
  amountCurrency?: boolean;
}

/** A required field no column gives (`Same for every row: LABEL`), with its value so far. */
export interface SameField {
  field: 'project' | 'estimate_name' | 'category' | 'vendor';
  label: string;
  value: string;
}

/** GET /import/projects.json. */
export interface Projects {
  projects: { id: number; number: string; name: string }[];
}

export interface FillDown {
  column: string;
  checked?: boolean;
}

export type Constants = Record<string, string | number | boolean>;

/** POST /import/upload and /import/read. */
export interface Reading {
  upload: string;
  table: string;
  columns: ReadColumn[];
  rules?: unknown;
  kept?: { constants?: Constants; encoding?: string };
  sheets?: string[];
  /** The sheet shown. */
  sheet?: string;
  /** The sheet chosen in Sheet (a name or `all`), null when none is. */
  chosenSheet?: string | null;
  /** Sheet's empty entry, with none chosen. */
  noSheetChosen?: string | null;
  headerRow?: number | null;
  headerFound?: boolean;
  hidden?: { rows: number; columns: number } | null;
  messages?: string[];
  layout?: { chosen: string; applied: string; detected?: boolean } | null;
  known?: { name: string; words?: string }[];
  same?: SameField[];
  options?: PageOptions;
  fillDown?: FillDown[];
  lastMapping?: { note: string } | null;
  vendors?: Vendor[];
}

/** POST /import/mapping: a saved mapping applied to the file read. */
export interface SavedMapping {
  name: string;
  constants?: Constants;
  encoding?: string;
  rules?: unknown;
  rulesText?: string;
  headerRow?: number | null;
  hidden?: string;
  layout?: { chosen?: string } | null;
  columns: ReadColumn[];
  options?: PageOptions;
  dateFormat?: string;
  decimalSeparator?: string;
  fillDown?: FillDown[];
}

export interface Problem {
  line: Line;
  /** The header of the bad cell; absent when the problem names no cell. */
  column?: string;
  message: string;
}

export interface CheckedRecord {
  label?: string;
  status: string;
  bill?: { ref?: string; project?: Cell; vendor?: Cell; lines?: number; total?: Cell };
  estimate?: { project?: Cell; name?: string; categories?: number; items?: number; total?: Cell };
}

export interface BudgetWindow {
  window: string;
  limit: number | string;
  needed: number | string;
  remaining: number | string;
  eta: string;
}

export interface Ignored {
  count: number;
  text: string;
  lines: { line: Line; reason: string; message: string }[];
}

/** POST /import/check. */
export interface CheckAnswer {
  rows: number;
  recordCount: number;
  alreadyCreated?: number;
  invalid: Problem[];
  records: CheckedRecord[];
  budget: { text: string; windows: BudgetWindow[] };
  headers: string[];
  shown: { line: Line; cells: (string | null)[] }[];
  editable?: boolean;
  ignored?: Ignored | null;
  vendors?: Vendor[];
  durability?: { refused?: string | null; warning?: string | null };
}

/** GET /import/status.json. */
export interface ImportStatus {
  importId: string;
  done: boolean;
  state: string;
  failedReason?: string;
  counts: { created: number; exists: number; skipped: number; failed: number; unknown: number };
  records: number;
  invalidRows?: number;
  eta: string;
  workers: number;
}

/** GET /import/created.json. */
export interface Created {
  total: number;
  records: { record: string; id: string }[];
}
