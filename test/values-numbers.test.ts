import { describe, expect, it } from 'vitest';
import { RowError } from '../src/errors/index.ts';
import { CellValueError, parseCell, parseDecimalText, parseNumber } from '../src/mapping/index.ts';

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
      expect(parseNumber(text)).toBe(value);
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
    ['12345678901234567890.123456789', '12345678901234567890.123456789'],
    [0.1, '0.1'],
    [1250, '1250'],
    [-3.75, '-3.75'],
    [-0, '0'],
    [1e21, '1000000000000000000000'],
    [1.5e-7, '0.00000015'],
  ];
  for (const [cell, text] of accepted) {
    it(`reads ${JSON.stringify(cell)} as "${text}"`, () => {
      expect(parseDecimalText(cell)).toBe(text);
    });
  }

  it('refuses what parseNumber refuses, with the same message', () => {
    expect(() => parseDecimalText('12 dollars')).toThrow('expected a number like 1,234.50, got "12 dollars"');
    expect(() => parseDecimalText(true)).toThrow(CellValueError);
    expect(parseDecimalText(' ')).toBeUndefined();
  });
});
