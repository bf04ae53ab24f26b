import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { exportProjects } from '../src/export/index.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'export-jsonl-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('writes one object per line, every field as the service sent it', async () => {
  const records: Record<string, unknown>[] = [
    { ID: 1, NAME: 'Kitchen, "big"', SCOPE_OF_WORK: '%3Cp%3Ex%3C%2Fp%3E', LON: -12.5, IS_ARCHIVED: false },
    { ID: 2, NAME: '=cmd', ATTACH_FOLDER_ID: null, EXTRA_FROM_SERVICE: { nested: [1, 'two'] } },
    { ID: 3, NAME: 'line\nbreak \u2028 Zürich 🏗️' },
  ];
  async function* source() {
    yield* records;
  }
  const out = path.join(dir, 'projects.jsonl');
  const result = await exportProjects(source(), { out, format: 'jsonl', myDocuments: 'exclude' });

  const text = await readFile(out, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  const lines = text.slice(0, -1).split('\n');
  expect(lines).toHaveLength(3);
  // Nothing decoded, guarded or dropped: the parsed lines equal the input objects.
  expect(lines.map((l) => JSON.parse(l))).toEqual(records);
  expect(result).toMatchObject({ path: out, projects: 3, bytes: Buffer.byteLength(text), skippedMyDocuments: 0 });
});
