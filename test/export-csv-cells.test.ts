import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_FIELDS } from '../src/api/project-fields.ts';
import { decodePercentText, formatProjectCsvRow, PROJECT_CSV_HEADER } from '../src/export/project-writer.ts';
import { exportProjects } from '../src/export/index.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'export-csv-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function* from(records: Record<string, unknown>[]) {
  yield* records;
}

/** Exports `records` as CSV into the temp dir and parses the file back with csv-parse. */
async function exportAndParse(records: Record<string, unknown>[]) {
  const out = path.join(dir, 'projects.csv');
  await exportProjects(from(records), { out, format: 'csv', myDocuments: 'all' });
  const text = await readFile(out, 'utf8');
  const rows = parse(text, { columns: false, relax_column_count: false }) as string[][];
  const header = rows[0]!;
  const objects = rows.slice(1).map((row) => Object.fromEntries(header.map((h, i) => [h, row[i]!])));
  return { text, header, objects };
}

const col = (name: string) => PROJECT_FIELDS.indexOf(name);

describe('project CSV export', () => {
  it('writes one header row with every docs/service.md, Project records field in seed order', async () => {
    const { header, text } = await exportAndParse([{ ID: 1, NAME: 'A' }]);
    expect(header).toEqual([...PROJECT_FIELDS]);
    expect(header[0]).toBe('ID');
    expect(header.at(-1)).toBe('CHANGE_ORDER_UNQUALIFIED_EXPENSES');
    expect(text.startsWith(`${PROJECT_FIELDS.join(',')}\r\n`)).toBe(true);
    expect(PROJECT_CSV_HEADER).toBe(`${PROJECT_FIELDS.join(',')}\r\n`);
  });

  it('writes booleans as true/false and null or missing fields as empty cells', async () => {
    const { objects } = await exportAndParse([
      { ID: 1, NAME: 'A', IS_ARCHIVED: true, IS_INACTIVE: false, ATTACH_FOLDER_ID: null },
    ]);
    const row = objects[0]!;
    expect(row.IS_ARCHIVED).toBe('true');
    expect(row.IS_INACTIVE).toBe('false');
    expect(row.ATTACH_FOLDER_ID).toBe('');
    expect(row.IS_TEMPLATE).toBe(''); // missing
    expect(row.CITY).toBe('');
  });

  it('leaves out fields the seed does not list', async () => {
    const { header, text } = await exportAndParse([{ ID: 1, NAME: 'A', SURPRISE_FIELD: 'zzz-extra' }]);
    expect(header).not.toContain('SURPRISE_FIELD');
    expect(text).not.toContain('zzz-extra');
  });

  it.each(['=', '+', '-', '@', '\t', '\r'])('prefixes a string cell starting with %j with a quote', async (lead) => {
    const value = `${lead}HYPERLINK("http://x")`;
    const { objects } = await exportAndParse([{ ID: 1, NAME: value, CITY: `${lead}1+1` }]);
    expect(objects[0]!.NAME).toBe(`'${value}`);
    expect(objects[0]!.CITY).toBe(`'${lead}1+1`);
  });

  it('does not prefix negative numbers or strings with the characters later on', async () => {
    const { objects } = await exportAndParse([
      { ID: 1, NAME: 'a=b', LON: -12.5, TOTAL_MONEY: -0.01, LAT: 40.25, PROJECT_NUMBER: 'x-1' },
    ]);
    const row = objects[0]!;
    expect(row.LON).toBe('-12.5');
    expect(row.TOTAL_MONEY).toBe('-0.01');
    expect(row.LAT).toBe('40.25');
    expect(row.NAME).toBe('a=b');
    expect(row.PROJECT_NUMBER).toBe('x-1');
  });

  it('percent-decodes SCOPE_OF_WORK, guarding what the decoding reveals', async () => {
    const html = '<p>Tear out "old" deck, 12\u00d716 ft; caf\u00e9 & 100% cedar</p>\n<ul><li>one</li></ul>';
    const { objects } = await exportAndParse([
      { ID: 1, NAME: 'A', SCOPE_OF_WORK: encodeURIComponent(html) },
      { ID: 2, NAME: 'B', SCOPE_OF_WORK: encodeURIComponent('=SUM(A1:A9)') },
      { ID: 3, NAME: 'C', PROJECT_NOTES: '%3Cb%3E' },
    ]);
    expect(objects[0]!.SCOPE_OF_WORK).toBe(html);
    expect(objects[1]!.SCOPE_OF_WORK).toBe("'=SUM(A1:A9)");
    expect(objects[2]!.PROJECT_NOTES).toBe('%3Cb%3E'); // only SCOPE_OF_WORK is encoded (docs/service.md, Project records)
  });

  it('decodes malformed percent-encoding tolerantly, keeping bad sequences as written', async () => {
    const { objects } = await exportAndParse([
      { ID: 1, NAME: 'A', SCOPE_OF_WORK: '50%%20off %E9t%C3%A9 %ZZ %C3%A9%FF%41 %' },
    ]);
    expect(objects[0]!.SCOPE_OF_WORK).toBe('50% off %E9t\u00e9 %ZZ \u00e9%FFA %');
    expect(decodePercentText('%F0%9F%8F%97%F0%9F')).toBe('\u{1F3D7}%F0%9F');
    expect(decodePercentText('%ED%A0%80')).toBe('%ED%A0%80'); // an encoded lone surrogate stays
    expect(decodePercentText('a+b')).toBe('a+b');
  });

  it('quotes commas, quotes, newlines and keeps non-ASCII text, round-tripping through csv-parse', async () => {
    const values = [
      'Smith, John',
      'Office "B" fit-out',
      'line one\nline two',
      'crlf\r\ninside',
      'trailing quote"',
      '"',
      'Zürich – 東京 – 🏗️',
      ' spaces kept ',
      "'already quoted",
    ];
    const records = values.map((v, i) => ({ ID: i + 1, NAME: v, ADDRESS: v, JOBSITE_INSTRUCTIONS: v }));
    const { objects } = await exportAndParse(records);
    expect(objects.map((o) => o.NAME)).toEqual(values);
    expect(objects.map((o) => o.ADDRESS)).toEqual(values);
    expect(objects.map((o) => o.JOBSITE_INSTRUCTIONS)).toEqual(values);
  });

  it('writes integers and decimals as the service sent them', () => {
    const line = formatProjectCsvRow({ ID: 42, LAT: 39.781721, TOTAL_TIME: 0, PERMISSION_FILES: 2147483647 });
    const cells = line.slice(0, -2).split(',');
    expect(cells).toHaveLength(PROJECT_FIELDS.length);
    expect(cells[col('ID')]).toBe('42');
    expect(cells[col('LAT')]).toBe('39.781721');
    expect(cells[col('TOTAL_TIME')]).toBe('0');
    expect(cells[col('PERMISSION_FILES')]).toBe('2147483647');
    expect(line.endsWith('\r\n')).toBe(true);
  });

  it('writes an object in a nullable field as JSON text', () => {
    const line = formatProjectCsvRow({ ID: 1, PRIMARY_SCHEDULE: { ID: 7, NAME: 'x' } });
    const [row] = parse(line) as string[][];
    expect(row![col('PRIMARY_SCHEDULE')]).toBe('{"ID":7,"NAME":"x"}');
  });
});
