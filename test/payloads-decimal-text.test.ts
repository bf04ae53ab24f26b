import { describe, expect, it } from 'vitest';
import { fitsDecimalPlaces, fixedDecimalText, isDecimalText } from '../src/values/index.ts';

describe('fixedDecimalText writes exactly two decimals and never rounds', () => {
  it.each([
    ['1250.5', '1250.50'],
    ['1250.50', '1250.50'],
    ['1250', '1250.00'],
    ['12.3400', '12.34'],
    ['.5', '0.50'],
    ['5.', '5.00'],
    ['007.1', '7.10'],
    ['+3.14', '3.14'],
    ['-0.00', '0.00'],
    ['-1.05', '-1.05'],
    ['12345678901234567890.12', '12345678901234567890.12'],
    [' 42.1 ', '42.10'],
  ])('%s -> %s', (input, expected) => {
    expect(fixedDecimalText(input)).toBe(expected);
    expect(fitsDecimalPlaces(input.trim(), 2)).toBe(true);
  });

  it.each(['2.675', '1234.567', '0.001', '-1.005'])('refuses %s, whose third decimal is not zero, instead of rounding it', (input) => {
    expect(fitsDecimalPlaces(input, 2)).toBe(false);
    expect(() => fixedDecimalText(input)).toThrow(`'${input}' has more than 2 decimals; it is refused rather than rounded`);
  });

  it('honours other numbers of places', () => {
    expect(fixedDecimalText('2', 0)).toBe('2');
    expect(fixedDecimalText('1.2345', 4)).toBe('1.2345');
    expect(() => fixedDecimalText('2.5', 0)).toThrow(RangeError);
  });

  it.each(['1e3', '1,250.00', '$12', '', '-', '.', '1.2.3', 'NaN', 'Infinity', '0x10'])('refuses %j with a message naming it', (input) => {
    expect(() => fixedDecimalText(input)).toThrow(RangeError);
    expect(() => fixedDecimalText(input)).toThrow(`'${input}' is not a plain decimal number`);
    expect(isDecimalText(input)).toBe(false);
  });

  it('accepts plain decimal notation', () => {
    for (const ok of ['1', '1.5', '-0.25', '.5', '5.']) expect(isDecimalText(ok)).toBe(true);
  });
});
