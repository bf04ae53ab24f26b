/**
 * Record keys as the mapping reads them (README "Which rows are records"): the cells that say
 * which record a row belongs to — `bill_ref`, vendor names, estimate, category and subcategory
 * names — are compared with `keyText` (src/values/key-text.ts: ignoring case and leading,
 * trailing and repeated spaces, whichever spaces), the first spelling met is the one sent, and
 * the report says so on each row spelled otherwise.
 *
 * The record key a grouper builds keeps that first spelling (`bill:ref:INV-7|1042|55`): the
 * report and the import store name records as written. The ledger compares record keys with the
 * same rule (src/ledger/record-key.ts), so a later file spelling `inv-7` finds the bill created
 * from `INV-7`.
 */
import type { CellFormat, CellValue } from '../tables/index.ts';
import { CellValueError, isENotation } from '../values/index.ts';
import { parseText } from './values.ts';

export { keyText, sameKeyText } from '../values/index.ts';

/**
 * A reference cell (`bill_ref`): its text as `parseText` reads it, refusing a number Excel
 * wrote in E-notation (`1.23457E+11`), whose lost digits would merge records that differ in them,
 * as an id column refuses it. Blank → undefined.
 */
export function parseRef(cell: CellValue, format?: CellFormat): string | undefined {
  const text = parseText(cell, format);
  if (text !== undefined && isENotation(text)) {
    throw new CellValueError(
      `${JSON.stringify(text)} is a number in E-notation, as Excel shows a long number in a General cell: its last digits are lost, and records that differ only in them would be merged. ` +
        'Format the column as Text in the spreadsheet (or export the full reference) and type or export it again',
    );
  }
  return text;
}

/**
 * The report's note on a row whose key cell is spelled otherwise than the spelling sent, or
 * undefined when it is spelled the same (after trimming).
 */
export function spellingNote(written: string, sent: string, firstLine: number): string | undefined {
  return written === sent ? undefined : `${JSON.stringify(written)} is sent as ${JSON.stringify(sent)}, as first written on line ${firstLine}`;
}

/** Per-line notes of a record: [line, note] pairs in line order, one pair per line. */
export type LineNotes = Array<[number, string]>;

/** Adds `note` for `line` (joined to the note that line already has). */
export function addLineNote(notes: LineNotes, line: number, note: string): void {
  const last = notes[notes.length - 1];
  if (last !== undefined && last[0] === line) last[1] = `${last[1]}; ${note}`;
  else notes.push([line, note]);
}

/** `message` with the line's note, if it has one, after it. */
export function withLineNote(message: string, notes: ReadonlyArray<readonly [number, string]> | undefined, line: number): string {
  if (notes === undefined) return message;
  for (const [l, note] of notes) if (l === line) return message === '' ? note : `${message}; ${note}`;
  return message;
}
