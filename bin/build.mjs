#!/usr/bin/env node
// Bundles the CLI with esbuild: `npm run build` (dist/), the `prepare` script after `npm ci`, the
// bin when dist/ is missing or stale, and the test suite (its own copy under node_modules/.cache).
//
// Code splitting: each command's implementation is a dynamic import() (src/cli/program/), and
// with --packages=external a package imported by a lazily loaded module would otherwise be
// hoisted to a static import at the top of one single file, so `--version` would load BullMQ,
// exceljs and the rest. Split, each chunk imports its own packages when it is loaded.
//
// The dashboard's page scripts (src/dashboard/page-script/, TypeScript for the browser) are
// bundled first, each into one classic script, and written into the CLI bundle as the constant
// __BUILDSYNC_PAGE_SCRIPTS__ that src/dashboard/page-scripts.ts reads: the bundle needs no file
// beside it. Run from the sources (tsx, vitest), page-scripts.ts calls bundlePageScripts itself.
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The page scripts: name -> entry module, each served inline by its page. */
const PAGE_SCRIPTS = {
  'import-page': 'src/dashboard/page-script/import-page.ts',
  'export-page': 'src/dashboard/page-script/export-page.ts',
};

/**
 * Bundles each page script (PAGE_SCRIPTS) for the browser into the text of one classic script;
 * returns name -> text. Readable, not minified: the page's source in the browser is this.
 */
export async function bundlePageScripts(opts = {}) {
  const { build } = await import('esbuild');
  const out = {};
  for (const [name, entry] of Object.entries(PAGE_SCRIPTS)) {
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: [join(ROOT, entry)],
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'iife',
      target: 'es2020',
      charset: 'utf8',
      logLevel: opts.logLevel ?? 'warning',
    });
    const text = result.outputFiles[0].text;
    // Served inside <script>…</script>: the text must not end the element early.
    if (/<\/script/i.test(text)) throw new Error(`${entry}: the bundled script contains "</script"`);
    out[name] = text;
  }
  return out;
}

/**
 * Builds ROOT/src/cli/main.ts into `outdir`/buildsync.mjs plus `outdir`/chunks/*.mjs; returns
 * esbuild's metafile. Chunks an older build left behind are removed once they are an hour old: a
 * process started a moment ago from the older entry may still load them.
 */
export async function buildBundle(outdir = join(ROOT, 'dist'), opts = {}) {
  const { build } = await import('esbuild');
  // Built beside, then renamed into place file by file, chunks first and the entry last: a
  // process starting meanwhile (tests, several `npx buildsync` at once) never reads half a file.
  const staging = join(outdir, `.build-${process.pid}-${Date.now()}`);
  mkdirSync(join(outdir, 'chunks'), { recursive: true });
  try {
    const pageScripts = await bundlePageScripts(opts);
    const result = await build({
      absWorkingDir: ROOT,
      define: { __BUILDSYNC_PAGE_SCRIPTS__: JSON.stringify(pageScripts) },
      entryPoints: { buildsync: join(ROOT, 'src/cli/main.ts') },
      outdir: staging,
      outExtension: { '.js': '.mjs' },
      chunkNames: 'chunks/[name]-[hash]',
      bundle: true,
      splitting: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      packages: 'external',
      // The Redis scripts (src/**/*.lua) are imported as their text (src/lua.d.ts).
      loader: { '.lua': 'text' },
      metafile: true,
      logLevel: opts.logLevel ?? 'warning',
    });
    const fresh = new Set();
    for (const name of safeReaddir(join(staging, 'chunks'))) {
      renameSync(join(staging, 'chunks', name), join(outdir, 'chunks', name));
      fresh.add(name);
    }
    renameSync(join(staging, 'buildsync.mjs'), join(outdir, 'buildsync.mjs'));
    const hourAgo = Date.now() - 3600_000;
    for (const name of safeReaddir(join(outdir, 'chunks'))) {
      const path = join(outdir, 'chunks', name);
      if (!fresh.has(name) && statSync(path).mtimeMs < hourAgo) rmSync(path, { force: true });
    }
    return result.metafile;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function safeReaddir(dir) {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

// `node bin/build.mjs [--if-available]`: --if-available (the prepare script) does nothing, and
// succeeds, where esbuild is not installed (`npm ci --omit=dev`, as the Dockerfile's runtime stage).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const ifAvailable = process.argv.includes('--if-available');
  try {
    await import('esbuild');
  } catch {
    if (ifAvailable) process.exit(0);
    process.stderr.write('build: esbuild is not installed; run npm ci (with dev dependencies) first\n');
    process.exit(2);
  }
  await buildBundle(join(ROOT, 'dist'), { logLevel: 'info' });
}
