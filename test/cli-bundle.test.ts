import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

describe('the esbuild bundle the image runs', () => {
  it('builds and runs the CLI under plain node, finding package.json and the samples', () => {
    const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(build.status, build.stderr).toBe(0);
    const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { version: string };
    const version = spawnSync(process.execPath, [resolve(ROOT, 'dist/buildsync.mjs'), '--version'], { encoding: 'utf8', timeout: 30_000 });
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(pkg.version);
    const help = spawnSync(process.execPath, [resolve(ROOT, 'dist/buildsync.mjs'), 'import', 'bills', '--help'], { encoding: 'utf8', timeout: 30_000 });
    expect(help.stdout).toMatch(/--vendors/);
  });
});
