import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding buildsync's package.json, from wherever this code runs: the TypeScript
 * sources (src/…) or the bundle (dist/buildsync.mjs) sit at different depths below it.
 */
export function packageRoot(from: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'samples'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find buildsync's package.json above ${fileURLToPath(from)}`);
    dir = up;
  }
}
