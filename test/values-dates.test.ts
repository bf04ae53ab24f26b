import { describe, expect, it } from 'vitest';
import { CellValueError, parseDate } from '../src/mapping/index.ts';

describe('parsing dates', () => {
  const accepted: [string, string][] = [
    ['2026-03-01', '2026-03-01T00:00:00'],
    ['2026-03-01T08:30:00', '2026-03-01T08:30:00'],
    ['2026-03-01T08:30', '2026-03-01T08:30:00'],
    ['2026-03-01 08:30:15', '2026-03-01T08:30:15'],
    ['2026-03-01T08:30:15.250', '2026-03-01T08:30:15'],
    // A zone is dropped: the wall-clock time as written is what the service stores.
    ['2026-03-01T08:30:00Z', '2026-03-01T08:30:00'],
    ['2026-03-01T08:30:00+02:00', '2026-03-01T08:30:00'],
    ['2026-03-01T08:30:00-0500', '2026-03-01T08:30:00'],
    ['03/01/2026', '2026-03-01T00:00:00'],
    ['3/1/2026', '2026-03-01T00:00:00'],
    ['12/31/2026 23:59', '2026-12-31T23:59:00'],
    ['3/1/2026 8:30 PM', '2026-03-01T20:30:00'],
    ['3/1/2026 12:05:09 am', '2026-03-01T00:05:09'],
    ['02/29/2028', '2028-02-29T00:00:00'],
    ['2000-02-29', '2000-02-29T00:00:00'],
    ['  2026-03-01  ', '2026-03-01T00:00:00'],
  ];
  for (const [text, iso] of accepted) {
    it(`reads ${JSON.stringify(text)} as ${iso}`, () => {
      expect(parseDate(text)).toBe(iso);
    });
  }

  it('reads .xlsx Dates by their wall-clock (UTC) fields; a plain number (a cell not formatted as a date) is no date', () => {
    expect(parseDate(new Date(Date.UTC(2026, 2, 1, 8, 30, 5)))).toBe('2026-03-01T08:30:05');
    expect(() => parseDate(46082)).toThrow('got the number 46082: the cell is not formatted as a date, so Excel shows it as a number, not a date');
    expect(() => parseDate(46082.75)).toThrow('got the number 46082.75');
    expect(parseDate('')).toBeUndefined();
    expect(parseDate(null)).toBeUndefined();
  });

  it('refuses dates that do not exist on the calendar', () => {
    expect(() => parseDate('2026-02-30')).toThrow('"2026-02-30" is not a calendar date (February 2026 has 28 days)');
    expect(() => parseDate('02/29/2026')).toThrow('"02/29/2026" is not a calendar date (February 2026 has 28 days)');
    expect(() => parseDate('1900-02-29')).toThrow(CellValueError);
    expect(() => parseDate('2026-13-01')).toThrow('"2026-13-01" is not a calendar date (the month must be 1-12)');
    expect(() => parseDate('2026-04-31')).toThrow('(April 2026 has 30 days)');
    expect(() => parseDate('2026-03-01T24:00:00')).toThrow('"2026-03-01T24:00:00" is not a valid time of day');
    expect(() => parseDate('3/1/2026 13:00 PM')).toThrow('has an hour outside 1-12 before PM');
  });

  it('reads D/M/YYYY-shaped dates in the order the file settled, and year-first dates in any order', () => {
    const dmy = { decimalSeparator: ',', dateOrder: 'DMY' } as const;
    expect(parseDate('03/02/2026', dmy)).toBe('2026-02-03T00:00:00');
    expect(parseDate('01.03.2026', dmy)).toBe('2026-03-01T00:00:00');
    expect(parseDate('31-12-2026 08:30', dmy)).toBe('2026-12-31T08:30:00');
    expect(parseDate('03/02/2026')).toBe('2026-03-02T00:00:00');
    expect(parseDate('2026/03/01')).toBe('2026-03-01T00:00:00');
    expect(() => parseDate('31/02/2026', dmy)).toThrow('"31/02/2026" is not a calendar date (February 2026 has 28 days)');
    expect(() => parseDate('02/13/2026', dmy)).toThrow('"02/13/2026" is not a date in the order day/month/year this file is read in');
    expect(() => parseDate('13/02/2026')).toThrow('"13/02/2026" is not a date in the order month/day/year this file is read in');
    expect(() => parseDate('03/02/2026', { decimalSeparator: '.', dateOrder: 'YMD' })).toThrow('is not year-first');
  });

  it('refuses two-digit years (which century?)', () => {
    expect(() => parseDate('3/1/26')).toThrow('"3/1/26" has a two-digit year; write the year with four digits (03/01/2026)');
    expect(() => parseDate('26-03-01')).toThrow('has a two-digit year');
  });

  // English month names (docs/reading-rules.md): full or three letters, any case, read alike in every order.
  const named: [string, string][] = [
    ['2 Mar 2026', '2026-03-02T00:00:00'],
    ['02 March 2026', '2026-03-02T00:00:00'],
    ['March 9, 2026', '2026-03-09T00:00:00'],
    ['Mar 9 2026', '2026-03-09T00:00:00'],
    ['Mar. 9, 2026', '2026-03-09T00:00:00'],
    ['9-Mar-2026', '2026-03-09T00:00:00'],
    ['09-mar-2026', '2026-03-09T00:00:00'],
    ['31 DEC 2026', '2026-12-31T00:00:00'],
    ['september 30, 2026', '2026-09-30T00:00:00'],
    ['1 May 2026', '2026-05-01T00:00:00'],
    ['29-Feb-2028', '2028-02-29T00:00:00'],
  ];
  for (const [text, iso] of named) {
    it(`reads ${JSON.stringify(text)} as ${iso} in every order`, () => {
      for (const dateOrder of ['MDY', 'DMY', 'YMD'] as const) expect(parseDate(text, { decimalSeparator: '.', dateOrder })).toBe(iso);
    });
  }

  const namedRefused: [string, string][] = [
    ['9-Mar-26', '"9-Mar-26" has a two-digit year; write the year with four digits (9-Mar-2026)'],
    ['2 Mar 26', '"2 Mar 26" has a two-digit year; write the year with four digits (9 Mar 2026)'],
    ['March 9, 26', '"March 9, 26" has a two-digit year; write the year with four digits (March 9, 2026)'],
    ['30 Feb 2026', '"30 Feb 2026" is not a calendar date (February 2026 has 28 days)'],
    ['April 31, 2026', '"April 31, 2026" is not a calendar date (April 2026 has 30 days)'],
  ];
  for (const [text, message] of namedRefused) {
    it(`refuses ${JSON.stringify(text)}: ${message}`, () => {
      expect(() => parseDate(text)).toThrow(message);
    });
  }

  const refused = ['tomorrow', '20260301', '2026-3-1', 'Sept 1, 2026', 'Mar 1st, 2026', '1e309', 'NaN'];
  for (const text of refused) {
    it(`refuses ${JSON.stringify(text)}, saying which forms are accepted`, () => {
      expect(() => parseDate(text)).toThrow(`expected a date like 2026-03-01, 2026-03-01T08:30:00 or 03/01/2026, got ${JSON.stringify(text)}`);
    });
  }

  it('refuses numbers outside Excel dates, booleans and invalid Dates', () => {
    expect(() => parseDate(0)).toThrow('got the number 0');
    expect(() => parseDate(3_000_000)).toThrow(CellValueError);
    expect(() => parseDate(true)).toThrow('got true');
    expect(() => parseDate(new Date(Number.NaN))).toThrow('got an invalid date');
  });
});
