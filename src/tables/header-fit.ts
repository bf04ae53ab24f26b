import { FileError } from '../errors/index.ts';
import type { CsvTableStart } from './csv-head.ts';
import { SINGLE_BYTE_ENCODINGS } from './encoding-evidence.ts';
import { decodeBytes, encodingLabel, encodingName } from './encodings.ts';
import type { HeaderRule } from './types.ts';

/*
 * When the header found does not fit the mapping and another encoding would make it fit, the stop
 * says so (docs/reading-rules.md): never advise mapping or ignoring column names that are only
 * garbled by the wrong encoding. The delimiter's own case is `delimiterFits` in csv-head.ts.
 */

/**
 * The stop for a file read in the single-byte encoding `current` whose header row is not found
 * (`found` undefined) or names fewer columns (`rule.check`'s `named`) than in another single-byte
 * encoding: undefined when no other encoding does better. `head` holds the raw bytes the header
 * search read; `find` runs that search on a reading of them.
 */
export function encodingFits(
  file: string,
  head: Uint8Array,
  current: string,
  rule: HeaderRule | undefined,
  found: CsvTableStart | undefined,
  find: (text: string) => CsvTableStart | undefined,
): FileError | undefined {
  if (rule === undefined || !(SINGLE_BYTE_ENCODINGS as readonly string[]).includes(current)) return undefined;
  if (found !== undefined && found.cells.every(isAsciiText)) return undefined;
  const named = found === undefined ? -1 : rule.check(found.cells, []).named;
  const currentText = decodeBytes(current, head);
  for (const other of SINGLE_BYTE_ENCODINGS) {
    if (other === current) continue;
    const text = decodeBytes(other, head);
    if (text === currentText) continue;
    let fits: CsvTableStart | undefined;
    try {
      fits = find(text);
    } catch {
      continue;
    }
    if (fits === undefined || rule.check(fits.cells, []).named <= named) continue;
    // Single-byte readings put character i at byte i: the same cell in the current reading is at the same place.
    const cell = fits.cells.find((c) => !isAsciiText(c)) ?? fits.cells[0] ?? '';
    const at = text.indexOf(cell);
    const was = at === -1 ? undefined : currentText.slice(at, at + cell.length);
    const shown = was === undefined ? JSON.stringify(cell) : `${JSON.stringify(cell)}, not ${JSON.stringify(was)}`;
    const facts = found === undefined
      ? `${file}: read as ${encodingName(current)}, no row is the header row; read as ${encodingName(other)}, line ${fits.headerLine} is (${shown}): `
      : `${file}:${found.headerLine}: read as ${encodingName(current)}, the header row names fewer columns than read as ${encodingName(other)} (${shown}): `;
    return new FileError(file, [facts, 'use ', { kind: 'option', option: 'encoding', value: encodingLabel(other) }, '.']);
  }
  return undefined;
}

function isAsciiText(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}
