import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_FIELDS } from '../src/api/project-fields.ts';
import { formatProjectCsvRow, PROJECT_CSV_HEADER, projectCsvRowBytes } from '../src/export/project-writer.ts';
import { RowBatch } from '../src/export/row-batch.ts';
import { exportProjects } from '../src/export/index.ts';

/**
 * The export writes its CSV rows as bytes (src/export/project-writer.ts, src/export/row-batch.ts).
 * These tests hold those bytes to the README, Reports, re-runs and `unknown` rules as csv-stringify applies them (the same
 * options as bench/export.ts's naive pipeline), on the cells where a byte writer can go wrong:
 * long and short text, non-ASCII, quotes, formula starts, numbers at the edges, a row far larger
 * than the buffers.
 */

const guard = (s: string) => (/^[=+\-@\t\r]/.test(s) ? `'${s}` : s);

/** README, Reports, re-runs and `unknown` through csv-stringify, as UTF-8 (a lone surrogate becomes U+FFFD, as in any UTF-8 file). */
function expectedRow(record: Record<string, unknown>): Buffer {
  const text = stringify([record], {
    columns: [...PROJECT_FIELDS],
    record_delimiter: 'windows',
    quoted_match: /[\r\n]/,
    cast: {
      boolean: (v) => (v ? 'true' : 'false'),
      string: (v, ctx) => guard(ctx.column === 'SCOPE_OF_WORK' ? decodeURIComponent(v) : v),
      object: (v) => (v === null ? '' : guard(JSON.stringify(v))),
      number: (v) => String(v),
    },
  });
  return Buffer.from(text, 'utf8');
}

const long = (unit: string, n: number) => unit.repeat(n);

const RECORDS: Record<string, unknown>[] = [
  { ID: 1, NAME: 'plain' },
  { ID: 0, NAME: 'zeros', LAT: -0, LON: 0, TOTAL_TIME: 4294967295, NUMBERFILES: 4294967296, NUMBERFOLDERS: -5, TOTAL_MONEY: 1e21, NUMBERIMAGES: 1e-7 },
  { ID: 2, NAME: 'decimals', LAT: 45.554946, LON: -122.690636, TOTAL_MONEY: 444815.45, IS_ARCHIVED: true, IS_INACTIVE: false, ATTACH_FOLDER_ID: null },
  { ID: 3, NAME: 'Café Ñandú — 北京 🏗️', CITY: 'é', STATE: '"', ZIP: ',', ADDRESS: 'a\r\nb', PROJECT_NUMBER: '\n' },
  { ID: 4, NAME: '=SUM(A1:A9)', CITY: '+1', STATE: '-x', ZIP: '@me', ADDRESS: '\tTab', PROJECT_NUMBER: '\rCR', CUSTOM_COLOR: 'a=b' },
  { ID: 5, NAME: long('a', 31), CITY: long('b', 32), STATE: long('c', 33), ZIP: `${long('d', 31)},`, ADDRESS: `${long('e', 31)}"`, PROJECT_NUMBER: `${long('f', 31)}é` },
  { ID: 6, NAME: `=${long('g', 100)}`, PROJECT_NOTES: `${long('h', 500)}"quoted" and, a comma\r\n${long('北', 200)}`, JOBSITE_INSTRUCTIONS: `lone \ud800 surrogate` },
  { ID: 7, NAME: 'scope', SCOPE_OF_WORK: '%3Ch3%3EScope%20%E2%80%94%20%3DSUM%3C%2Fh3%3E%2C%22q%22' },
  { ID: 8, NAME: 'scope starting with =', SCOPE_OF_WORK: '%3D1%2B1' },
  { ID: 9, NAME: 'nested', ATTACH_FOLDER_ID: { a: [1, '"x"'] }, PRIMARY_SCHEDULE: ['-1', 2] },
  // A row of about 3 MB: more than the row buffer's first size and than a batch's two buffers.
  { ID: 10, NAME: 'huge', PROJECT_NOTES: long('n', 1_000_000), SCOPE_OF_WORK: long('%E2%80%94', 200_000), JOBSITE_INSTRUCTIONS: long('"', 300_000) },
  { ID: 11, NAME: 'after huge' },
];

describe('project CSV rows as bytes', () => {
  it.each(RECORDS.map((r) => [String(r.NAME).slice(0, 30), r] as const))('writes %s as csv-stringify does with the contract rules', (_name, record) => {
    const bytes = Buffer.from(projectCsvRowBytes(record));
    expect(bytes.equals(expectedRow(record))).toBe(true);
    expect(formatProjectCsvRow(record)).toBe(bytes.toString('utf8'));
  });
});

describe('RowBatch', () => {
  it('hands out every byte in order, rows larger than its buffers included', () => {
    const batch = new RowBatch(64);
    const rows = ['short\r\n', 'é北🏗️\r\n', long('x', 500), Buffer.from('bytes row\r\n'), long('y', 10), long('z', 129)];
    const out: Buffer[] = [];
    for (const row of rows) {
      batch.add(row);
      if (batch.full) out.push(Buffer.from(batch.take()));
    }
    out.push(Buffer.from(batch.take()));
    expect(Buffer.concat(out).toString('utf8')).toBe(rows.map((r) => r.toString()).join(''));
    expect(batch.bytes).toBe(0);
  });

  it('leaves a batch it handed out untouched while the next one fills (the file may still be writing it)', () => {
    const batch = new RowBatch(16);
    batch.add('A'.repeat(20));
    const first = batch.take();
    const snapshot = Buffer.from(first);
    batch.add('B'.repeat(20));
    expect(Buffer.from(first).equals(snapshot)).toBe(true);
    const second = batch.take();
    expect(Buffer.from(second).toString()).toBe('B'.repeat(20));
  });
});

describe('the export file', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'export-bytes-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('holds the header and each row exactly as written alone, across batches and a 3 MB row', async () => {
    const small = RECORDS.filter((r) => r.NAME !== 'huge');
    const huge = RECORDS.find((r) => r.NAME === 'huge')!;
    const many = Array.from({ length: 3000 }, (_, i) => (i === 1500 ? huge : small[i % small.length]!)).map((r, i) => ({ ...r, ID: i }));
    const out = path.join(dir, 'projects.csv');
    async function* source() {
      yield* many;
    }
    const result = await exportProjects(source(), { out, format: 'csv', myDocuments: 'all' });
    const file = await readFile(out);
    const expected = Buffer.concat([Buffer.from(PROJECT_CSV_HEADER), ...many.map(expectedRow)]);
    expect(file.length).toBe(expected.length);
    expect(file.equals(expected)).toBe(true);
    expect(result.bytes).toBe(expected.length);
    expect(result.projects).toBe(3000);
  });
});
