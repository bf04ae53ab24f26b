import { describe, expect, it } from 'vitest';
import { ResponseInvalidError } from '../src/errors/index.ts';
import { JsonArrayScanner, parseJsonArray, parseJsonArrayStream } from '../src/api/json-array-stream.ts';

/** Feeds `doc` split at the given byte offsets and collects the elements. */
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

const tricky = [
  { ID: 1, NAME: 'plain' },
  { ID: 2, NAME: 'quote " inside', NOTE: 'backslash \\ and \\" and trailing \\' },
  { ID: 3, NAME: 'unicode: Ünïcødé – 日本語 – 🏗️', EMPTY: '' },
  { ID: 4, NAME: 'brackets in strings ] } [ { , ', NESTED: { a: [1, [2, { b: '}' }]], c: {} }, ARR: [] },
  { ID: 5, NAME: '\\\\', ESC: '\n\t\u0001' },
  'a string element with ] and "escapes\\"',
  12.5e3,
  -7,
  true,
  null,
  [[], [[]], { x: [] }],
];

describe('JsonArrayScanner finds each element of a streamed JSON array', () => {
  const doc = Buffer.from(JSON.stringify(tricky, null, 1));
  const compact = Buffer.from(JSON.stringify(tricky));

  it('parses the whole document in one chunk', () => {
    expect(scanSplit(doc, [])).toEqual(tricky);
    expect(scanSplit(compact, [])).toEqual(tricky);
  });

  it('gives the same elements whatever byte the chunk boundary falls on', () => {
    for (const d of [doc, compact]) {
      for (let cut = 0; cut <= d.length; cut++) expect(scanSplit(d, [cut])).toEqual(tricky);
    }
  });

  it('gives the same elements when every byte is its own chunk', () => {
    const cuts = Array.from({ length: compact.length }, (_, i) => i);
    expect(scanSplit(compact, cuts)).toEqual(tricky);
  });

  it('handles runs of backslashes split across chunks', () => {
    const values = [{ s: '\\\\\\"' }, { s: '\\' }, { s: '"\\"' }, { s: '\\\\\\\\' }];
    const d = Buffer.from(JSON.stringify(values));
    for (let a = 0; a < d.length; a++) {
      for (let b = a; b <= d.length; b += 3) expect(scanSplit(d, [a, b])).toEqual(values);
    }
  });

  it('splits multi-byte characters across chunks without corrupting them', () => {
    const values = [{ NAME: '€€€ 🏗️🏗️ ñ' }, { NAME: '日本' }];
    const d = Buffer.from(JSON.stringify(values));
    for (let cut = 0; cut <= d.length; cut++) expect(scanSplit(d, [cut])).toEqual(values);
  });

  it('reads an empty array, with or without whitespace and a byte order mark', () => {
    expect(parseJsonArray(Buffer.from('[]'))).toEqual([]);
    expect(parseJsonArray(Buffer.from(' \n[ \r\n\t] \n'))).toEqual([]);
    expect(parseJsonArray(Buffer.from('\uFEFF[1,2]'))).toEqual([1, 2]);
  });

  it('reads an object wrapping one array, ignoring the other properties', () => {
    const wrapped = { Count: 2, Meta: { pages: [1, 2], note: '[not this]' }, Data: [{ ID: 1 }, { ID: 2 }], Done: true };
    const d = Buffer.from(JSON.stringify(wrapped));
    for (let cut = 0; cut <= d.length; cut++) expect(scanSplit(d, [cut])).toEqual(wrapped.Data);
    expect(parseJsonArray(Buffer.from('{"Data":[]}'))).toEqual([]);
  });

  it.each([
    ['', 'the listing body was empty'],
    ['   ', 'the listing body was empty'],
    ['<html>Server error</html>', 'expected a JSON array or an object wrapping one, found "<html>Server error</html>" at byte 0'],
    ['"just a string"', 'expected a JSON array or an object wrapping one'],
    ['[{"ID":1},{"ID":2}', 'the listing ended after 18 bytes and 2 elements before the JSON was complete'],
    ['[{"ID":1,"NAME":"cut', 'ended after 20 bytes and 0 elements'],
    ['[1,2,]', 'expected element 2 of the array'],
    ['[1 2]', "expected ',' or ']' after element 0"],
    ['[,1]', 'expected element 0 of the array'],
    ['[{"ID":1}] x', 'unexpected data after the end of the listing, found "x" at byte 11'],
    ['[{"ID":1,}]', 'element 0 of the listing is not valid JSON'],
    ['[nul]', 'element 0 of the listing is not valid JSON'],
    ['{"Message":"no data"}', 'the object wraps no array'],
    ['{"A":[1],"B":[2]}', 'the wrapper object holds more than one array'],
    ['[1}', "expected ',' or ']' after element 0"],
  ])('refuses %j with a clear ResponseInvalidError', (text, message) => {
    let caught: unknown;
    try {
      parseJsonArray(Buffer.from(text));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ResponseInvalidError);
    expect((caught as ResponseInvalidError).code).toBe('BUILDSYNC_RESPONSE_INVALID');
    expect((caught as Error).message).toContain(message);
  });

  it('yields one batch per chunk from a stream', async () => {
    async function* chunks() {
      yield Buffer.from('[{"ID":1},{"ID"');
      yield Buffer.from(':2},{"ID":3}');
      yield '  ,{"ID":4}]';
    }
    const batches: unknown[][] = [];
    for await (const batch of parseJsonArrayStream(chunks())) batches.push(batch);
    expect(batches).toEqual([[{ ID: 1 }], [{ ID: 2 }, { ID: 3 }], [{ ID: 4 }]]);
  });

  it('throws at the end of a truncated stream after yielding what was complete', async () => {
    async function* chunks() {
      yield Buffer.from('[{"ID":1},{"ID":2');
    }
    const seen: unknown[] = [];
    await expect(async () => {
      for await (const batch of parseJsonArrayStream(chunks())) seen.push(...batch);
    }).rejects.toThrow(/ended after 17 bytes and 1 elements/);
    expect(seen).toEqual([{ ID: 1 }]);
  });
});
