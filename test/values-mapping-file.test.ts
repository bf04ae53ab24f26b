import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/errors/index.ts';
import { loadMappingFile } from '../src/mapping/index.ts';
import { failure } from './helpers/failure.ts';

const dir = mkdtempSync(join(tmpdir(), 'buildsync-mapping-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: string): string {
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
}


describe('loading the mapping file', () => {
  it('reads columns, ignore and constants, defaulting the missing ones', async () => {
    const file = write('map.json', '\uFEFF{"columns": {"Job #": "project_id"}, "constants": {"unit": "ea", "qty": 1, "active": true}}');
    expect(await loadMappingFile(file)).toEqual({ columns: { 'Job #': 'project_id' }, ignore: [], constants: { unit: 'ea', qty: 1, active: true } });
    expect(await loadMappingFile(write('empty-object.json', '{}'))).toEqual({ columns: {}, ignore: [], constants: {} });
  });

  it('names a missing mapping file', async () => {
    const file = join(dir, 'missing.json');
    const err = await failure(loadMappingFile(file));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toMatchObject({ code: 'BUILDSYNC_CONFIG_INVALID' });
    expect(err.message).toBe(`cannot read the mapping file ${file}: there is no such file. Check the --mapping path.`);
  });

  it('refuses invalid JSON, showing the expected shape', async () => {
    const file = write('bad.json', '{"columns": {');
    const err = await failure(loadMappingFile(file));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toMatch(new RegExp(`^the mapping file ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid JSON \\(.*\\)\\. Expected \\{"columns": `));
  });

  it('refuses unknown keys and wrong types, naming where', async () => {
    const typo = await failure(loadMappingFile(write('typo.json', '{"ignored": ["A"]}')));
    expect(typo).toBeInstanceOf(ConfigError);
    expect(typo.message).toMatch(/is invalid: \(top level\): unknown key\(s\) "ignored"; only "columns", "ignore", "constants", "encoding", "delimiter", "dateFormat", "decimalSeparator", "headerRow", "hidden", "kinds", "status", "credits", "discounts", "ignoreTax", "fillDown", "layout", "totalLabels", "notCurrency", "amountCurrency" and "summaryRows" are allowed\. Expected/);
    const nested = await failure(loadMappingFile(write('kinds.json', '{"kinds": {"column": "Type", "bills": ["Bill"]}}')));
    expect(nested.message).toMatch(/is invalid: kinds: unknown key\(s\) "bills"; "kinds" takes "column", "bill", "credit" and "ignore"\. Expected/);
    const credits = await failure(loadMappingFile(write('credits.json', '{"credits": "positive"}')));
    expect(credits.message).toMatch(/credits: credits must be "negative"/);
    const order = await failure(loadMappingFile(write('order.json', '{"dateFormat": "DDMMYYYY"}')));
    expect(order.message).toMatch(/dateFormat: dateFormat must be "auto", "YMD", "MDY" or "DMY"/);
    const wrong = await failure(loadMappingFile(write('wrong.json', '{"columns": {"A": 5}, "ignore": "B"}')));
    expect(wrong.message).toMatch(/is invalid: columns\.A: .*; ignore: .*\. Expected/);
    const empty = await failure(loadMappingFile(write('empty-name.json', '{"ignore": [""]}')));
    expect(empty.message).toMatch(/ignore\.0: a header name cannot be empty/);
    const constant = await failure(loadMappingFile(write('null.json', '{"constants": {"qty": null}}')));
    expect(constant.message).toMatch(/constants\.qty: a constant must be text, a number or true\/false/);
    const array = await failure(loadMappingFile(write('array.json', '[]')));
    expect(array.message).toMatch(/is invalid: \(top level\): /);
  });
});
