import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileError, UsageError } from '../src/errors/index.ts';
import { planBills, planEstimates } from '../src/import/index.ts';
import { parseMappingFile } from '../src/mapping/index.ts';
import { decodeBytes } from '../src/tables/encodings.ts';
import { failure } from './helpers/failure.ts';

// docs/reading-rules.md, "Files": delimiters `,`, `;`, tab and `|`, detected or given
// (`--delimiter`, mapping key "delimiter"); a header that another delimiter or encoding would
// make fit stops saying which.

const dir = mkdtempSync(join(tmpdir(), 'buildsync-delimiters-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, bytes: Buffer): string {
  const file = join(dir, name);
  writeFileSync(file, bytes);
  return file;
}

const PIPE = Buffer.from('Estimate report\nproject_id|estimate_name|category|subcategory|item|qty|unit_cost\n1042|Kitchen remodel|Demolition|Labor|Crew day|2|640\n', 'utf8');
const ITEM = { NAME: 'Crew day', QTY: 2, UNIT_COST: 640 };

describe('delimiters', () => {
  it('"|" is found under a title line, and the mapping key "delimiter": "pipe" forces it', async () => {
    const file = write('pipe.csv', PIPE);
    const auto = await planEstimates(file);
    expect(auto.table!.delimiter).toBe('|');
    expect(auto.records[0]!.payload.CATS![0]!.SUBCATS![0]!.ITEMS).toEqual([ITEM]);
    const mapped = await planEstimates(file, { mapping: parseMappingFile({ delimiter: 'pipe' }, 'map.json') });
    expect(mapped.records[0]!.payload.CATS![0]!.SUBCATS![0]!.ITEMS).toEqual([ITEM]);
  });

  it('a sep=| first line names "|"', async () => {
    const file = write('sep-pipe.csv', Buffer.concat([Buffer.from('sep=|\n'), PIPE.subarray(PIPE.indexOf('\n') + 1)]));
    expect((await planEstimates(file)).table!.delimiter).toBe('|');
  });

  it('the flag and the mapping file disagreeing is a usage error', async () => {
    const err = await failure(planEstimates(write('pipe2.csv', PIPE), { delimiter: ',', mapping: parseMappingFile({ delimiter: 'pipe' }, 'map.json') }));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe('--delimiter , disagrees with "delimiter": "pipe" in the mapping file; give one of them.');
  });

  it('a tab-delimited file given --delimiter ; stops, naming tab', async () => {
    const file = write('tabs.txt', Buffer.from('project_id\testimate_name\tcategory\n1042\tKitchen remodel\tDemolition\n'));
    const err = await failure(planEstimates(file, { delimiter: ';' }));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toBe(`${file}: read with the delimiter given, ";", no row is the header row; the file is delimited by tab (line 1 is then the header row): use --delimiter tab.`);
  });

  it('the mapping key "delimiter" takes only auto , ; tab pipe', () => {
    expect(() => parseMappingFile({ delimiter: '|' }, 'map.json')).toThrow('delimiter must be "auto", ",", ";", "tab" or "pipe"');
  });
});

describe('a header another encoding would make fit', () => {
  it('Windows-1250 text that reads plausibly in Windows-1252 ("Iloœæ") stops when 1250 names the mapping\'s column "Ilość"', async () => {
    // ś and ć are 0x9C and 0xE6: œ and æ in Windows-1252, letters too.
    const bytes = Buffer.from('Nr;Projekt;Dostawca;Pozycja;Ilo\x9c\xe6;Cena\r\n1;1042;55;Cement;4;32,00\r\n', 'latin1');
    expect(decodeBytes('windows-1252', bytes)).toContain('Iloœæ');
    const file = write('ilosc.csv', bytes);
    const mapping = parseMappingFile({ columns: { Nr: 'bill_ref', Projekt: 'project_id', Dostawca: 'vendor_id', Pozycja: 'item_name', 'Ilość': 'qty', Cena: 'rate' } }, 'map.json');
    const err = await failure(planBills(file, { mapping }));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toBe(`${file}:1: read as Windows-1252, the header row names fewer columns than read as Windows-1250 ("Ilość", not "Iloœæ"): use --encoding windows-1250.`);
    const told = await planBills(file, { mapping, encoding: 'windows-1250' });
    expect(told.records[0]!.payload.ITEMS).toEqual([{ NAME: 'Cement', QTY: 4, RATE: '32.00' }]);
    expect(told.table!.encoding).toBe('windows-1250');
  });
});
