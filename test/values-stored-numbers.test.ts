import { describe, expect, it } from 'vitest';
import { decimalText, percentShown, showWholeNumber, storedNumber, storedNumberText } from '../src/values/index.ts';

// The value primitives behind "what a cell shows" (.xlsx): a number at Excel's 15 significant
// digits, a percent-formatted fraction as its percentage, and the text a padding format shows.

describe('an .xlsx number at 15 significant digits', () => {
  const cases: Array<[number, string]> = [
    [114.99999999999999, '115'], // =100*1.15
    [0.30000000000000004, '0.3'], // =0.1+0.2
    [123456789012, '123456789012'],
    [999999999999999, '999999999999999'],
    [-2.675, '-2.675'],
    [1.5e-7, '0.00000015'],
    [-0, '0'],
  ];
  for (const [n, text] of cases) it(`${n} is ${text}`, () => expect(storedNumberText(n)).toBe(text));

  it('refuses 1e15 and more: the workbook no longer holds the digits past the 15th', () => {
    expect(() => storedNumber(1.23456789012346e19)).toThrow('the number 12345678901234600000 has more than 15 digits');
    expect(() => storedNumber(-1e15)).toThrow('has more than 15 digits');
  });
});

describe('the percentage a percent-formatted cell shows, in decimal', () => {
  const cases: Array<[number, string]> = [[0.15, '15'], [0.0825, '8.25'], [0.15000000000000002, '15'], [1.5, '150'], [-0.05, '-5'], [0.00001, '0.001'], [12, '1200'], [0, '0']];
  for (const [n, text] of cases) it(`${n} shows ${text}%`, () => expect(decimalText(percentShown(n))).toBe(text));
});

describe('the text a whole-number format shows', () => {
  const cases: Array<[number, string, string | undefined]> = [
    [310, '0000', '0310'],
    [2410, '00\\-000', '02-410'],
    [42, '"INV-"0000', 'INV-0042'],
    [123456, '0000', '123456'], // more digits than placeholders: all shown
    [0, '0000', '0000'],
    [0, '##', ''],
    [5, '# 00', ' 05'],
    [7, '"No. "#', 'No. 7'],
    // Not rendered here: read as digits by the caller.
    [1.5, '0000', undefined],
    [-7, '0000', undefined],
    [7, '0.00', undefined],
    [7, '[Red]0000', undefined],
    [7, '0000;(0000)', undefined],
    [7, '"unclosed', undefined],
    [7, '"text only"', undefined],
  ];
  for (const [n, code, shown] of cases) it(`${n} with ${code} shows ${JSON.stringify(shown)}`, () => expect(showWholeNumber(n, code)).toBe(shown));
});
