/**
 * What the export benches (bench/export.ts, bench/export-postgres.ts) share: how their child
 * processes are started, and the sandbox role.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The node arguments that start a child role of `self`: an esbuild bundle of it under
 * node_modules/.cache/buildsync-bench/NAME (so that its bare imports resolve), split into chunks
 * as `npm run build` splits the CLI (bin/build.mjs): unsplit, esbuild hoists every package any
 * bundled module imports (pg, ioredis…) to the top of the one file, and each child would load
 * them all, which the CLI does not. With `useTsx`, the source through tsx (bin/source-loader.mjs)
 * instead.
 */
export async function childEntryFor(self: string, name: string, useTsx: boolean): Promise<string[]> {
  if (useTsx) return ['--import', pathToFileURL(path.resolve(path.dirname(self), '../bin/source-loader.mjs')).href, self];
  const dir = path.resolve(path.dirname(self), '../node_modules/.cache/buildsync-bench', name);
  const { build } = await import('esbuild');
  await rm(dir, { recursive: true, force: true });
  await build({
    entryPoints: { [name]: self },
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    splitting: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    loader: { '.lua': 'text' },
    logLevel: 'warning',
  });
  return [path.join(dir, `${name}.mjs`)];
}

/**
 * The `sandbox` role: serves `projects` projects with no rate limit from a process of its own (so
 * that its memory is not counted), `prerender`ed or generated per listing, prints `{url, email, password, apiKey}` as one line, and stops
 * on SIGTERM, SIGINT or when the parent goes away (stdin ends).
 */
export async function serveSandbox(projects: number, prerender: boolean): Promise<void> {
  const { startSandbox } = await import('../../src/sandbox/index.ts');
  const sandbox = await startSandbox({ projects, limits: 'none', prerender });
  process.stdout.write(`${JSON.stringify({ url: sandbox.url, ...sandbox.credentials })}\n`);
  const stop = () => void sandbox.close().finally(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
}
