// The npm registry reachable from this workplace does not serve msgpackr-extract's prebuilt
// binaries for other platforms (darwin, win32, linux-arm answer 404), so `npm install` leaves
// them out of package-lock.json and `npm ci` then refuses the lock as out of sync. Those packages
// are optional and skipped on this platform anyway: this adds their lock entries (version, os,
// cpu, optional) as a registry that serves them would. Run after any `npm install`:
//   node .ci/fix-lockfile.cjs
const fs = require('node:fs');
const path = require('node:path');

const file = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const parent = lock.packages['node_modules/msgpackr-extract'];
if (!parent) process.exit(0);
let added = 0;
for (const [name, version] of Object.entries(parent.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  if (lock.packages[key]) continue;
  const [os, cpu] = name.replace('@msgpackr-extract/msgpackr-extract-', '').split('-');
  lock.packages[key] = { version, cpu: [cpu], license: 'MIT', optional: true, os: [os] };
  added++;
}
const sorted = {};
for (const k of Object.keys(lock.packages).sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b)))) sorted[k] = lock.packages[k];
lock.packages = sorted;
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`fix-lockfile: added ${added} lock entries`);
