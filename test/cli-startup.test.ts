import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error bin/build.mjs is plain JavaScript without types
import { buildBundle } from '../bin/build.mjs';
import { runCli } from './helpers/cli.ts';

const ROOT = resolve(import.meta.dirname, '..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = (name: string) => {
  const d = mkdtempSync(join(tmpdir(), `buildsync-${name}-`));
  dirs.push(d);
  return d;
};

interface Metafile {
  outputs: Record<
    string,
    { imports: Array<{ path: string; kind: string; external?: boolean }>; inputs: Record<string, { bytesInOutput: number }>; entryPoint?: string }
  >;
}

/** The output files a module loads before its first line runs: itself, its static imports, and theirs. */
function staticOutputs(meta: Metafile, from: string): string[] {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length) {
    const out = stack.pop()!;
    if (seen.has(out)) continue;
    seen.add(out);
    for (const i of meta.outputs[out]!.imports) if (i.kind === 'import-statement' && !i.external) stack.push(i.path);
  }
  return [...seen];
}

/** `node_modules/@scope/name/lib/x.js` -> `@scope/name`; a path outside node_modules -> undefined. */
function packageOf(input: string): string | undefined {
  const at = input.lastIndexOf('node_modules/');
  if (at < 0) return undefined;
  const parts = input.slice(at + 'node_modules/'.length).split('/');
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

/**
 * The packages a module loads before its first line runs: those bundled into the output files it
 * reaches by static imports (any of a package's code there, even code only run when called, counts),
 * and those these files import from outside the bundle (node's own modules, the optional native ones).
 */
function staticPackages(meta: Metafile, from: string): Set<string> {
  const packages = new Set<string>();
  for (const o of staticOutputs(meta, from)) {
    for (const [input, { bytesInOutput }] of Object.entries(meta.outputs[o]!.inputs)) {
      const name = packageOf(input);
      if (name !== undefined && bytesInOutput > 0) packages.add(name);
    }
    for (const i of meta.outputs[o]!.imports) if (i.kind === 'import-statement' && i.external) packages.add(i.path);
  }
  return packages;
}

/** One build for the bundle's checks below. */
let built: Promise<Metafile> | undefined;
const bundleMeta = () => (built ??= (buildBundle as (dir: string) => Promise<Metafile>)(tempDir('bundle')));

/** The CLI with only PATH set. */
const cli = (args: string[]) => runCli(args, {});

describe('cold start: --version and --help load commander and nothing heavy', () => {
  it('the bundle entry reaches no heavy package statically; each command is its own lazily loaded chunk', async () => {
    const meta = await bundleMeta();
    const entry = Object.keys(meta.outputs).find((o) => o.endsWith('/buildsync.mjs'))!;
    const loaded = [...staticPackages(meta, entry)];
    // Only node's own modules and commander: no bullmq, ioredis, exceljs, undici, express,
    // bull-board, prom-client, zod, pino, csv-parse, dotenv or pg before a command runs.
    expect(loaded.filter((p) => !isBuiltin(p)).sort()).toEqual(['commander']);
    // …and the command's work is there, behind dynamic imports.
    const lazy = meta.outputs[entry]!.imports.filter((i) => i.kind === 'dynamic-import').map((i) => i.path);
    for (const command of ['import-command', 'export-command', 'worker-command', 'jobs-command', 'schedule-command', 'dashboard-command']) {
      expect(lazy.some((p) => p.includes(`/${command}-`)), command).toBe(true);
    }
  });

  it('an import\'s dry run loads the readers and never the queue: BullMQ, prom-client and the progress bar come with the send alone', async () => {
    const meta = await bundleMeta();
    const chunk = (name: string) => Object.keys(meta.outputs).find((o) => o.includes(`/${name}-`))!;
    // import-command.ts checks the flags and runs the dry run; import-send.ts, loaded when it sends, the rest.
    const dryRun = [...staticPackages(meta, chunk('import-command'))];
    expect(dryRun).toEqual(expect.arrayContaining(['csv-parse', 'zod']));
    // Nor Redis: an estimate's dry run never connects; a bill's loads ioredis (and pino, the
    // connection's error log) when it reads the account's vendor list (src/redis/index.ts). Nor
    // the .xlsx reader's yauzl and saxes, loaded when a workbook is opened (src/tables/open-table.ts).
    // Nor node:http and node:https, loaded by the first GET (src/api/http-transport.ts): 15-20 ms of CPU at a start.
    for (const heavy of ['bullmq', 'prom-client', 'cli-progress', 'express', '@bull-board/api', 'exceljs', 'undici', 'pg', 'ioredis', 'pino', 'yauzl', 'saxes', 'node:http', 'node:https', 'http', 'https']) {
      expect(dryRun.filter((p) => p === heavy || p.startsWith(`${heavy}/`)), heavy).toEqual([]);
    }
    // zod as a namespace import (`import * as z`): esbuild keeps what the schemas use, not zod's
    // ~40 locales (737 KB of zod in the dry run's chunks with `import { z }`, 194 KB without).
    const zodInputs = staticOutputs(meta, chunk('import-command')).flatMap((o) => Object.entries(meta.outputs[o]!.inputs).filter(([i, v]) => v.bytesInOutput > 0 && packageOf(i) === 'zod').map(([i]) => i));
    expect(zodInputs.filter((i) => /\/locales\/(?!en\.)/.test(i))).toEqual([]);
    // Nor the dashboard's page scripts (~37 KB, bin/build.mjs's __BUILDSYNC_PAGE_SCRIPTS__): they come
    // with the dashboard's chunks alone, never with a dry run or --version.
    const pageScripts = (from: string) => staticOutputs(meta, from).flatMap((o) => Object.entries(meta.outputs[o]!.inputs).filter(([i, v]) => v.bytesInOutput > 0 && /page-scripts\.ts$|__BUILDSYNC_PAGE_SCRIPTS__/.test(i)).map(([i]) => i));
    expect(pageScripts(chunk('import-command'))).toEqual([]);
    expect(pageScripts(Object.keys(meta.outputs).find((o) => o.endsWith('/buildsync.mjs'))!)).toEqual([]);
    expect(pageScripts(chunk('dashboard-command'))).not.toEqual([]);
    // The send is a dynamic import of the dry run's chunks (import-command.ts may sit in a chunk it shares with the demo).
    const later = staticOutputs(meta, chunk('import-command')).flatMap((o) => meta.outputs[o]!.imports.filter((i) => i.kind === 'dynamic-import').map((i) => i.path));
    expect(later.some((p) => p.includes('/import-send-'))).toBe(true);
    // The send loads the progress bar at once; ioredis with its first connection, BullMQ when it
    // opens the queues (src/cli/runtime.ts), undici by the first create (src/api/http-transport.ts).
    expect([...staticPackages(meta, chunk('import-send'))]).toEqual(expect.arrayContaining(['cli-progress']));
    expect(later).toContain(chunk('connection'));
    expect([...staticPackages(meta, chunk('connection'))]).toEqual(expect.arrayContaining(['ioredis', 'pino']));
  });

  it('the packages are bundled, each once: node_modules is left only the optional add-ons, and bullmq\'s pg', async () => {
    const meta = await bundleMeta();
    const outside = new Set<string>();
    for (const out of Object.values(meta.outputs)) for (const i of out.imports) if (i.external && !isBuiltin(i.path) && !i.path.startsWith('node:')) outside.add(i.path);
    // pg-native and msgpackr-extract: native, required in a try/catch; @valkey/valkey-glide: not installed,
    // required by bullmq's Valkey client alone; pg as bullmq requires it (its PostgreSQL backend, unused).
    expect([...outside].sort()).toEqual(['@valkey/valkey-glide', 'msgpackr-extract', 'pg', 'pg-native']);
    // One copy of each package whose classes the code checks with instanceof (layout.ts's Cluster,
    // ReplyError) or shares with bull-board: bullmq and bull-board's adapter require the same ioredis and bullmq.
    const inputs = Object.values(meta.outputs).flatMap((o) => Object.entries(o.inputs).filter(([, v]) => v.bytesInOutput > 0).map(([i]) => i));
    for (const name of ['ioredis', 'bullmq', 'express']) {
      // A copy: where the package sits, and which of its builds (bullmq ships CommonJS and ESM ones).
      const copies = new Set(inputs.filter((i) => packageOf(i) === name).map((i) => i.slice(0, i.lastIndexOf(`node_modules/${name}/`)) + (/\/dist\/(cjs|esm)\//.exec(i)?.[0] ?? '')));
      expect([...copies], name).toHaveLength(1);
    }
    // No package is the target of an import() of ours: bundled, a dynamic import of a CommonJS package
    // gives its default export alone (`const { Pool } = await import('undici')` got undefined). A
    // module of ours imports it statically, and is the one imported lazily (src/api/undici-pool.ts).
    const lazyPackages = Object.values(meta.outputs).map((o) => o.entryPoint).filter((e) => e !== undefined && packageOf(e) !== undefined);
    expect(lazyPackages).toEqual([]);
  });

  it('--version and a dry run load no child_process (commander\'s require of it is made when it spawns, bin/build.mjs), nor node:http', async () => {
    // Node's own modules the CLI loaded, written at exit by a preload (process.moduleLoadList). net
    // is not among those checked: standard output is a pipe here, which node opens as a net.Socket.
    const dir = tempDir('modules');
    const preload = join(dir, 'preload.cjs');
    writeFileSync(preload, "process.on('exit', () => require('node:fs').writeFileSync(process.env.MODULES_OUT, process.moduleLoadList.join('\\n')));\n");
    const loaded = async (name: string, args: string[]): Promise<string[]> => {
      const out = join(dir, `${name}.txt`);
      const r = await runCli(args, { NODE_OPTIONS: `--require ${preload}`, MODULES_OUT: out }, { cwd: dir });
      expect(r.code, r.stderr).toBe(0);
      return readFileSync(out, 'utf8').split('\n');
    };
    const dryRun = ['import', 'estimates', join(ROOT, 'samples', 'estimates.csv'), '--dry-run', '--report', join(dir, 'estimates.report.csv')];
    for (const [name, args] of [['version', ['--version']], ['dry-run', dryRun]] as const) {
      const modules = await loaded(name, [...args]);
      expect(modules, name).toContain('NativeModule fs');
      expect(modules.filter((m) => /^NativeModule (child_process|dgram|http|https)$/.test(m)), name).toEqual([]);
    }
  });

  it('prints the version, and every command\'s --help ends with examples', async () => {
    const version = await cli(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe(VERSION);
    const commands = [
      [], ['export'], ['export', 'projects'], ['import'], ['import', 'estimates'], ['import', 'bills'], ['worker'],
      ['schedule'], ['schedule', 'export-projects'], ['schedule', 'list'], ['schedule', 'remove'],
      ['jobs'], ['jobs', 'list'], ['jobs', 'show'], ['jobs', 'report'], ['check'], ['ledger'], ['ledger', 'export'],
      ['ledger', 'import'], ['ledger', 'prune'], ['template'], ['sandbox'], ['dashboard'], ['demo'],
    ];
    for (const c of commands) {
      const help = await cli([...c, '--help']);
      expect(help.code, c.join(' ')).toBe(0);
      expect(help.stdout, c.join(' ')).toMatch(/\nExamples:\n {2}\$ buildsync /);
    }
    // The flags the contract names are listed where a script looks for them.
    const exportHelp = (await cli(['export', 'projects', '--help'])).stdout;
    expect(exportHelp).toMatch(/--out <path>\s+output file, or - for standard output/);
    expect(exportHelp).toMatch(/--json\s+print the summary as one JSON object/);
    expect(exportHelp).toMatch(/--include-client-sub <yes\|no>/);
    const importHelp = (await cli(['import', 'bills', '--help'])).stdout;
    for (const flag of ['--report <path>', '--out <path>', '--json', '--detach', '--dry-run']) expect(importHelp).toContain(flag);
  });
});

describe('bin/buildsync.mjs runs a current bundle, and builds it when it is missing or stale', () => {
  it('builds dist/ on first use, runs it, and rebuilds after a source file changes', async () => {
    // A copy of the checkout (its node_modules linked), so that the real dist/ is left alone.
    const root = tempDir('checkout');
    for (const part of ['bin', 'src', 'jobs', 'samples', 'package.json']) cpSync(join(ROOT, part), join(root, part), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
    const run = () => runCli(['--version'], process.env, { bin: join(root, 'bin', 'buildsync.mjs'), timeoutMs: 60_000 });

    const first = await run();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trim()).toBe(VERSION);
    expect(first.stderr).toBe('');
    const built = statSync(join(root, 'dist', 'buildsync.mjs')).mtimeMs;

    // Current: run as it is, not rebuilt.
    expect((await run()).code).toBe(0);
    expect(statSync(join(root, 'dist', 'buildsync.mjs')).mtimeMs).toBe(built);

    // A source file newer than the bundle: rebuilt before it runs.
    const later = new Date(built + 5_000);
    utimesSync(join(root, 'src', 'cli', 'options.ts'), later, later);
    const second = await run();
    expect(second.code, second.stderr).toBe(0);
    expect(statSync(join(root, 'dist', 'buildsync.mjs')).mtimeMs).toBeGreaterThan(built);
    // Two builds with the packages bundled (about 2 s of CPU each), on a machine the suite keeps busy.
  }, 90_000);
});
