/**
 * A saved mapping's own rules of rows on the import page (README, The import page; issue 26): a
 * mapping of the user's own with `kinds` (which Type values are bills, credits or not imported),
 * `status` (which Status values are kept) or `totalLabels`, uploaded with `Saved mapping`
 * (`POST /import/mapping`), is applied by the check and Send exactly as the CLI applies it with
 * `--mapping`: a credit or a voided row is ignored with its reason, never sent as a bill. The rules
 * travel in the page state (`rules`), come back in `Download mapping` (`/import/mapping.json`), and
 * come with the last mapping sent for the same header row. Over HTTP against the real dashboard,
 * Redis and the sandbox; the CLI's dry run is the reference.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageImportOptions, parsePageState } from '../src/import-service/index.ts';
import { parseMappingFile } from '../src/mapping/index.ts';
import { VendorStore } from '../src/vendors/vendor-store.ts';
import { runCli } from './helpers/cli.ts';
import { FIXTURES } from './helpers/reading-corpus-cases.ts';
import { parseReport } from './helpers/import-e2e-rig.ts';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { pageClient } from './helpers/page-client.ts';
import { REDIS_URL } from './helpers/redis.ts';

type Column = { header: string; column: string; role?: string; fromMapping?: boolean };
type Reading = {
  upload: string; columns: Column[]; rules: unknown; lastMapping: { note: string } | null;
  layout: { chosen: string; applied: string };
  options: { dateFormat: string; decimalSeparator: string; credits: string; discounts: boolean; ignoreTax: boolean };
  fillDown: Array<{ column: string; checked: boolean }>;
};
type Check = {
  invalid: unknown[];
  records: Array<{ label: string; lines: number[]; payload: string }>;
  ignored: { text: string; count: number; lines: Array<{ line: number; reason: string | null; message: string }> };
};

const fixture = (name: string) => readFileSync(join(FIXTURES, 'reading', name), 'utf8');
const SAGE_MAPPING = JSON.parse(fixture('sage-mapping.json')) as { columns: Record<string, string>; ignore: string[] };
const MYOB_MAPPING = JSON.parse(fixture('myob-mapping.json')) as { columns: Record<string, string> };

/** The Sage 50 audit trail of test/fixtures/reading/ with a purchase credit (PC) and a payment (PP), on project `p`. */
function sageTrail(p: number): string {
  const lines = fixture('sage-purchase-invoices.csv').trimEnd().split(/\r\n/).map((l) => l.replace(/,1042$/, `,${p}`));
  return [
    ...lines,
    `PC,NORTH001,5000,0,19/03/2026,SC-0042,Chipped pane,150.00,T0,0.00,1,,MANAGER,${p}`,
    `PP,ACME001,1200,0,30/03/2026,CHQ 881,Payment,1325.00,T9,0.00,1,,MANAGER,${p}`,
  ].join('\r\n') + '\r\n';
}
/** sage-mapping.json with the Type column read by `kinds` rules. */
const SAGE_RULES = {
  ...SAGE_MAPPING,
  ignore: SAGE_MAPPING.ignore.filter((h) => h !== 'Type'),
  kinds: { column: 'Type', bill: ['PI'], credit: ['PC'], ignore: ['PP', 'PA'] },
};

/** The MYOB purchases of test/fixtures/reading/ with a Status column (a voided purchase) and a "Balance carried" total line. */
function myobPurchases(p: number): string {
  const [title, header, ...rows] = fixture('myob-purchases.csv').trimEnd().split(/\r\n/);
  return [
    title,
    `${header},Status`,
    ...rows.map((r, i) => `${r.replace(/,1042,/, `,${p},`)},${i === 2 ? 'Closed' : 'Open'}`),
    `Best Electric,00000414,${p},Rough-in wiring (entered twice),$2400.00,Void`,
    // Closes every line since the previous total, the voided one too.
    ',,,Balance carried,$6125.00,',
  ].join('\r\n') + '\r\n';
}
const MYOB_RULES = {
  ...MYOB_MAPPING,
  status: { column: 'Status', keep: ['Open', 'Closed'], ignore: ['Void'] },
  totalLabels: ['Balance carried'],
};

describe('a saved mapping\'s own kinds, status and total labels on the import page (README, The import page)', () => {
  let rig: ImportPageRig;
  let work: string;
  let client: ReturnType<typeof pageClient>;
  let project: number;

  const post = async <T = any>(path: string, body: unknown): Promise<T> => {
    const res = await client.post(path, body);
    expect(res.status, `${path}: ${res.text}`).toBe(200);
    return res.json as T;
  };
  const upload = async (name: string, body: string): Promise<Reading> => {
    const res = await client.call('/import/upload?kind=bills&account=default', { method: 'POST', headers: { 'Content-Type': 'application/octet-stream', 'X-Filename': name }, body });
    expect(res.status, res.text).toBe(200);
    return res.json as Reading;
  };

  /** What the page script does on `Saved mapping`: the answer kept (constants, encoding, rules), its choices read again, then the page's state. */
  async function applySaved(reading: Reading, name: string, mapping: unknown) {
    const base = { upload: reading.upload, kind: 'bills', account: 'default', layout: reading.layout.chosen, sheet: '', hidden: 'stop' };
    const applied = await post('/import/mapping', { ...base, name, text: JSON.stringify(mapping) });
    const state = {
      ...base,
      layout: applied.layout.chosen,
      columns: Object.fromEntries((applied.columns as Column[]).map((c) => [c.header, c.column])),
      ...applied.options,
      fillDown: (applied.fillDown as Reading['fillDown']).filter((f) => f.checked).map((f) => f.column),
      constants: applied.constants,
      ...(applied.rules ? { rules: applied.rules } : {}),
    };
    const reread = await post<Reading>('/import/read', state);
    return { applied, reread, state: { ...state, columns: Object.fromEntries(reread.columns.map((c) => [c.header, c.column])) } };
  }

  /** The CLI's dry run of `csv` with `--mapping` the JSON `mapping`: payloads, report lines and the summary of ignored rows. */
  async function cliDryRun(name: string, csv: string, mapping: unknown) {
    const file = join(work, name);
    const mapFile = join(work, `${name}.mapping.json`);
    const report = join(work, `${name}.report.csv`);
    writeFileSync(file, csv);
    writeFileSync(mapFile, JSON.stringify(mapping, null, 2));
    const res = await runCli(['import', 'bills', file, '--mapping', mapFile, '--dry-run', '--print-payloads', '--report', report], { ...rig.env, REDIS_URL, BUILDSYNC_PREFIX: rig.t.prefix }, { cwd: work });
    expect(res.code, res.stderr).toBe(0);
    return {
      payloads: res.stdout.trim().split('\n').map((l) => JSON.parse(l) as unknown),
      report: parseReport(readFileSync(report, 'utf8')),
      ignored: res.stderr.split('\n').find((l) => / ignored: /.test(l))?.replace(/^.*?(\d+ rows? ignored: )/, '$1'),
    };
  }

  /** The check equals the CLI's dry run: the same payloads, each record on the CLI's lines, the same lines ignored, counted the same. */
  function expectSameAsCli(check: Check, cli: Awaited<ReturnType<typeof cliDryRun>>) {
    expect(check.invalid).toEqual([]);
    expect(check.records.map((r) => JSON.parse(r.payload) as unknown)).toEqual(cli.payloads);
    const recordLines = cli.report.filter((r) => r.status === 'skipped');
    expect(check.records.flatMap((r) => r.lines.map((line) => [line, r.label])).sort()).toEqual(recordLines.map((r) => [Number(r.line), r.record]).sort());
    expect(check.ignored.lines.map((l) => l.line)).toEqual(cli.report.filter((r) => r.status === 'ignored').map((r) => Number(r.line)));
    expect(check.ignored.text).toBe(cli.ignored);
    for (const l of check.ignored.lines) expect(l.message).not.toContain('--');
  }

  beforeAll(async () => {
    rig = await startImportPageRig({ limits: 'none', browser: false, worker: false });
    client = pageClient(rig.dashboard.url);
    work = mkdtempSync(join(tmpdir(), 'bs-page-saved-rules-'));
    project = importableProjects(rig.sandbox)[0]!;
    await new VendorStore(rig.t.redis, rig.t.prefix).import('default', [
      { vendor: 'ACME001', vendor_id: 55 }, { vendor: 'BEST001', vendor_id: 56 }, { vendor: 'NORTH001', vendor_id: 59 },
      { vendor: 'Acme Supply', vendor_id: 55 }, { vendor: 'Best Electric', vendor_id: 56 },
    ]);
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('a Sage audit trail with its mapping\'s kinds: the PC credit and the PP payment are ignored with their reasons, as the CLI\'s dry run ignores them', async () => {
    const csv = sageTrail(project);
    const reading = await upload('sage-audit.csv', csv);
    const { applied, reread, state } = await applySaved(reading, 'sage-rules.json', SAGE_RULES);

    // The rules come back to the page, said in its words; Type is the kind of each row, never bill_type.
    expect(applied.rules).toEqual({ kinds: SAGE_RULES.kinds });
    expect(applied.rulesText).toBe('kinds of rows by Type (bills: "PI"; credits: "PC"; not imported: "PP", "PA")');
    expect(applied.layout).toMatchObject({ chosen: 'plain', applied: 'plain' });
    expect(applied.columns.find((c: Column) => c.header === 'Type')).toMatchObject({ column: 'ignore', role: 'kind', fromMapping: true });
    expect(reread.rules).toEqual(applied.rules);
    expect(reread.columns.find((c) => c.header === 'Type')).toMatchObject({ column: 'ignore', role: 'kind' });
    expect(reread.columns.some((c) => c.column === 'bill_type')).toBe(false);

    const check = await post<Check>('/import/check', state);
    expect(check.records.map((r) => r.lines)).toEqual([[2, 3], [4]]);
    expect(check.ignored.lines.map((l) => [l.line, l.reason])).toEqual([[5, 'credit'], [6, 'kind']]);
    expect(check.ignored.lines[0]!.message).toMatch(/^Type "PC": a credit/);
    expectSameAsCli(check, await cliDryRun('sage-audit.csv', csv, SAGE_RULES));
  }, 60_000);

  it('the defect of issue 26: after Saved mapping, no credit, payment or voided row is a bill of the check', async () => {
    for (const [name, csv, mapping, bills] of [
      ['sage-defect.csv', sageTrail(project), SAGE_RULES, [[2, 3], [4]]],
      ['myob-defect.csv', myobPurchases(project), MYOB_RULES, [[3, 4], [5]]],
    ] as const) {
      const { reread, state } = await applySaved(await upload(name, csv), name, mapping);
      const check = await post<Check>('/import/check', state);
      expect(check.records.map((r) => r.lines), name).toEqual(bills);
      expect(reread.columns.filter((c) => c.column === 'bill_type'), name).toEqual([]);
      expect(check.invalid, name).toEqual([]);
    }
  }, 60_000);

  it('a MYOB export with its mapping\'s status and total label: the Void purchase and the "Balance carried" line are ignored, as the CLI\'s dry run ignores them', async () => {
    const csv = myobPurchases(project);
    const reading = await upload('myob.csv', csv);
    const { applied, reread, state } = await applySaved(reading, 'myob-rules.json', MYOB_RULES);

    expect(applied.rules).toEqual({ status: MYOB_RULES.status, totalLabels: ['Balance carried'] });
    expect(applied.rulesText).toBe('statuses by Status (kept: "Open", "Closed"; not imported: "Void"); total labels "Balance carried"');
    expect(reread.columns.find((c) => c.header === 'Status')).toMatchObject({ column: 'ignore', role: 'status' });

    const check = await post<Check>('/import/check', state);
    expect(check.ignored.lines.map((l) => [l.line, l.reason])).toEqual([[1, 'title'], [6, 'kind'], [7, 'total']]);
    expect(check.ignored.lines[1]!.message).toBe('Status "Void"');
    expect(check.records.map((r) => r.lines)).toEqual([[3, 4], [5]]);
    expectSameAsCli(check, await cliDryRun('myob.csv', csv, MYOB_RULES));
  }, 60_000);

  it('Download mapping writes the rules back: the CLI reads the file with it as the check does, and uploaded again it gives the same rules', async () => {
    const csv = sageTrail(project);
    const reading = await upload('sage-round-trip.csv', csv);
    const { applied, state } = await applySaved(reading, 'sage-rules.json', SAGE_RULES);
    const downloaded = await post('/import/mapping.json', state);
    expect(parseMappingFile(downloaded, 'downloaded.json')).toEqual(downloaded);
    expect(downloaded.kinds).toEqual(SAGE_RULES.kinds);
    expect(downloaded.columns).toEqual(SAGE_RULES.columns);
    expect(downloaded.ignore).not.toContain('Type');

    const check = await post<Check>('/import/check', state);
    expectSameAsCli(check, await cliDryRun('sage-round-trip.csv', csv, downloaded));
    const again = await applySaved(await upload('sage-again.csv', csv), 'downloaded.json', downloaded);
    expect(again.applied.rules).toEqual(applied.rules);

    const myob = await applySaved(await upload('myob-round-trip.csv', myobPurchases(project)), 'myob-rules.json', MYOB_RULES);
    expect(await post('/import/mapping.json', myob.state)).toMatchObject({ status: MYOB_RULES.status, totalLabels: ['Balance carried'] });
  }, 60_000);

  it('sent, the mapping with its rules is the last mapping: the next file with this header row is read with them, and the page says so', async () => {
    const csv = sageTrail(project);
    const { state } = await applySaved(await upload('sage-sent.csv', csv), 'sage-rules.json', SAGE_RULES);
    await post('/import/check', state);
    expect((await post('/import/send', { upload: state.upload, skipInvalid: false })).importId).toMatch(/^import-/);

    const next = await upload('sage-next.csv', csv);
    expect(next.rules).toEqual({ kinds: SAGE_RULES.kinds });
    expect(next.lastMapping?.note).toMatch(/\(sent [^)]+\), with its kinds of rows by Type \(bills: "PI"; credits: "PC"; not imported: "PP", "PA"\)\.$/);
    expect(next.columns.find((c) => c.header === 'Type')).toMatchObject({ column: 'ignore', role: 'kind' });
    const check = await post<Check>('/import/check', {
      upload: next.upload, kind: 'bills', account: 'default', layout: next.layout.chosen, sheet: '', ...next.options,
      columns: Object.fromEntries(next.columns.map((c) => [c.header, c.column])), rules: next.rules,
    });
    expect(check.ignored.lines.map((l) => [l.line, l.reason])).toEqual([[5, 'credit'], [6, 'kind']]);
  }, 60_000);

  it('the page script keeps the rules of a saved mapping and sends them back with its state', async () => {
    // The page's script as bundled from src/dashboard/page-script/ (reading.ts, import-state.ts), its spacing aside.
    const script = (await client.call('/import')).text.replace(/\s+/g, '');
    expect(script).toMatch(/rules:\w+\.rules\}/);
    expect(script).toMatch(/if\(\w+\.saved\.rules\)\w+\.rules=\w+\.saved\.rules;/);
  });
});

describe('the state\'s rules in the CLI\'s mapping (pageImportOptions)', () => {
  const QB = ['Type', 'Date', 'Num', 'Vendor', 'Memo', 'Account', 'Amount', 'Customer'];
  const columns = Object.fromEntries(QB.map((h) => [h, 'ignore']));

  it('the state\'s own kinds win over the QuickBooks preset\'s; the preset\'s apply when the state carries none', () => {
    const own = { column: 'Type', bill: ['Bill', 'Expense'], credit: [], ignore: ['Vendor Credit'] };
    const withRules = pageImportOptions(parsePageState({ kind: 'bills', layout: 'quickbooks', columns, rules: { kinds: own, totalLabels: ['Balance due'] } }), 'bills');
    expect(withRules.mapping.kinds).toEqual(own);
    expect(withRules.mapping.totalLabels).toEqual(['Balance due']);
    expect(withRules.mapping.ignore).not.toContain('Type');
    const preset = pageImportOptions(parsePageState({ kind: 'bills', layout: 'quickbooks', columns }), 'bills');
    expect(preset.mapping.kinds).toMatchObject({ column: 'Type', bill: ['Bill'], credit: ['Vendor Credit', 'Credit Card Credit'] });
    expect(preset.mapping.totalLabels).toBeUndefined();
  });

  it('on a plain layout the rules\' column is the kind of each row, and a rule whose column the file lacks is left out', () => {
    const rules = { kinds: { column: 'type', bill: ['PI'], credit: ['PC'], ignore: [] } };
    const plain = pageImportOptions(parsePageState({ kind: 'bills', layout: 'plain', columns, rules }), 'bills');
    expect(plain.mapping.kinds).toEqual({ ...rules.kinds, column: 'Type' });
    expect(plain.mapping.ignore).not.toContain('Type');
    const without = pageImportOptions(parsePageState({ kind: 'bills', layout: 'plain', columns: { Num: 'bill_ref' }, rules }), 'bills');
    expect(without.mapping.kinds).toBeUndefined();
  });

  it('rules the mapping file would refuse are refused in the page\'s state', () => {
    expect(() => parsePageState({ kind: 'bills', rules: { kinds: { column: 'Type', bills: ['PI'] } } })).toThrow();
    expect(() => parsePageState({ kind: 'bills', rules: { totalLabels: [''] } })).toThrow(/a total label cannot be empty \(rules\.totalLabels\.0\)/);
  });
});
