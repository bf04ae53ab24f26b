import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.ts';

const ROOT = resolve(import.meta.dirname, '..');

describe('the esbuild bundle the image runs', () => {
  it('builds and runs the CLI under plain node, finding package.json and the samples', async () => {
    const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(build.status, build.stderr).toBe(0);
    const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { version: string };
    const dist = (args: string[]) => runCli(args, process.env, { bin: resolve(ROOT, 'dist/buildsync.mjs'), timeoutMs: 30_000 });
    const version = await dist(['--version']);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(pkg.version);
    const help = await dist(['import', 'bills', '--help']);
    expect(help.stdout).toMatch(/--vendors/);
  });
});
