#!/usr/bin/env node
// The repository explains itself: every relative link in the README, ARCHITECTURE.md and docs/
// resolves to a file or a heading of the repository, and no code, test, bench or document cites
// a file outside it (the contract and the seed are this project's inputs, not its documents).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
const problems = [];

// 1. No reference to files outside the repository.
const OUTSIDE = /CONTRACT|\.\.\/shared|shared\/seed/;
for (const f of tracked) {
  if (!/^(src|jobs|test|bench|docs)\//.test(f) && f !== 'README.md' && f !== 'ARCHITECTURE.md') continue;
  if (!/\.(ts|mjs|js|md|json|csv)$/.test(f)) continue;
  const lines = readFileSync(join(root, f), 'utf8').split('\n');
  lines.forEach((l, i) => {
    if (OUTSIDE.test(l)) problems.push(`${f}:${i + 1}: names a file outside the repository: ${l.trim().slice(0, 120)}`);
  });
}

// 2. Every relative link of the documents resolves.
const slug = (h) => h.trim().toLowerCase().replace(/<[^>]+>/g, '').replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
const anchorsOf = new Map();
function anchors(file) {
  if (!anchorsOf.has(file)) {
    const seen = new Map();
    const out = new Set();
    let fence = false;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (/^\s*```/.test(line)) fence = !fence;
      const m = !fence && /^#{1,6}\s+(.*)$/.exec(line);
      if (!m) continue;
      const base = slug(m[1].replace(/`/g, ''));
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.add(n === 0 ? base : `${base}-${n}`);
    }
    anchorsOf.set(file, out);
  }
  return anchorsOf.get(file);
}
const docs = tracked.filter((f) => f.endsWith('.md') && (f === 'README.md' || f === 'ARCHITECTURE.md' || f.startsWith('docs/') || f === 'src/sandbox/DECISIONS.md'));
for (const f of docs) {
  const text = readFileSync(join(root, f), 'utf8').replace(/```[\s\S]*?```/g, '');
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1];
    if (/^[a-z]+:/i.test(target)) continue;
    const [path, hash] = target.split('#');
    const file = path === '' ? join(root, f) : resolve(join(root, dirname(f)), path);
    if (!existsSync(file)) {
      problems.push(`${f}: link to ${target}: no such file`);
      continue;
    }
    if (hash !== undefined && statSync(file).isFile() && file.endsWith('.md') && !anchors(file).has(hash)) {
      problems.push(`${f}: link to ${target}: no such heading`);
    }
  }
}

if (problems.length > 0) {
  for (const p of problems) console.error(p);
  console.error(`${problems.length} problem(s): the repository must explain itself (see ARCHITECTURE.md, docs/)`);
  process.exit(1);
}
console.log(`docs: ${docs.length} documents, every link resolves; nothing names a file outside the repository`);
