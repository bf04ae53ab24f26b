/**
 * An import never writes over its own input (README, Exit codes): `--report` naming the input
 * (as typed, through a symbolic link, or a report whose rows to fix would land on the input) is
 * refused with exit 2 before anything is read or sent, and the input stays byte for byte as it was.
 */
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csv, freeProjectIds, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';
import { runCli } from './helpers/cli.ts';

let rig: E2eRig;
beforeAll(async () => {
  rig = await startE2eRig();
});
afterAll(() => rig?.close());

const HEADER = ['bill_ref', 'project_id', 'vendor_id', 'title', 'item_name', 'rate', 'qty'];

describe('import with a report or rows to fix over the input', () => {
  it('refuses --report equal to the input, by any name, with exit 2, the input untouched and nothing sent', async () => {
    const project = freeProjectIds(rig.sandbox)[0]!;
    const file = rig.file('over.csv', csv(HEADER, [['OV-1', project, 55, 'Bill OV-1', 'Materials', '10.50', 1]]));
    const before = readFileSync(file);
    symlinkSync(file, join(rig.dir, 'link-to-over.csv'));
    // The rows to fix of `over.report.csv` would be `over.errors.csv`: an input of that name is refused too.
    const errorsNamed = rig.file('over.errors.csv', csv(HEADER, [['OV-2', project, 55, 'Bill OV-2', 'Materials', '10.50', 1]]));
    const errorsBefore = readFileSync(errorsNamed);
    const posts = () => rig.sandbox.requests().filter((r) => r.method === 'POST').length;
    const sent = posts();

    const runs = await Promise.all([
      runCli(['import', 'bills', file, '--report', file], rig.env, { cwd: rig.dir }),
      runCli(['import', 'bills', 'over.csv', '--report', './over.csv', '--dry-run'], rig.env, { cwd: rig.dir }),
      runCli(['import', 'bills', file, '--report', 'link-to-over.csv'], rig.env, { cwd: rig.dir }),
      runCli(['import', 'bills', errorsNamed, '--report', join(rig.dir, 'over.report.csv')], rig.env, { cwd: rig.dir }),
    ]);
    for (const r of runs.slice(0, 3)) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`which is the input file: that would replace the file being imported. Name another place with --report PATH (by default the report goes beside the file as over.csv.report.csv); nothing was read or sent`);
      expect(r.stderr).toMatch(/buildsync: the report \(--report [^)]+\) would be written to /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(runs[3]!.code, runs[3]!.stderr).toBe(2);
    expect(runs[3]!.stderr).toContain(`buildsync: the rows to fix (named after the report) would be written to ${errorsNamed}, which is the input file`);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(readFileSync(errorsNamed).equals(errorsBefore)).toBe(true);
    expect(posts()).toBe(sent);
  });
});
