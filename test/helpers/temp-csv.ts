import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/**
 * A temp folder for the test file's lifetime (made before its tests, removed after) and `csv`,
 * which writes lines there as a file and returns its path.
 */
export function tempCsvFiles(prefix: string): { csv(name: string, lines: string[]): Promise<string> } {
  let dir: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  return {
    async csv(name, lines) {
      const file = path.join(dir!, name);
      await writeFile(file, `${lines.join('\n')}\n`);
      return file;
    },
  };
}
