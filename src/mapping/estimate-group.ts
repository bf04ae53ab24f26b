/**
 * What `EstimateGrouper` (estimates.ts) builds per estimate: its open objects while rows fill it,
 * or its sealed JSON (estimate-seal.ts), and what it becomes once the file is read: a record to
 * send, or report lines saying why it is not sent.
 */
import { joinWorded, listAtMost, wordedLine, type Worded } from '../errors/index.ts';
import type { EstimatePayload } from '../payloads/index.ts';
import { JsonRecord, type MappedRecord } from './mapped-record.ts';
import type { CellProblem, StaticLine } from './report-line.ts';
import type { TextRef } from './text-arena.ts';
import { addLineNote, keyText, spellingNote, type LineNotes } from './record-key.ts';
import { invalidLine } from './row-errors.ts';

export type Node = Record<string, unknown> & { NAME: string };

/** A category or subcategory being filled, and the lines that set its own fields. */
export interface Level {
  node: Node;
  /** Flat pairs [field, line, field, line, …]: which row set each field (for disagreement messages). */
  setOn: Array<string | number> | undefined;
  /** Subcategories of a category, in order of first appearance. */
  subs: Level[] | undefined;
  /** The line that first named it (its spelling is the one sent); kept through a seal (`levelLines`). */
  line?: number;
  /** `keyText` of its name, once asked (`findLevel`). */
  key?: string;
}

export interface EstimateGroup {
  projectId: number;
  /** The estimate name as first written, and its `keyText` (rows naming it otherwise join it). */
  name: string;
  nameKey: string;
  /** Rows whose estimate, category or subcategory name is spelled otherwise: the report's note on each. */
  notes: LineNotes | undefined;
  /** `project 1042` or the project as written when it could not be resolved. */
  shown: string;
  lines: number[];
  /** The estimate being built; `SEALED_PAYLOAD` (estimate-seal.ts) while the group is sealed. */
  payload: EstimatePayload & Record<string, unknown>;
  /** Its categories being filled; `SEALED_CATS` while the group is sealed. */
  cats: Level[];
  /**
   * Some object of `payload` may have a key after one that comes later in the canonical order
   * (estimate-seal.ts: a field set by a row after a later field or after the level's children),
   * so that sealing must copy it in order; false while every key was added in order.
   */
  unordered: boolean;
  /**
   * Set while the group is sealed (see `sealGroup`, estimate-seal.ts): the estimate's canonical JSON,
   * and `setOn` of each category and subcategory in payload order.
   */
  json: TextRef | undefined;
  levelsOn: Array<Array<string | number> | undefined> | undefined;
  /** When sealed: the `line` of each category and subcategory, in payload order. */
  levelLines: Array<number | undefined> | undefined;
  /** When sealed: the service's-rules message of an invalid payload, or undefined when valid. */
  issues: string | undefined;
  /** Flat pairs [field, line, …] for the top-level fields. */
  topOn: Array<string | number> | undefined;
  /** Lines of invalid rows and their messages, in parallel. */
  badLines: number[] | undefined;
  badMessages: Worded[] | undefined;
  /** The header of each bad line's bad cell (undefined: its message names none), in parallel. */
  badColumns: Array<string | undefined> | undefined;
  /** The bad rows with several errors: each error with its cell, by line. */
  badCells?: Map<number, CellProblem[]>;
  /** Set when another estimate of the file already targets the project. */
  conflict: string | undefined;
  /** The project as `estimateProjectKeyReader` keys it (`closeEstimatesAfter`). */
  closeKey: string;
  /** Its key in `unresolved`, for an estimate whose project could not be resolved. */
  unresolvedKey: string | undefined;
}

/** A new estimate group, open, with no row yet. */
export function openGroup(projectId: number, shown: string, name: string, closeKey: string): EstimateGroup {
  return {
    projectId, name, nameKey: keyText(name), notes: undefined, shown, lines: [], payload: { NAME: name, PROJECT_ID: projectId }, cats: [], unordered: false,
    json: undefined, levelsOn: undefined, levelLines: undefined, issues: undefined, topOn: undefined, badLines: undefined, badMessages: undefined, badColumns: undefined, conflict: undefined,
    closeKey, unresolvedKey: undefined,
  };
}

export function lineOf(pairs: Array<string | number> | undefined, field: string): number | string {
  if (pairs !== undefined) for (let i = 0; i < pairs.length; i += 2) if (pairs[i] === field) return pairs[i + 1]!;
  return '?';
}

/** The level named `name` as a person reads it (`keyText`): spelled as written first or otherwise. */
export function findLevel(levels: Level[], name: string): Level | undefined {
  for (let i = 0; i < levels.length; i++) if (levels[i]!.node.NAME === name) return levels[i];
  const key = keyText(name);
  for (let i = 0; i < levels.length; i++) {
    const level = levels[i]!;
    if ((level.key ??= keyText(level.node.NAME)) === key) return level;
  }
  return undefined;
}

/** A row naming a key of `g` (its name, a category, a subcategory) otherwise than it is sent: the report says which spelling is. */
export function noteSpelling(g: EstimateGroup, line: number, written: string, sent: string, firstLine: number | undefined): void {
  const note = spellingNote(written, sent, firstLine ?? g.lines[0] ?? line);
  if (note !== undefined) addLineNote((g.notes ??= []), line, note);
}

/** One sealed, complete estimate: a record to send, or report lines saying why it is not sent. */
export function finishGroup(g: EstimateGroup, statics: StaticLine[]): MappedRecord<EstimatePayload> | undefined {
  const label = `project ${g.shown} / ${g.name}`;
  if (g.badLines !== undefined || g.conflict !== undefined) {
    rejectGroup(g, label, statics);
    return undefined;
  }
  if (g.issues !== undefined) {
    for (const line of g.lines) statics.push({ line, record: label, status: 'invalid', message: `not sent: the estimate does not meet the service's rules for estimates: ${g.issues}` });
    return undefined;
  }
  return new JsonRecord<EstimatePayload>(`estimate:project:${g.projectId}`, label, g.lines, g.json!, g.notes);
}

function rejectGroup(g: EstimateGroup, label: string, statics: StaticLine[]): void {
  const bad = g.badLines ?? [];
  const why = g.conflict ?? `not sent: ${bad.length === 1 ? `line ${bad[0]} of this estimate is invalid` : `lines ${listAtMost(bad)} of this estimate are invalid`}`;
  let b = 0;
  for (const line of g.lines) {
    if (b < bad.length && bad[b] === line) {
      const message = g.conflict === undefined ? g.badMessages![b]! : joinWorded([g.badMessages![b]!, g.conflict], '; ');
      statics.push(invalidLine(line, label, message, g.badColumns?.[b], g.conflict === undefined ? g.badCells?.get(line) : undefined));
      b++;
    } else statics.push({ line, record: label, status: 'invalid', ...wordedLine(why) });
  }
}

/** One `COMS` row of a markup row (README, estimate spreadsheets: `markup_name`, `markup_value`, `markup_type`). */
export function addMarkupRow(g: EstimateGroup, name: string, value: number | undefined, type: number | undefined): void {
  const row: Record<string, unknown> = { NAME: name };
  if (value !== undefined) row.VALUE = value;
  if (type !== undefined) row.MARKUP_TYPE = type;
  ((g.payload.COMS ??= []) as unknown[]).push(row);
}
