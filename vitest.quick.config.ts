import { readdirSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { defineConfig } from 'vitest/config';
import base, { luaAsText } from './vitest.config.ts';

/**
 * `npm run test:quick`: the test files that start no other process and no browser, on one Redis
 * (no cluster project). Chosen by what a file does, not by a list: a file is left out when it,
 * or a test helper it imports (followed through test/), loads node:child_process (the CLI, a
 * worker, redis-server, PostgreSQL, LibreOffice) or drives Chromium (playwright). `npm test`
 * stays the whole suite. No global set-up: nothing here runs the CLI's bundle.
 */
const SLOW = /from ['"](node:)?child_process['"]|playwright|chromium/;
const IMPORT = /(?:from|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g;

function startsProcesses(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  if (SLOW.test(text)) return true;
  for (const [, spec] of text.matchAll(IMPORT)) {
    const target = resolve(dirname(file), spec!);
    // Only the tests' own helpers: the code under test is what the quick tier runs.
    if (relative(resolve('test'), target).startsWith('..')) continue;
    if (startsProcesses(target, seen)) return true;
  }
  return false;
}

const quick = readdirSync('test', { recursive: true, encoding: 'utf8' })
  .map((f) => `test/${f}`)
  .filter((f) => f.endsWith('.test.ts') && !/^test\/cluster-/.test(f))
  .filter((f) => !startsProcesses(resolve(f)))
  .sort();

const single = (base.test?.projects as Array<{ test: Record<string, unknown> }>)[0]!.test;

export default defineConfig({
  plugins: [luaAsText],
  test: {
    ...single,
    name: 'quick',
    include: quick,
    exclude: ['**/node_modules/**'],
  },
});
