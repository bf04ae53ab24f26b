import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportProjects, type MyDocumentsMode } from '../src/export/index.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'export-mydocs-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

// As docs/service.md, Overview describes the listing: the official My Documents first with the lowest ID,
// stale references to it further on.
const LISTING = [
  { ID: 5, NAME: 'My Documents' },
  { ID: 101, NAME: 'Kitchen remodel' },
  { ID: 2040, NAME: 'My Documents' },
  { ID: 102, NAME: 'my documents (notes)' },
  { ID: 3077, NAME: 'My Documents' },
  { ID: 103, NAME: 'Deck' },
];

async function run(mode: MyDocumentsMode, records: Record<string, unknown>[], format: 'csv' | 'jsonl' = 'jsonl') {
  async function* source() {
    yield* records;
  }
  const out = path.join(dir, `p.${format}`);
  const result = await exportProjects(source(), { out, format, myDocuments: mode });
  const text = await readFile(out, 'utf8');
  const ids =
    format === 'jsonl'
      ? text.trim().split('\n').map((l) => (JSON.parse(l) as { ID: number }).ID)
      : (parse(text, { columns: true }) as { ID: string }[]).map((r) => Number(r.ID));
  return { result, ids };
}

describe('My Documents in the project export', () => {
  it('exclude drops every record named My Documents', async () => {
    const { result, ids } = await run('exclude', LISTING);
    expect(ids).toEqual([101, 102, 103]);
    expect(result).toMatchObject({ projects: 3, skippedMyDocuments: 3 });
  });

  it('official keeps only the lowest ID, written after the other records', async () => {
    const { result, ids } = await run('official', LISTING, 'csv');
    expect(ids).toEqual([101, 102, 103, 5]);
    expect(result).toMatchObject({ projects: 4, skippedMyDocuments: 2 });
  });

  it('official goes by lowest ID even when the listing does not put that one first', async () => {
    const shuffled = [LISTING[2]!, LISTING[1]!, LISTING[0]!, LISTING[4]!];
    const { result, ids } = await run('official', shuffled);
    expect(ids).toEqual([101, 5]);
    expect(result.skippedMyDocuments).toBe(2);
  });

  it('official with no My Documents record writes the others only', async () => {
    const { result, ids } = await run('official', [{ ID: 9, NAME: 'Deck' }]);
    expect(ids).toEqual([9]);
    expect(result.skippedMyDocuments).toBe(0);
  });

  it('all keeps every record in listing order', async () => {
    const { result, ids } = await run('all', LISTING);
    expect(ids).toEqual([5, 101, 2040, 102, 3077, 103]);
    expect(result).toMatchObject({ projects: 6, skippedMyDocuments: 0 });
  });
});
