import { describe, expect, it } from 'vitest';
import { ResponseInvalidError } from '../src/errors/index.ts';
import { JsonArrayScanner } from '../src/api/json-array-stream.ts';

/**
 * The scanner guesses where an object element ends (the next `}` before `,` `]` or whitespace)
 * and lets JSON.parse confirm the guess (src/api/json-array-stream.ts `parseObjectAt`). These
 * documents put false ends everywhere a guess can land: inside strings, in nested objects, more
 * of them than the guesses tried, and invalid elements whose start parses as far as a false end.
 */

function scanSplit(doc: Buffer, cuts: number[]): unknown[] {
  const scanner = new JsonArrayScanner();
  const out: unknown[] = [];
  let prev = 0;
  for (const cut of [...cuts, doc.length]) {
    out.push(...scanner.push(doc.subarray(prev, cut)));
    prev = cut;
  }
  scanner.end();
  return out;
}

const FALSE_ENDS = [
  { s: '},{' },
  { s: '}]', t: '} ' },
  { a: { b: 1 }, c: [{}, { d: '},' }], e: '}\n' },
  { many: '},},},},},', more: '} } }', nested: { x: { y: {} } } },
  { ID: 1, NAME: 'Café — 北京 }, ]', NOTES: 'line\n}\r\n,' },
  {},
  { last: '}' },
];

describe('object elements whose ends are guessed', () => {
  for (const [label, doc] of [
    ['compact', Buffer.from(JSON.stringify(FALSE_ENDS))],
    ['pretty', Buffer.from(JSON.stringify(FALSE_ENDS, null, 2))],
    ['wrapped', Buffer.from(JSON.stringify({ total: 7, data: FALSE_ENDS, more: { x: '}' } }))],
  ] as const) {
    it(`reads every element of a ${label} document with false ends, whatever the chunk boundary`, () => {
      for (let cut = 0; cut <= doc.length; cut++) expect(scanSplit(doc, [cut])).toEqual(FALSE_ENDS);
    });
  }

  it('reports an invalid element by its index even when its start parses up to a false end', () => {
    // `{"a":"x"}` would parse, but the element goes on: `,"b":}` makes it invalid.
    const doc = Buffer.from('[{"ok":1},{"a":{"x":1}, "b":}]');
    let error: unknown;
    try {
      scanSplit(doc, []);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ResponseInvalidError);
    expect((error as Error).message).toMatch(/^element 1 of the listing is not valid JSON/);
  });

  it('reports a trailing comma inside an object as invalid, not as a shorter element', () => {
    const doc = Buffer.from('[{"a":1},{"b":{"c":2},}]');
    expect(() => scanSplit(doc, [])).toThrow(/element 1 of the listing is not valid JSON/);
  });
});
