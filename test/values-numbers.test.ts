import { describe, expect, it } from 'vitest';
import { RowError } from '../src/errors/index.ts';
import { CellValueError, parseCell, parseDecimalText, parseNumber, US_RULES, type ReadingRules } from '../src/mapping/index.ts';
import { decimalEvidence } from '../src/values/index.ts';

const COMMA: ReadingRules = { decimalSeparator: ',', dateOrder: 'DMY' };

describe('parsing numbers', () => {
  const accepted: [string, number][] = [
    ['1234.5', 1234.5],
    ['1,234.50', 1234.5],
    ['$1,234.50', 1234.5],
    ['(12.00)', -12],
    ['($1,000)', -1000],
    ['15%', 15],
    ['-3', -3],
    ['-$3.25', -3.25],
    ['$-3.25', -3.25],
    ['+7', 7],
    ['  42  ', 42],
    ['.5', 0.5],
    ['0', 0],
    ['007', 7],
    ['1,234,567.891', 1234567.891],
    ['(0)', 0],
  ];
  for (const [text, value] of accepted) {
    it(`reads ${JSON.stringify(text)} as ${value}`, () => {
      // `($1,000)`: one comma and three digits reads two ways until the separator is settled.
      expect(parseNumber(text, { ...US_RULES, decimalSettled: true })).toBe(value);
    });
  }

  it('passes .xlsx numbers through and reads blanks as undefined', () => {
    expect(parseNumber(1234.5)).toBe(1234.5);
    expect(parseNumber(-0.25)).toBe(-0.25);
    expect(parseNumber('')).toBeUndefined();
    expect(parseNumber('   ')).toBeUndefined();
    expect(parseNumber(null)).toBeUndefined();
  });

  const refused = ['abc', '1.234,50', '12,34', '1,2345', '1e5', '--3', '(-3)', '$15%', '1 234', '12.', '$', '%', 'NaN', 'Infinity', '3-'];
  for (const text of refused) {
    it(`refuses ${JSON.stringify(text)}, saying what a number looks like`, () => {
      expect(() => parseNumber(text)).toThrow(CellValueError);
      expect(() => parseNumber(text)).toThrow(`expected a number like 1,234.50, got ${JSON.stringify(text)}`);
    });
  }

  it('refuses booleans and dates from .xlsx', () => {
    expect(() => parseNumber(true)).toThrow('expected a number like 1,234.50, got true');
    expect(() => parseNumber(new Date(Date.UTC(2026, 0, 2)))).toThrow('expected a number like 1,234.50, got 2026-01-02T00:00:00');
  });

  it('turns a refusal into a RowError with file, line and column through parseCell', () => {
    let err: unknown;
    try {
      parseCell(parseNumber, 'ten', 'est.csv', 7, 'Unit Cost');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RowError);
    expect(err).toMatchObject({ code: 'BUILDSYNC_ROW_INVALID', file: 'est.csv', line: 7, column: 'Unit Cost' });
    expect((err as Error).message).toBe('est.csv:7 column Unit Cost: expected a number like 1,234.50, got "ten"');
    expect(parseCell(parseNumber, '$5', 'est.csv', 8, 'Unit Cost')).toBe(5);
  });
});

describe('parsing exact decimal text for money', () => {
  const accepted: [string | number, string][] = [
    ['1234.5', '1234.5'],
    ['1,234.50', '1234.50'],
    ['$1,234.50', '1234.50'],
    ['(12.00)', '-12.00'],
    ['-0.00', '0.00'],
    ['(0)', '0'],
    ['15%', '15'],
    ['000123.4500', '123.4500'],
    ['.5', '0.5'],
    ['123456789012.345', '123456789012.345'],
    [0.1, '0.1'],
    [1250, '1250'],
    [-3.75, '-3.75'],
    [-0, '0'],
    [999999999999999, '999999999999999'],
    [1.5e-7, '0.00000015'],
  ];
  for (const [cell, text] of accepted) {
    it(`reads ${JSON.stringify(cell)} as "${text}"`, () => {
      expect(parseDecimalText(cell)).toBe(text);
    });
  }

  it('refuses an .xlsx number of more than 15 digits: the workbook no longer holds its last ones', () => {
    expect(() => parseDecimalText(1e21)).toThrow('the number 1000000000000000000000 has more than 15 digits; a spreadsheet keeps 15 significant digits (Excel shows it as 1.00000E+21)');
  });

  it('refuses what parseNumber refuses, with the same message', () => {
    expect(() => parseDecimalText('12 dollars')).toThrow('expected a number like 1,234.50, got "12 dollars"');
    expect(() => parseDecimalText(true)).toThrow(CellValueError);
    expect(parseDecimalText(' ')).toBeUndefined();
  });
});

describe('what a written number proves about the decimal separator (docs/reading-rules.md)', () => {
  const cases: Array<[string, '.' | ',' | undefined]> = [
    // both marks: the last one is the decimal one
    ['1,234.50', '.'], ['$1,234.50', '.'], ["1'234.50", '.'], ['(1,250.00)', '.'], ['1,234,567.891', '.'],
    ['1.234,50', ','], ['1.234.567,89', ','], ['2 500,00', ','], ["2'500,00", ','], ['-480,00 €', ','],
    // one mark that grouping cannot explain
    ['2.35', '.'], ['.5', '.'], ['12.5%', '.'], ['1234.567', '.'], ['0.500', '.'],
    ['480,00', ','], [',5', ','], ['15,5%', ','], ['1234,567', ','], ['0,500', ','],
    // no evidence: one mark and three digits, whole numbers, words, dashes
    ['2,500', undefined], ['2.500', undefined], ['1,234', undefined], ['1.234', undefined], ['1,234,567', undefined],
    ['1250', undefined], ["1'234", undefined], ['1 234', undefined], ['-', undefined], [' $ -   ', undefined], ['N/A', undefined], ['02.10.2026', undefined], ['', undefined],
  ];
  for (const [text, mark] of cases) {
    it(`${JSON.stringify(text)} proves ${mark ?? 'nothing'}`, () => {
      expect(decimalEvidence(text)).toBe(mark);
    });
  }

  it('only text carries evidence (an .xlsx number or date is no writing)', () => {
    expect(decimalEvidence(1234.5)).toBeUndefined();
    expect(decimalEvidence(null)).toBeUndefined();
  });
});

describe('numbers read under each separator (docs/reading-rules.md)', () => {
  const read: Array<[string, ReadingRules | undefined, number]> = [
    ["1'234.50", undefined, 1234.5],
    ['2.500,00', COMMA, 2500],
    ['2 500,00', COMMA, 2500],
    ['2\u00a0500,00', COMMA, 2500],
    ['0,500', COMMA, 0.5],
    ['0.500', undefined, 0.5],
    ['1234.567', undefined, 1234.567],
    // Excel's accounting zero and the dashes people write for nothing
    [' $ -   ', undefined, 0],
    ['$ -', undefined, 0],
    ['-', undefined, 0],
    ['—', undefined, 0],
    [' -   ', COMMA, 0],
    ['- €', COMMA, 0],
    ['123456789012345', undefined, 123456789012345],
    ['0.000000000000001234', undefined, 0.000000000000001234],
    // Excel's accounting format: ` $1,250.00 `, ` $(12.00)`
    [' $1,250.00 ', undefined, 1250],
    [' $(12.00)', undefined, -12],
    ['$ (1,250.00) ', undefined, -1250],
  ];
  for (const [text, rules, value] of read) {
    it(`reads ${JSON.stringify(text)} as ${value} with "${rules?.decimalSeparator ?? '.'}"`, () => {
      expect(parseNumber(text, rules)).toBe(value);
    });
  }

  const errors: Array<[string, ReadingRules | undefined, string]> = [
    ['2.500', undefined, '"2.500" can be read two ways: 2500 (with "." grouping thousands) or 2.500 (with "." as the decimal mark). Write 2500 for the first or 2.5 for the second, or say how the file writes numbers with --decimal-separator . or ,'],
    ['$1.250', undefined, '"$1.250" can be read two ways: 1250 (with "." grouping thousands) or 1.250 (with "." as the decimal mark). Write 1250 for the first or 1.25 for the second, or say how the file writes numbers with --decimal-separator . or ,'],
    ['2,500', COMMA, '"2,500" can be read two ways: 2500 (with "," grouping thousands) or 2.500 (with "," as the decimal mark). Write 2500 for the first or 2,5 for the second, or say how the file writes numbers with --decimal-separator . or ,'],
    ['1.234', COMMA, '"1.234" can be read two ways: 1234 (with "." grouping thousands) or 1.234 (with "." as the decimal mark). Write 1234 for the first or 1,2340 for the second, or say how the file writes numbers with --decimal-separator . or ,'],
    ['N/A', undefined, 'expected a number like 1,234.50, got "N/A"'],
    ['n/a', COMMA, 'expected a number like 1.234,50 (the decimal separator of this file is ","), got "n/a"'],
    ['--', undefined, 'expected a number like 1,234.50, got "--"'],
    ['($(12.00))', undefined, 'expected a number like 1,234.50, got "($(12.00))"'],
    ['-$(12.00)', undefined, 'expected a number like 1,234.50, got "-$(12.00)"'],
    ['1234567890123456', undefined, '"1234567890123456" has 16 significant digits; a number keeps 15 (as Excel does), so the last ones would be lost. Check the value, or write it with 15 digits or fewer'],
    ['12345678901234567890.123456789', undefined, '"12345678901234567890.123456789" has 29 significant digits; a number keeps 15 (as Excel does), so the last ones would be lost. Check the value, or write it with 15 digits or fewer'],
    ['1.234.567.890.123,456', COMMA, '"1.234.567.890.123,456" has 16 significant digits; a number keeps 15 (as Excel does), so the last ones would be lost. Check the value, or write it with 15 digits or fewer'],
  ];
  for (const [text, rules, message] of errors) {
    it(`refuses ${JSON.stringify(text)} with "${rules?.decimalSeparator ?? '.'}": ${message.slice(0, 60)}`, () => {
      expect(() => parseNumber(text, rules)).toThrow(message);
      expect(() => parseDecimalText(text, rules)).toThrow(message);
    });
  }
});
