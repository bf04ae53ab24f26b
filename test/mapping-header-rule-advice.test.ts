import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planEstimates } from '../src/import/index.ts';

// When no row of a file qualifies as its header, the stop names the closest row; it proposes
// ignoring columns only for a row that reads as a header, never title text or data values.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'buildsync-header-advice-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function stopOf(name: string, text: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, text);
  const err = await planEstimates(file).then(() => undefined, (e: unknown) => e as Error);
  expect(err).toBeInstanceOf(Error);
  return err!.message;
}

describe('the no-header-row stop', () => {
  it('never proposes to ignore a title block as columns', async () => {
    const message = await stopOf('titles.csv', 'Estimate export\r\nACME BUILDERS LLC, 12 Main Street\r\nTerms apply\r\n');
    expect(message).toContain('line 2 comes closest');
    expect(message).not.toMatch(/"ignore"/);
    expect(message).toContain('--header-row N');
  });

  it('never proposes to ignore data values as columns', async () => {
    const message = await stopOf('no-header.csv', 'Estimate export\r\n1042,Kitchen remodel,Demolition,Labor,Crew day,2,640\r\n');
    expect(message).not.toMatch(/"ignore"/);
    expect(message).toContain('"Kitchen remodel"');
  });

  it('still suggests the columns a header row seems to mean', async () => {
    const message = await stopOf('near.csv', 'Job #,Estimate Nme,category\r\n1042,Kitchen,Demolition\r\n');
    expect(message).toMatch(/estimate_name/);
  });
});
