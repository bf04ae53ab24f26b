import { hash } from 'node:crypto';
import { decodePercentText } from '../project-writer.ts';
import { DATE_TIME_FIELDS, PROJECT_COLUMNS } from './columns.ts';
import { writeAscii, writeWholeNumber } from '../ascii-bytes.ts';

/**
 * One project as a line of PostgreSQL's COPY text format (PostgreSQL docs, COPY, "Text Format"):
 * tab-separated, `\N` for null, backslash, tab, LF and CR escaped, LF at the end; written as
 * UTF-8 bytes, and hashed.
 *
 * The cells:
 * - strings as they are (`SCOPE_OF_WORK` percent-decoded, as the CSV export writes it); an empty
 *   `LMOD` or `DATE_CREATED` is null (a timestamp column cannot hold '');
 * - numbers as `String(n)`, booleans `t`/`f`, null and missing fields `\N`, an object or array in
 *   a nullable field as its JSON text.
 *
 * The hash (SHA-1) identifies the row's values: the change state in Redis (`--changes`) keeps its
 * first 96 bits, and `buildsync_projects.row_hash` its first 48, so both tell an unchanged project
 * without reading its values back. It is taken over the same line with `SCOPE_OF_WORK` as the
 * service sent it (percent-encoded): decoding it is the largest single cost of formatting a line
 * (~0.4 s of CPU time per 200,000 projects, bench/export-postgres.ts), and an unchanged project
 * (most of them, most nights) then needs no decoding at all; `copyBytes()` decodes only for a row
 * that goes to the database.
 *
 * Why bytes and a generated function (as src/export/project-writer.ts does for the CSV export, whose
 * comments say more): built as strings, a 61-cell line is a rope V8 must flatten and then encode
 * for the socket and again for the hash; about 1.5 s of CPU time for 200,000 projects (profiled
 * with --cpu-prof), more than the listing's JSON parsing.
 */
export interface CopyRow {
  /** SHA-1 of the line with `SCOPE_OF_WORK` as sent, base64 (28 characters). */
  sha1: string;
  /** The first 48 bits of `sha1` (its first 8 base64 characters), as `buildsync_projects.row_hash` holds them. */
  hash48: number;
  /** The COPY line, LF included; a view of a buffer the next `copyRow` call overwrites. */
  copyBytes(): Buffer;
}

/**
 * The COPY line of `record`. The export's sinks see each record one after the other: the table's
 * sink and the change tracker share one formatting and one hash per record (the last record's
 * result is kept), so call it for a record only while it is the current one. The result is one
 * object, its fields replaced by the next record's: read them, do not keep it.
 */
export function copyRow(record: Record<string, unknown>): Readonly<CopyRow> {
  if (record === lastRecord) return current;
  at = 0;
  scopeAt = -1;
  copied = undefined;
  room(SLACK);
  writeLine(record);
  // A string, not a Buffer: a Buffer per record is a small native allocation each, which the
  // export's peak RSS showed (bench/export-postgres.ts); a short string dies young in V8's heap.
  const sha1 = hash('sha1', line.subarray(0, at), 'base64');
  current.sha1 = sha1;
  current.hash48 = base64Bits48(sha1);
  lastRecord = record;
  return current;
}

/** The COPY line as a string (tests, and the rare caller that wants text). */
export function copyLine(record: Record<string, unknown>): string {
  return copyRow(record).copyBytes().toString('utf8');
}

/**
 * The SHA-1 the first version of `--to postgres` and `--changes` took: over the COPY line itself
 * (`SCOPE_OF_WORK` decoded). Change states in Redis written by it are compared with this
 * (export-changes.ts), so an upgrade reports no project changed that did not change.
 */
export function legacySha1(record: Record<string, unknown>): string {
  return hash('sha1', copyRow(record).copyBytes(), 'base64');
}

/** The COPY line of the current record: the hashed line with SCOPE_OF_WORK decoded in place. */
function copyBytes(): Buffer {
  if (copied) return copied;
  if (scopeAt < 0) return (copied = line.subarray(0, at));
  const decoded = decodePercentText(scopeRaw);
  const need = scopeAt + 3 * decoded.length + (at - scopeEnd);
  if (out.length < need) out = Buffer.allocUnsafe(Math.max(2 * out.length, need));
  line.copy(out, 0, 0, scopeAt);
  let p = scopeAt;
  p += out.write(escapeCopyText(decoded), p, 'utf8');
  line.copy(out, p, scopeEnd, at);
  p += at - scopeEnd;
  return (copied = out.subarray(0, p));
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE64.length; i++) BASE64_VALUE[BASE64.charCodeAt(i)] = i;

/** The 48 bits of the 8 base64 characters at `from` (6 bits each); an invalid character counts as 0. */
export function base64Bits48(text: string, from = 0): number {
  let n = 0;
  for (let i = from; i < from + 8; i++) n = n * 64 + Math.max(0, BASE64_VALUE[text.charCodeAt(i) & 127]!);
  return n;
}

let lastRecord: Record<string, unknown> | undefined;
/** The current record's result: one object, its fields replaced for each record (no allocation per record). */
const current: CopyRow = { sha1: '', hash48: 0, copyBytes };

/** The line being written: `line[0, at)`; grows for a line that does not fit (a huge SCOPE_OF_WORK). */
let line = Buffer.allocUnsafe(64 * 1024);
let at = 0;
/** Where the percent-encoded SCOPE_OF_WORK cell is in `line` (-1: none to decode), and its text. */
let scopeAt = -1;
let scopeEnd = 0;
let scopeRaw = '';
/** The COPY line when it differs from `line` (a SCOPE_OF_WORK with `%`); `copied`: this record's. */
let out = Buffer.allocUnsafe(64 * 1024);
let copied: Buffer | undefined;

/**
 * Room kept free for the cells that are not strings: a number is at most 24 characters
 * (`String(-1.2345678901234567e-300)`), `\N` 2, plus its tab, and the LF; so those are written
 * without a check each.
 */
const SLACK = PROJECT_COLUMNS.length * 32 + 2;

const writeLine = compileLineWriter();

function compileLineWriter(): (record: Record<string, unknown>) => void {
  // Named property loads (`r["NAME"]`) rather than `r[fields[i]]`: V8 serves them from an inline
  // cache (every listed record has the same shape); the names are JSON string literals.
  const cells = PROJECT_COLUMNS.map(({ field }) => {
    const writer = field === 'SCOPE_OF_WORK' ? 'scopeCell' : DATE_TIME_FIELDS.has(field) ? 'dateCell' : 'cell';
    return `${writer}(r[${JSON.stringify(field)}]);`;
  });
  const body = `${cells.join(' tab();\n')}\nlf();`;
  // new Function: see the module comment
  const make = new Function('cell', 'scopeCell', 'dateCell', 'tab', 'lf', `return function writeCopyLine(r) {\n${body}\n};`);
  return make(cell, scopeCell, dateCell, tab, lf) as (record: Record<string, unknown>) => void;
}

function room(bytes: number): void {
  if (at + bytes <= line.length) return;
  const bigger = Buffer.allocUnsafe(Math.max(2 * line.length, at + bytes));
  line.copy(bigger, 0, 0, at);
  line = bigger;
}

function tab(): void {
  line[at++] = 0x09;
}

function lf(): void {
  line[at++] = 0x0a;
}

function nullCell(): void {
  line[at++] = 0x5c;
  line[at++] = 0x4e;
}

function cell(value: unknown): void {
  switch (typeof value) {
    case 'string':
      putText(value);
      return;
    case 'number':
      if (value >>> 0 === value) at = writeWholeNumber(line, at, value);
      else at = writeAscii(line, at, String(value));
      return;
    case 'boolean':
      line[at++] = value ? 0x74 : 0x66;
      return;
    case 'object':
      if (value === null) nullCell();
      else putText(JSON.stringify(value));
      return;
    default:
      nullCell();
  }
}

/** SCOPE_OF_WORK as sent, percent-encoded; `copyBytes` decodes it when the COPY line is needed. */
function scopeCell(value: unknown): void {
  if (typeof value !== 'string' || value.indexOf('%') === -1) {
    cell(value);
    return;
  }
  scopeRaw = value;
  scopeAt = at;
  putText(value);
  scopeEnd = at;
}

function dateCell(value: unknown): void {
  if (value === '') nullCell();
  else cell(value);
}

/** Text no longer than this is copied character by character when it is plain ASCII. */
const SHORT_TEXT = 32;
const COPY_ESCAPE = /[\\\t\n\r]/g;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A text cell, escaped, as UTF-8. */
function putText(text: string): void {
  const n = text.length;
  if (n === 0) return;
  // UTF-8 needs at most 3 bytes per UTF-16 unit; an escape doubles a one-byte character.
  room(3 * n + SLACK);
  if (n <= SHORT_TEXT) {
    let p = at;
    let i = 0;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      // Non-ASCII, a backslash or a control character: the general path below.
      if (c >= 0x80 || c < 0x20 || c === 0x5c) break;
      line[p++] = c;
    }
    if (i === n) {
      at = p;
      return;
    }
  }
  at += line.write(escapeCopyText(text), at, 'utf8');
}

function escapeCopyText(text: string): string {
  // Four indexOf scans are ~10 times faster than one test of a character-class regex on the long
  // cells (SCOPE_OF_WORK, notes), and most of them have nothing to escape.
  const plain = text.indexOf('\\') === -1 && text.indexOf('\n') === -1 && text.indexOf('\t') === -1 && text.indexOf('\r') === -1;
  return plain ? text : text.replace(COPY_ESCAPE, (c) => COPY_ESCAPES[c]!);
}
