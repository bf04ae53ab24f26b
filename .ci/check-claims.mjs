#!/usr/bin/env node
// The README and docs/ say true things: every file they name exists, every environment variable
// they name is one the code reads (or an error code it prints), every `buildsync` command line
// they show names commands and flags that `--help` lists, every `npm run` script exists; and every
// variable the code reads is in the README's configuration table and .env.example (test knobs in
// docs/benchmarks.md's "Test knobs"). Links are checked by .ci/check-docs.mjs.
//
//   node .ci/check-claims.mjs            # exit 1 listing each false claim
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const read = (f) => readFileSync(join(root, f), 'utf8');
const problems = [];

// ---- what the repository holds ------------------------------------------------------------------

/** Every command of the CLI with its long options, as commander builds them for `--help`. */
const tree = JSON.parse(
  execFileSync(
    process.execPath,
    [
      '--import',
      pathToFileURL(join(root, 'bin', 'source-loader.mjs')).href,
      '--input-type=module',
      '-e',
      `const { buildProgram } = await import(${JSON.stringify(join(root, 'src/cli/program/index.ts'))});
       const walk = (c) => ({ name: c.name(), aliases: c.aliases(), options: c.options.map((o) => o.long).filter(Boolean), valued: c.options.filter((o) => o.required || o.optional).map((o) => o.long), commands: c.commands.map(walk) });
       process.stdout.write(JSON.stringify(walk(buildProgram('0.0.0'))));`,
    ],
    { cwd: root, encoding: 'utf8' },
  ),
);
const ALWAYS = ['--help', '--version'];
const allFlags = new Set(ALWAYS);
(function collect(c) {
  for (const o of c.options) allFlags.add(o);
  for (const s of c.commands) collect(s);
  // commander turns `--no-queue` into an option whose long name is `--no-queue`: kept as written.
})(tree);

const scripts = JSON.parse(read('package.json')).scripts;

function sources(dir) {
  const out = [];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...sources(p));
    else if (/\.(ts|mjs|js|lua)$/.test(e.name)) out.push(p);
  }
  return out;
}
const code = [...sources('src'), ...sources('jobs'), ...sources('bin')].map((f) => read(f)).join('\n');
const config = read('src/config.ts');
const knobsFile = read('src/knobs.ts');

/** The variables the code reads: env schemas' keys, the per-account suffixes, direct reads. */
const schemaKeys = (text) => [...text.matchAll(/^ {2}([A-Z][A-Z0-9_]+): /gm)].map((m) => m[1]);
const accountSuffixes = [...new Set([...config.matchAll(/\bv\('([A-Z_]+)'\)/g)].map((m) => m[1]))];
const knobs = new Set(schemaKeys(knobsFile));
const userVars = new Set([
  ...schemaKeys(config),
  ...accountSuffixes.map((s) => `BUILDSYNC_${s}`),
  ...[...code.matchAll(/\b(?:process\.)?env\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]),
]);
for (const k of knobs) userVars.delete(k);
/** Error codes and other printed names: string literals of the code (`'BUILDSYNC_ROW_INVALID'`). */
const literals = new Set([...code.matchAll(/['"`](BUILDSYNC_[A-Z0-9_]+)['"`]/g)].map((m) => m[1]));
/** Names the code builds from a prefix (`BUILDSYNC_HTTP_${status}`). */
const templatePrefixes = [...new Set([...code.matchAll(/`(BUILDSYNC_[A-Z0-9_]*)\$\{/g)].map((m) => m[1]))].filter((p) => p.length > 'BUILDSYNC_'.length);

function knownVariable(name) {
  if (userVars.has(name) || knobs.has(name) || literals.has(name)) return true;
  if (templatePrefixes.some((p) => name.startsWith(p))) return true;
  // An account's own variable: BUILDSYNC_ACME_BASE_URL.
  return accountSuffixes.some((s) => new RegExp(`^BUILDSYNC_[A-Z][A-Z0-9]*_${s}$`).test(name));
}

// ---- the documents' claims ----------------------------------------------------------------------

const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
const documents = tracked.filter((f) => f === 'README.md' || (f.startsWith('docs/') && f.endsWith('.md')));
const ROOT_FILES = /^(\.env\.example|Dockerfile|docker-compose\.yml|package(-lock)?\.json|tsconfig\.json|vitest\.config\.ts|eslint\.config\.(js|mjs)|[A-Z][A-Z_]*\.md)$/;
const REPO_PATH = /^(src|jobs|test|bench|docs|bin|samples|\.ci)\/[\w./@+-]*$/;
/** The benches' own flags (docs/benchmarks.md shows them). */
const benchFlags = new Set(sources('bench').flatMap((f) => [...read(f).matchAll(/['"`](--[a-z][a-z0-9-]*)/g)].map((m) => m[1])));
/** Paths that .gitignore keeps out of the repository (made by a bench or a build). */
const ignored = read('.gitignore').split('\n').map((l) => l.trim().replace(/^\//, '')).filter((l) => l && !l.startsWith('#'));
/** Flags of other programs that the documents show on their own lines (node, redis-server, npm, chromium). */
const FOREIGN_FLAGS = new Set(['--max-old-space-size', '--import', '--appendonly', '--appendfsync', '--save', '--port', '--bind', '--daemonize', '--maxmemory-policy', '--no-audit', '--no-fund', '--omit', '--reporter', '--outputFile', '--project', '--headless', '--no-sandbox', '--user-data-dir', '--cpu-prof', '--cpu-prof-dir', '--expose-gc', '--max-semi-space-size', '--env-file', '--inspect', '--rm', '--network', '--build', '-d', '--trace-gc', '--trace-gc-nvp']);

function commandOf(words) {
  // words after `buildsync`: [global options] command [subcommand] …; the deepest command named, or a problem.
  let node = tree;
  const path = ['buildsync'];
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (node === tree && w.startsWith('--')) {
      if (tree.valued.includes(w.split('=')[0]) && !w.includes('=')) i++;
      continue;
    }
    if (w.startsWith('-') || w.startsWith('<') || w.startsWith('[') || w.startsWith('$') || !/^[a-z][a-z-]*$/.test(w)) break;
    if (node.commands.length === 0) break;
    const next = node.commands.find((c) => c.name === w || c.aliases.includes(w));
    if (!next) return { problem: `\`${path.join(' ')} ${w}\`: no such command (see \`${path.join(' ')} --help\`)` };
    node = next;
    path.push(w);
  }
  return { node, path };
}

function flagsOf(path) {
  const flags = new Set(ALWAYS);
  let node = tree;
  for (const o of node.options) flags.add(o);
  for (const name of path.slice(1)) {
    node = node.commands.find((c) => c.name === name || c.aliases.includes(name));
    for (const o of node.options) flags.add(o);
  }
  return flags;
}

for (const file of documents) {
  const lines = read(file).split('\n');
  let fence = false;
  lines.forEach((line, i) => {
    const where = `${file}:${i + 1}`;
    if (/^\s*```/.test(line)) {
      fence = !fence;
      return;
    }
    const spans = fence ? [line] : [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    for (const span of spans) {
      // Files.
      const path = span.trim().replace(/:\d+(-\d+)?$/, '').replace(/[),.;]+$/, '');
      const isIgnored = ignored.some((g) => path === g || path.startsWith(g.endsWith('/') ? g : `${g}/`) || `${path}/` === g);
      if (!fence && (REPO_PATH.test(path) || ROOT_FILES.test(path)) && !/[*<>{}]/.test(path) && !isIgnored && !existsSync(join(root, path))) {
        problems.push(`${where}: names ${path}, which the repository does not have`);
      }
      // Environment variables.
      for (const m of span.matchAll(/\b(BUILDSYNC_[A-Z0-9_]*[A-Z0-9]|REDIS_URL|REDIS_CLUSTER|LOG_LEVEL)\b(?!<)/g)) {
        if (!knownVariable(m[1])) problems.push(`${where}: names ${m[1]}, which the code neither reads nor prints`);
      }
      // npm scripts.
      for (const m of span.matchAll(/\bnpm run ([\w:-]+)/g)) {
        if (!scripts[m[1]]) problems.push(`${where}: \`npm run ${m[1]}\`: package.json has no such script`);
      }
      // buildsync command lines.
      // A command line: `buildsync` first in the span or line (after a `$ ` prompt or VAR=value
      // assignments), or after `&&`, `|`, `;` (prose that mentions buildsync is no command line).
      for (const m of span.matchAll(/(?:^\s*(?:\$ )?|(?:&&|\||;)\s*)(?:[A-Z_]+=\S+\s+)*(?:npx |node bin\/)?buildsync(?:\.mjs)? ([^#|;&]*)/g)) {
        const words = m[1].trim().split(/\s+/).filter(Boolean);
        if (words.length === 0) continue;
        const found = commandOf(words);
        if (found.problem) {
          problems.push(`${where}: ${found.problem}`);
          continue;
        }
        const flags = flagsOf(found.path);
        for (const w of words) {
          const flag = /^(--[a-z][a-z0-9-]*)/.exec(w)?.[1];
          if (flag && !flags.has(flag)) problems.push(`${where}: \`${found.path.join(' ')}\` has no flag ${flag} (see \`${found.path.join(' ')} --help\`)`);
        }
      }
      // A flag on its own (`--header-row N`): some command must have it.
      const alone = /^(--[a-z][a-z0-9-]*)(?:[ =]|$)/.exec(span.trim());
      if (!fence && alone && !allFlags.has(alone[1]) && !FOREIGN_FLAGS.has(alone[1]) && !benchFlags.has(alone[1])) {
        problems.push(`${where}: ${alone[1]} is no flag of any buildsync command`);
      }
    }
  });
}

// ---- what the code reads is documented ------------------------------------------------------------

const readme = read('README.md');
const configuration = /^## Configuration\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
if (!configuration) problems.push('README.md has no "## Configuration" section');
const envExample = existsSync(join(root, '.env.example')) ? read('.env.example') : '';
if (!envExample) problems.push('.env.example is missing');
for (const name of [...userVars].sort()) {
  if (!configuration.includes(`\`${name}\``)) problems.push(`README.md, Configuration: the code reads ${name}, which the table does not list`);
  if (!new RegExp(`^#? ?${name}=`, 'm').test(envExample)) problems.push(`.env.example: the code reads ${name}, which it does not list`);
}
const benchmarks = read('docs/benchmarks.md');
const testKnobs = /^## Test knobs\n([\s\S]*?)(^## |(?![\s\S]))/m.exec(benchmarks)?.[1] ?? '';
for (const name of [...knobs].sort()) {
  if (!testKnobs.includes(`\`${name}\``)) problems.push(`docs/benchmarks.md, Test knobs: the code reads ${name}, which the table does not list`);
}

if (problems.length) {
  console.error(problems.join('\n'));
  console.error(`\n${problems.length} claim(s) of the README and docs/ do not hold; fix the document (or the code).`);
  process.exit(1);
}
console.log(`claims: ${documents.length} documents; files, variables, commands, flags and scripts they name all exist; every variable the code reads is documented`);
