import { describe, expect, it } from 'vitest';
import { numberOf } from '../src/mapping/fast-cells.ts';
import { parseBoolean, parseDate, parseDecimalText, parseId, parseNumber, parseText, US_RULES, type ReadingRules } from '../src/mapping/index.ts';
import { asciiNumberForm, decimalEvidence } from '../src/values/index.ts';
import { writtenCurrency } from '../src/values/written-currency.ts';

// docs/reading-rules.md, "Numbers and dates": the forms a number takes as programs write it.

const POINT: ReadingRules = { decimalSeparator: '.', dateOrder: 'MDY', decimalSettled: true };
const COMMA: ReadingRules = { decimalSeparator: ',', dateOrder: 'DMY', decimalSettled: true };
const COMMA_ASSUMED: ReadingRules = { decimalSeparator: ',', dateOrder: 'DMY' };

describe('a proved or named separator settles one mark and three digits', () => {
  it.each([
    ['4.850', POINT, 4.85], ['12.500', POINT, 12.5], ['8.250', POINT, 8.25], ['2,500', POINT, 2500], ['$2,500', POINT, 2500], ['1,250.000', POINT, 1250],
    ['1.250', COMMA, 1250], ['42,50', COMMA, 42.5], ['2,500', COMMA, 2.5], ['1.234', COMMA, 1234],
  ] as const)('%s with %o is %d', (text, rules, value) => {
    expect(parseNumber(text, rules)).toBe(value);
    expect(numberOf(text, rules)).toBe(value);
  });

  it('assumed (no proof, no option), each reads two ways and is a row error naming both', () => {
    expect(() => parseNumber('2,500', US_RULES)).toThrow('"2,500" can be read two ways: 2500 (with "," grouping thousands) or 2.500 (with "," as the decimal mark). Write 2500 for the first or 2.5 for the second, or say how the file writes numbers with --decimal-separator . or ,');
    expect(() => numberOf('$2,500', US_RULES)).toThrow('"$2,500" can be read two ways: 2500 (with "," grouping thousands) or 2.500 (with "," as the decimal mark). Write 2500 for the first or 2.5 for the second, or say how the file writes numbers with --decimal-separator . or ,');
    expect(() => parseNumber('1.250', COMMA_ASSUMED)).toThrow('"1.250" can be read two ways: 1250 (with "." grouping thousands) or 1.250 (with "." as the decimal mark). Write 1250 for the first or 1,25 for the second, or say how the file writes numbers with --decimal-separator . or ,');
    expect(parseNumber("2'500", US_RULES)).toBe(2500); // an apostrophe never marks decimals
  });
});

describe('Indian grouping, full-width forms, a currency after the number', () => {
  it.each([
    ['1,23,456.78', 123456.78], ['12,34,567', 1234567], ['1,00,00,000.50', 10000000.5], ['₹1,23,456.78', 123456.78],
    ['１２３．５', 123.5], ['－５０', -50], ['１，２３４．５０', 1234.5], ['￥１２，０００', 12000], ['−12.5', -12.5],
    ['850.00 CAD', 850], ['850.00 $', 850], ['(850.00 $)', -850],
  ])('%s is %d with "."', (text, value) => {
    expect(parseNumber(text, POINT)).toBe(value);
  });

  it.each([['850,00 $', 850], ['1\u00a0250,00 $', 1250], ['-850,00 $', -850], ['850,00 EUR', 850]])('%s is %d with ","', (text, value) => {
    expect(parseNumber(text, COMMA)).toBe(value);
  });

  it('the weighing sees through them: 1,23,456.78 and １２．５ prove ".", 850,00 $ proves ","', () => {
    expect(decimalEvidence('1,23,456.78')).toBe('.');
    expect(decimalEvidence('１２．５')).toBe('.');
    expect(decimalEvidence('850,00 $')).toBe(',');
    expect(decimalEvidence('12,34,567')).toBeUndefined();
  });

  it('the currency after the number is exposed as one before it is', () => {
    expect(writtenCurrency('850,00 $')).toMatchObject({ marker: '$', amount: '850,00' });
    expect(writtenCurrency('850,00 $')!.codes).toContain('CAD');
    expect(writtenCurrency('850.00 CAD')).toEqual({ marker: 'CAD', codes: ['CAD'], amount: '850.00' });
    expect(writtenCurrency('₹1,23,456.78')).toEqual({ marker: '₹', codes: ['INR'], amount: '1,23,456.78' });
  });

  it('a CAD account reads 850,00 $ and refuses 850,00 € (another currency)', () => {
    const cad = { ...COMMA, currency: 'CAD' };
    expect(parseDecimalText('850,00 $', cad)).toBe('850.00');
    expect(() => parseNumber('850,00 €', cad)).toThrow('"850,00 €" is in EUR, but this account\'s amounts are in CAD');
  });

  it('full-width text that is no number stays refused; other text is left as it is', () => {
    expect(asciiNumberForm('Crew day')).toBe('Crew day');
    expect(() => parseNumber('１２ａ', POINT)).toThrow('expected a number like 1,234.50, got "１２ａ"');
  });
});

describe("Excel's error texts in a CSV cell are a row error in any field", () => {
  const said = (error: string, meaning: string) => `"${error}" is the error value a spreadsheet saved in place of a formula's result (${meaning}), not a value; fix the formula or type the value, then save the file again`;
  it.each([
    ['#N/A', 'a lookup found no match, or a value is not available'],
    ['#REF!', 'it refers to a cell that was deleted'],
    ['#VALUE!', 'an argument has the wrong type'],
    ['#DIV/0!', 'it divides by zero'],
    ['#NAME?', 'it uses a function or name Excel does not know'],
    ['#NUM!', 'a number is out of range or a calculation does not converge'],
    ['#NULL!', 'two ranges that do not intersect'],
  ])('%s', (error, meaning) => {
    for (const parse of [(c: string) => parseText(c), (c: string) => parseNumber(c, POINT), (c: string) => parseDecimalText(c, POINT), (c: string) => parseId(c), (c: string) => parseBoolean(c), (c: string) => parseDate(c, POINT)]) {
      expect(() => parse(error)).toThrow(said(error, meaning));
    }
  });

  it('other text starting with # stays text', () => {
    expect(parseText('#12 bolts')).toBe('#12 bolts');
    expect(parseText('#N/A ok')).toBe('#N/A ok');
  });
});
