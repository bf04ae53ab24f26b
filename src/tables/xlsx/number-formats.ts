import { isDateNumFmt } from '../xlsx-cell.ts';
import type { CellFormat, DateOrder } from '../types.ts';

/*
 * What a cell's number format says about the value it shows (the `s` of a cell is an index into
 * `<cellXfs>`, whose `numFmtId` is a built-in format or one of `<numFmts>`). Classified once per
 * cell format when styles.xml is read, so that a cell costs one array lookup.
 */

/**
 * The built-in formats (ECMA-376 Part 1, 18.8.30) as Excel (en-US) shows them. Ids 5-8 and 41-44
 * follow the locale's currency; 14 and 22 show the system's short date, in its own order (see
 * `LOCALE_DATES`); 27-36 and 50-58 are East Asian dates, also by locale, and have no code here.
 */
const BUILTIN: Record<number, string> = {
  0: 'General',
  1: '0',
  2: '0.00',
  3: '#,##0',
  4: '#,##0.00',
  5: '$#,##0_);($#,##0)',
  6: '$#,##0_);[Red]($#,##0)',
  7: '$#,##0.00_);($#,##0.00)',
  8: '$#,##0.00_);[Red]($#,##0.00)',
  9: '0%',
  10: '0.00%',
  11: '0.00E+00',
  12: '# ?/?',
  13: '# ??/??',
  14: 'm/d/yyyy',
  15: 'd-mmm-yy',
  16: 'd-mmm',
  17: 'mmm-yy',
  18: 'h:mm AM/PM',
  19: 'h:mm:ss AM/PM',
  20: 'h:mm',
  21: 'h:mm:ss',
  22: 'm/d/yyyy h:mm',
  37: '#,##0 ;(#,##0)',
  38: '#,##0 ;[Red](#,##0)',
  39: '#,##0.00;(#,##0.00)',
  40: '#,##0.00;[Red](#,##0.00)',
  41: '_(* #,##0_);_(* (#,##0);_(* "-"_);_(@_)',
  42: '_("$"* #,##0_);_("$"* (#,##0);_("$"* "-"_);_(@_)',
  43: '_(* #,##0.00_);_(* (#,##0.00);_(* "-"??_);_(@_)',
  44: '_("$"* #,##0.00_);_("$"* (#,##0.00);_("$"* "-"??_);_(@_)',
  45: 'mm:ss',
  46: '[h]:mm:ss',
  47: 'mmss.0',
  48: '##0.0E+0',
  49: '@',
};

/**
 * Built-in dates whose day/month order is the reader's system setting, not the file's: Excel
 * shows id 14 as `3/2/2026` in the US and `02/03/2026` in the UK, so it proves no order.
 */
const LOCALE_DATES = new Set([14, 22]);

/**
 * The format of cell format `numFmtId` (with its `formatCode` when styles.xml defines one), or
 * undefined for General: a General cell shows its value as it is, and costs nothing per row.
 */
export function classifyNumFmt(id: number, formatCode: string | undefined): CellFormat | undefined {
  const code = formatCode ?? BUILTIN[id] ?? '';
  if (/^\s*general\s*$/i.test(code) || (formatCode === undefined && id === 0)) return undefined;
  if (isDateNumFmt(id, formatCode)) {
    const order = formatCode === undefined && LOCALE_DATES.has(id) ? undefined : dateOrder(code);
    return order === undefined ? { kind: 'date', id, code } : { kind: 'date', id, code, order };
  }
  // A built-in id this table does not know (locale formats) or a damaged one: shown as General.
  if (code.trim() === '') return undefined;
  if (code.trim() === '@') return { kind: 'text', id, code };
  const section = firstSection(code);
  if (section.bare.includes('%')) return { kind: 'percent', id, code };
  return { kind: addsCharacters(section) ? 'padded' : 'other', id, code };
}

interface Section {
  /** The section without quoted text, `\x` escapes, `_x`/`*x` padding and `[...]` (colours, conditions, locales). */
  bare: string;
  /** Whether it shows text of its own: quoted text or `\x` escapes. */
  literal: boolean;
}

/** The first section of a format code (positive numbers; the others only change the sign or colour). */
function firstSection(code: string): Section {
  let bare = '';
  let literal = false;
  for (let i = 0; i < code.length; i++) {
    const ch = code[i]!;
    if (ch === ';') break;
    if (ch === '"') {
      const end = code.indexOf('"', i + 1);
      literal ||= end !== i + 1;
      i = end < 0 ? code.length : end;
    } else if (ch === '\\') {
      literal = true;
      i++;
    } else if (ch === '_' || ch === '*') i++;
    else if (ch === '[') {
      const end = code.indexOf(']', i + 1);
      i = end < 0 ? code.length : end;
    } else bare += ch;
  }
  return { bare, literal };
}

/**
 * Whether a number format shows a whole number with more than its digits: leading zeros (`0000`
 * shows 310 as `0310`) or characters of its own (`00\-000` shows 2410 as `02-410`, `"INV-"0`).
 * Decimals, grouping, exponents and fractions make it a number format (`#,##0.00`), whatever
 * else it shows.
 */
function addsCharacters({ bare, literal }: Section): boolean {
  if (!/[0#?]/.test(bare) || /[.,/Ee]/.test(bare)) return false;
  const zeros = bare.split('0').length - 1;
  const others = bare.replace(/[0#?]/g, '').trim();
  return zeros >= 2 || literal || others !== '';
}

/**
 * The order in which a date format writes the day and the month (`dd/mm/yyyy` DMY, `mm/dd/yyyy`
 * MDY, `yyyy-mm-dd` YMD), or undefined when it writes no day or no month (`mmm-yy`, `h:mm`).
 * An `m` next to `h` or `s` is minutes, as Excel reads it.
 */
function dateOrder(code: string): DateOrder | undefined {
  const tokens = (firstSection(code).bare.toLowerCase().match(/y+|m+|d+|h+|s+/g) ?? []).map((t) => t[0]!);
  const parts: string[] = [];
  tokens.forEach((t, i) => {
    if (t === 'm' && (tokens[i - 1] === 'h' || tokens[i + 1] === 's')) return;
    if (t === 'y' || t === 'm' || t === 'd') parts.push(t);
  });
  const d = parts.indexOf('d');
  const m = parts.indexOf('m');
  if (d < 0 || m < 0) return undefined;
  const y = parts.indexOf('y');
  if (m < d) return y >= 0 && y < m ? 'YMD' : 'MDY';
  return 'DMY';
}
