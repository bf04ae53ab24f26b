import { describe, expect, it } from 'vitest';
import { isDecimalText, roundDecimalText } from '../src/api/decimal-text.ts';

describe('roundDecimalText rounds decimal text half away from zero without floating point', () => {
  it.each([
    ['0.125', '0.13'],
    ['2.675', '2.68'],
    ['1.005', '1.01'],
    ['-1.005', '-1.01'],
    ['-2.675', '-2.68'],
    ['1250.5', '1250.50'],
    ['1250.50', '1250.50'],
    ['1250', '1250.00'],
    ['0.994', '0.99'],
    ['0.995', '1.00'],
    ['9.999', '10.00'],
    ['-9.995', '-10.00'],
    ['.5', '0.50'],
    ['5.', '5.00'],
    ['007.1', '7.10'],
    ['+3.14159', '3.14'],
    ['-0.001', '0.00'],
    ['-0.004', '0.00'],
    ['-0.005', '-0.01'],
    ['12345678901234567890.125', '12345678901234567890.13'],
    [' 42.1 ', '42.10'],
  ])('%s -> %s', (input, expected) => {
    expect(roundDecimalText(input)).toBe(expected);
  });

  it('honours other numbers of places', () => {
    expect(roundDecimalText('2.5', 0)).toBe('3');
    expect(roundDecimalText('-2.5', 0)).toBe('-3');
    expect(roundDecimalText('1.23456', 4)).toBe('1.2346');
  });

  it.each(['1e3', '1,250.00', '$12', '', '-', '.', '1.2.3', 'NaN', 'Infinity', '0x10'])('refuses %j with a message naming it', (input) => {
    expect(() => roundDecimalText(input)).toThrow(RangeError);
    expect(() => roundDecimalText(input)).toThrow(`'${input}' is not a plain decimal number`);
    expect(isDecimalText(input)).toBe(false);
  });

  it('accepts what it can round', () => {
    for (const ok of ['1', '1.5', '-0.25', '.5', '5.']) expect(isDecimalText(ok)).toBe(true);
  });
});
