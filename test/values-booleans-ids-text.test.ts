import { describe, expect, it } from 'vitest';
import { CellValueError, isBlank, parseBoolean, parseId, parseText } from '../src/mapping/index.ts';

describe('parsing booleans', () => {
  const accepted: [string, boolean][] = [
    ['true', true], ['TRUE', true], ['False', false],
    ['yes', true], ['No', false],
    ['y', true], ['N', false],
    ['1', true], ['0', false],
    ['x', true], [' X ', true],
  ];
  for (const [text, value] of accepted) {
    it(`reads ${JSON.stringify(text)} as ${value}`, () => {
      expect(parseBoolean(text)).toBe(value);
    });
  }

  it('reads an empty cell as not set, and .xlsx booleans and 1/0 as themselves', () => {
    expect(parseBoolean('')).toBeUndefined();
    expect(parseBoolean(null)).toBeUndefined();
    expect(parseBoolean(true)).toBe(true);
    expect(parseBoolean(0)).toBe(false);
    expect(parseBoolean(1)).toBe(true);
  });

  for (const bad of ['maybe', 'on', 't', '2', 'yes!']) {
    it(`refuses ${JSON.stringify(bad)}`, () => {
      expect(() => parseBoolean(bad)).toThrow(CellValueError);
      expect(() => parseBoolean(bad)).toThrow(`expected true/false, yes/no, y/n, 1/0 or x, got ${JSON.stringify(bad)}`);
    });
  }
  it('refuses other numbers and dates', () => {
    expect(() => parseBoolean(2)).toThrow('got 2');
    expect(() => parseBoolean(new Date(Date.UTC(2026, 0, 1)))).toThrow('got 2026-01-01T00:00:00');
  });
});

describe('parsing identifiers', () => {
  const accepted: [string | number, number][] = [['1042', 1042], [' 1042 ', 1042], ['1,042', 1042], ['0042', 42], ['1,000,000', 1_000_000], [1042, 1042]];
  for (const [cell, id] of accepted) {
    it(`reads ${JSON.stringify(cell)} as ${id}`, () => {
      expect(parseId(cell)).toBe(id);
    });
  }
  it('reads blanks as undefined', () => {
    expect(parseId('')).toBeUndefined();
    expect(parseId(null)).toBeUndefined();
  });
  for (const bad of ['0', '-5', '12.5', '1,04', '12,34', 'A12', '1e3', '99999999999999999999', 0, -1, 1.5]) {
    it(`refuses ${JSON.stringify(bad)}`, () => {
      expect(() => parseId(bad)).toThrow(`expected a positive whole number like 1042, got ${typeof bad === 'string' ? JSON.stringify(bad) : bad}`);
    });
  }
});

describe('parsing text', () => {
  it('trims, reads blanks as undefined and writes .xlsx values out as text', () => {
    expect(parseText('  Kitchen remodel  ')).toBe('Kitchen remodel');
    expect(parseText('   ')).toBeUndefined();
    expect(parseText(null)).toBeUndefined();
    expect(parseText(101)).toBe('101');
    expect(parseText(0.1)).toBe('0.1');
    expect(parseText(false)).toBe('false');
    // A date cell in a text field is what Excel made of `3-1` or `1/3`: refused, never a timestamp.
    expect(() => parseText(new Date(Date.UTC(2026, 2, 1)))).toThrow('Excel stored this as a date; type it as text: the cell holds the date 2026-03-01, not the text typed');
  });

  it('knows a blank cell', () => {
    expect([null, undefined, '', ' \t '].map(isBlank)).toEqual([true, true, true, true]);
    expect(['0', 0, false, 'x'].map(isBlank)).toEqual([false, false, false, false]);
  });
});
