#!/usr/bin/env node
// `npm run bench -- NAME [args…]`: runs bench/NAME.ts through tsx (bin/source-loader.mjs: tsx, and the
// Redis scripts' .lua files as text), passing the extra args on.
// Each bench prints what it likes and, as its LAST stdout line, one JSON object with its figures
// (e.g. {"bench":"export","ratio":1.04,"peak_rss_mb":118,"seconds":14.2}), for scripts to read.
// Without NAME (or with an unknown one) it lists the benches and exits 2.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const benches = readdirSync(here)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3))
  .sort();

const [name, ...args] = process.argv.slice(2);
if (!name || !benches.includes(name)) {
  if (name) process.stderr.write(`bench: no bench named ${JSON.stringify(name)}\n`);
  process.stderr.write(`usage: npm run bench -- NAME [args...]\navailable: ${benches.join(', ')}\n`);
  process.exit(2);
}

// bin/source-loader.mjs loads the TypeScript sources as they are (no build), like bin/buildsync.mjs
// without esbuild.
const loader = pathToFileURL(path.join(here, '..', 'bin', 'source-loader.mjs')).href;
const child = spawn(process.execPath, ['--import', loader, path.join(here, `${name}.ts`), ...args], {
  stdio: 'inherit',
});
// Ctrl-C reaches the bench through the terminal's process group; a SIGTERM sent to this runner
// alone is handed on, so the bench can stop the children it started.
process.on('SIGTERM', () => child.kill('SIGTERM'));
process.on('SIGINT', () => {});
child.on('exit', (code, signal) => {
  process.exit(code ?? (signal ? 128 + (signal === 'SIGINT' ? 2 : 15) : 1));
});
