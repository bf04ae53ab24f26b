#!/usr/bin/env node
// Bundles the CLI with esbuild: `npm run build` (dist/), the `prepare` script after `npm ci`, the
// bin when dist/ is missing or stale, and the test suite (its own copy under node_modules/.cache).
//
// The npm packages are bundled too: resolving, statting and parsing some hundred package files at
// every start took about a third of a dry run's CPU (docs/benchmarks.md, startup). Left out (loaded
// from node_modules when called, as before) are the optional native add-ons (OPTIONAL_NATIVE) and
// bullmq's unused pg (bullmqOptionalPg). What a bundled package would find beside itself at run
// time is handled: bull-board's UI files (uiBasePath in src/dashboard/board.ts: node_modules stays
// installed, `npm ci --omit=dev` in the image), the csv-parse version
// (__BUILDSYNC_CSV_PARSE_VERSION__), ioredis's version (patchIoredisVersion). Left as they are,
// since buildsync uses none of them: `__dirname` in pino's transports, bullmq's sandboxed
// (file) processors and ioredis's showFriendlyErrorStack.
//
// Code splitting: each command's implementation is a dynamic import() (src/cli/program/), and
// without it the packages of a lazily loaded module would be hoisted into one single file, so
// `--version` would load BullMQ, exceljs and the rest. Split, each chunk holds or imports what
// its modules need, loaded when the chunk is (test/cli-startup.test.ts checks it from the metafile).
//
// The dashboard's page scripts (src/dashboard/page-script/, TypeScript for the browser) are
// bundled first, each into one classic script, and written into the CLI bundle as the constant
// __BUILDSYNC_PAGE_SCRIPTS__ (their JSON) that src/dashboard/page-scripts.ts reads: the bundle needs no file
// beside it. Run from the sources (tsx, vitest), page-scripts.ts calls bundlePageScripts itself.
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Optional native add-ons that packages require in a try/catch, falling back to JavaScript without
 * them: kept out of the bundle, so that where one is installed it is loaded from node_modules as
 * before (bundled, its loader would look for the .node file beside the bundle's chunk).
 */
const OPTIONAL_NATIVE = ['pg-native', 'msgpackr-extract'];

/**
 * Every output file starts with a `require` of its own: bundled CommonJS packages call it for
 * node's modules and the add-ons above (esbuild's ESM output has none: "Dynamic require of … is
 * not supported"). `createRequire` is imported under a name of its own, since a bundled module
 * importing `createRequire` is emitted as an import of that name in the same file.
 */
const REQUIRE_BANNER =
  "import { createRequire as __buildsyncCreateRequire } from 'node:module';\n" +
  'const require = __buildsyncCreateRequire(import.meta.url);';

/** The version of an installed package (as esbuild resolves it from the sources, in ROOT/node_modules). */
function installedVersion(name) {
  return JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
}

/**
 * ioredis reads its own package.json (`__dirname`/../../package.json) for the library version it
 * names to Redis (CLIENT SETINFO lib-ver); bundled, there is no `__dirname` and it would send
 * "error-fetching-version". The version is written in at build time instead. Fails the build when
 * an ioredis upgrade changes that code, rather than bundling it unpatched; `done.patched` says
 * whether the file was seen (buildBundle fails when ioredis was bundled without it).
 */
function patchIoredisVersion(done) {
  const READ = 'const filePath = (0, path_1.resolve)(__dirname, "..", "..", "package.json");\n        const data = await fs_1.promises.readFile(filePath, "utf8");';
  return {
    name: 'ioredis-version',
    setup(build) {
      build.onLoad({ filter: /[\\/]node_modules[\\/]ioredis[\\/]built[\\/]utils[\\/]index\.js$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes(READ)) throw new Error(`${args.path}: ioredis no longer reads its package.json as bin/build.mjs expects; check patchIoredisVersion`);
        const version = JSON.parse(readFileSync(join(dirname(args.path), '..', '..', 'package.json'), 'utf8')).version;
        done.patched = true;
        return { contents: text.replace(READ, `const data = ${JSON.stringify(JSON.stringify({ version }))};`), loader: 'js' };
      });
    },
  };
}

/**
 * bullmq requires pg only for its PostgreSQL backend, which buildsync does not use. Bundled, that
 * require would put pg's code in the queue's chunk, parsed by every command that opens a queue;
 * left to node_modules, it is loaded only if ever called, as before bundling.
 */
const bullmqOptionalPg = {
  name: 'bullmq-optional-pg',
  setup(build) {
    build.onResolve({ filter: /^pg$/ }, (args) => (/[\\/]node_modules[\\/]bullmq[\\/]/.test(args.importer) ? { path: 'pg', external: true } : undefined));
  },
};

/**
 * commander requires node:child_process when it is loaded, for the executable subcommands
 * (`program.command('x', 'description')` run as files) that buildsync does not use: that load
 * (child_process, with net, dgram and their internals) was part of every start, `--version` too.
 * Bundled, the require is made where commander spawns, the first time it does. Fails the build
 * when a commander upgrade changes that line, rather than bundling it unpatched.
 */
function lazyCommanderChildProcess(done) {
  const REQUIRE = "const childProcess = require('node:child_process');";
  return {
    name: 'commander-lazy-child-process',
    setup(build) {
      build.onLoad({ filter: /[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes(REQUIRE) || text.split('childProcess.').length - 1 !== text.split('childProcess.spawn(').length - 1) {
          throw new Error(`${args.path}: commander no longer loads child_process as bin/build.mjs expects; check lazyCommanderChildProcess`);
        }
        done.patched = true;
        const lazy = "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";
        return { contents: text.replace(REQUIRE, lazy), loader: 'js' };
      });
    },
  };
}

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
    const ioredis = { patched: false };
    const commander = { patched: false };
    const result = await build({
      absWorkingDir: ROOT,
      define: {
        // A string (the scripts' JSON), not an object: esbuild puts an object's define in a chunk of
        // its own that every chunk imports, so that each command's start (`--version` too) loaded the
        // ~37 KB of the page scripts. A string is written where page-scripts.ts reads it, in the dashboard's chunks.
        __BUILDSYNC_PAGE_SCRIPTS__: JSON.stringify(JSON.stringify(pageScripts)),
        // The csv-parse bundled, whose private engine src/tables/csv-engine.ts uses when it is the verified one.
        __BUILDSYNC_CSV_PARSE_VERSION__: JSON.stringify(installedVersion('csv-parse')),
      },
      entryPoints: { buildsync: join(ROOT, 'src/cli/main.ts') },
      outdir: staging,
      outExtension: { '.js': '.mjs' },
      chunkNames: 'chunks/[name]-[hash]',
      bundle: true,
      splitting: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      // Bundled, two packages' classes of one name would be renamed (ioredis' ReplyError became
      // ReplyError2), and code that tells errors apart by `err.name` (ours, the packages') would
      // stop recognising them: every function and class keeps its own name.
      keepNames: true,
      external: OPTIONAL_NATIVE,
      banner: { js: REQUIRE_BANNER },
      plugins: [patchIoredisVersion(ioredis), lazyCommanderChildProcess(commander), bullmqOptionalPg],
      // The Redis scripts (src/**/*.lua) are imported as their text (src/lua.d.ts).
      loader: { '.lua': 'text' },
      metafile: true,
      logLevel: opts.logLevel ?? 'warning',
    });
    if (!ioredis.patched && Object.keys(result.metafile.inputs).some((i) => i.includes('node_modules/ioredis/'))) {
      throw new Error('bin/build.mjs: ioredis is bundled but its package.json read was not patched (patchIoredisVersion): has the file moved?');
    }
    if (!commander.patched) throw new Error('bin/build.mjs: commander was bundled without its child_process require made lazy (lazyCommanderChildProcess): has the file moved?');
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
