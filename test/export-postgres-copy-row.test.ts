/**
 * `--to postgres` formats each project as a COPY text line in bytes (src/export/postgres/copy-row.ts).
 * These tests hold it to the string formatter of the first version, kept here as the reference:
 * the same bytes, the hash over the same line with SCOPE_OF_WORK as sent, and the first version's
 * hash (`legacySha1`, for the change states it wrote).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PROJECT_FIELD_KINDS } from '../src/api/project-fields.ts';
import { decodePercentText } from '../src/export/project-writer.ts';
import { PROJECT_COLUMNS } from '../src/export/postgres/columns.ts';
import { copyLine, copyRow, legacySha1 } from '../src/export/postgres/copy-row.ts';

const COPY_ESCAPE = /[\\\t\n\r]/g;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** The first version's formatter, verbatim in behaviour; `decode: false` keeps SCOPE_OF_WORK as sent (the hashed line). */
function referenceLine(record: Record<string, unknown>, decode = true): string {
  let line = '';
  for (let i = 0; i < PROJECT_COLUMNS.length; i++) {
    const { field } = PROJECT_COLUMNS[i]!;
    if (i > 0) line += '\t';
    const value = record[field];
    switch (typeof value) {
      case 'string': {
        const text = field === 'SCOPE_OF_WORK' && decode ? decodePercentText(value) : value;
        if (text === '' && (field === 'LMOD' || field === 'DATE_CREATED')) line += '\\N';
        else line += text.replace(COPY_ESCAPE, (c) => COPY_ESCAPES[c]!);
        break;
      }
      case 'number':
        line += String(value);
        break;
      case 'boolean':
        line += value ? 't' : 'f';
        break;
      case 'object':
        line += value === null ? '\\N' : JSON.stringify(value).replace(COPY_ESCAPE, (c) => COPY_ESCAPES[c]!);
        break;
      default:
        line += '\\N';
    }
  }
  return `${line}\n`;
}

/** mulberry32: a failure can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TEXTS = ['', 'plain', 'a\\b', 'tab\there', 'line\nbreak', 'cr\r\nlf', '\\N', 'Ünïcödé — “quotes”', '日本語の名前', 'emoji 🏗️', 'lone \ud800 surrogate', 'x'.repeat(40), `${'y'.repeat(35)}\t`, '%41%42%zz', '%E2%80%94 dash', '%FF%FE bad utf-8', '=SUM(A1)', '-12'];
const VALUES: unknown[] = [0, -0, 7, -12, 1.5, -0.25, 4294967295, 4294967296, 9007199254740991, 1e21, 1e-7, true, false, null, undefined, {}, { a: 'b\tc' }, [1, 'x\ny'], ...TEXTS];

function randomRecord(rnd: () => number): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const [field] of PROJECT_FIELD_KINDS) {
    const v = VALUES[Math.floor(rnd() * VALUES.length)];
    if (v !== undefined || rnd() < 0.5) record[field] = v;
  }
  return record;
}

describe('COPY lines of --to postgres', () => {
  it('are byte for byte the lines of the first version, hashed with SCOPE_OF_WORK as sent', () => {
    const rnd = random(17);
    for (let i = 0; i < 3000; i++) {
      const record = randomRecord(rnd);
      // As bytes: a lone surrogate is U+FFFD in UTF-8 either way, but not in the string.
      const expected = Buffer.from(referenceLine(record), 'utf8');
      const row = copyRow(record);
      expect(row.copyBytes().toString('utf8'), `record ${i}: ${JSON.stringify(record)}`).toBe(expected.toString('utf8'));
      expect(row.copyBytes().equals(expected)).toBe(true);
      // The hash is over the same line with SCOPE_OF_WORK as sent.
      const sha = createHash('sha1').update(referenceLine(record, false), 'utf8').digest();
      expect(row.sha1).toBe(sha.toString('base64'));
      expect(row.hash48).toBe(sha.readUIntBE(0, 6));
      expect(legacySha1(record)).toBe(createHash('sha1').update(expected).digest('base64'));
    }
  });

  it('writes every field of a long, escaped, non-ASCII SCOPE_OF_WORK (a line beyond the initial buffer)', () => {
    const scope = encodeURIComponent(`<p>${'Béton armé\tà couler\n'.repeat(20_000)}</p>`);
    const record = { ID: 5, NAME: 'big', SCOPE_OF_WORK: scope, LMOD: '', DATE_CREATED: '2026-01-02T03:04:05' };
    const line = copyLine(record);
    expect(line).toBe(referenceLine(record));
    expect(line.length).toBeGreaterThan(64 * 1024);
    // The next (short) record is not disturbed by the grown buffer.
    expect(copyLine({ ID: 6, NAME: 'small' })).toBe(referenceLine({ ID: 6, NAME: 'small' }));
  });
});
