#!/usr/bin/env node
// `buildsync` / `npx buildsync`: runs the esbuild bundle dist/buildsync.mjs (plain node, starts in
// a few tens of milliseconds). When the bundle is missing or older than the sources (a checkout
// being edited, or `npm ci --ignore-scripts`), it is built first (bin/build.mjs, with esbuild from
// the dev dependencies); where esbuild is not installed, the sources run through tsx when that is
// installed; otherwise a message says what to do.
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BUNDLE = join(ROOT, 'dist', 'buildsync.mjs');

/**
 * The newest modification time of what the bundle is built from: every file under src/ and jobs/,
 * package.json, package-lock.json (the bundle carries the npm packages: an install that changes one
 * rebuilds it) and the build script. About 150 stats, a few milliseconds: cheap next to a stale
 * bundle silently running old code in a checkout (a content hash would cost reading every file).
 */
function newestSource() {
  let newest = 0;
  const visit = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory()) visit(path);
      else newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  visit(join(ROOT, 'src'));
  visit(join(ROOT, 'jobs'));
  for (const f of ['package.json', 'package-lock.json', 'bin/build.mjs']) newest = Math.max(newest, mtime(join(ROOT, f)));
  return newest;
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

const built = mtime(BUNDLE);
let fresh = built > 0 && built >= newestSource();
if (!fresh) {
  let why;
  try {
    const { buildBundle } = await import('./build.mjs');
    await buildBundle(undefined, { logLevel: 'silent' });
    fresh = true;
  } catch (err) {
    why = err;
  }
  if (!fresh) {
    try {
      await import('tsx/esm/api');
    } catch {
      const reason = why?.code === 'ERR_MODULE_NOT_FOUND' ? 'esbuild is not installed' : `building it failed: ${why?.message ?? why}`;
      process.stderr.write(
        `buildsync: ${built ? 'dist/buildsync.mjs is older than the sources' : 'dist/buildsync.mjs is missing'} and ${reason}, and tsx (to run the sources) is not installed either.\n` +
          `Run npm ci in ${ROOT} (it builds the bundle), or npm run build where the dev dependencies are installed.\n`,
      );
      process.exit(2);
    }
    if (why?.code !== 'ERR_MODULE_NOT_FOUND') {
      const first = why?.errors?.[0];
      const where = first?.location ? `${first.location.file}:${first.location.line}: ${first.text}` : (why?.message ?? String(why));
      process.stderr.write(`buildsync: could not build dist/buildsync.mjs (${where}); running the sources through tsx\n`);
    }
    // tsx, and the Redis scripts' .lua files as their text (esbuild's text loader in the bundle).
    await import('./source-loader.mjs');
    await import(pathToFileURL(join(ROOT, 'src', 'cli', 'main.ts')).href);
  }
}
if (fresh) await import(pathToFileURL(BUNDLE).href);
