/**
 * `export projects --out -` whose standard output stops taking bytes (README, Exit codes): into
 * /dev/full (ENOSPC) and into a pipe its reader closed (EPIPE), CSV and JSON Lines alike. The
 * command exits 2 saying how many bytes of how many went out, never "wrote N projects", and leaves
 * no temporary copy in the temp folder (TMPDIR, the test's own).
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, statSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BUNDLE, CLI_NODE_FLAGS } from './helpers/cli-path.ts';
import { exportRig, type ExportRig } from './helpers/export-rig.ts';
import { REDIS_URL } from './helpers/redis.ts';

let rig: ExportRig;
let tmp: string;
beforeAll(async () => {
  // Enough projects that either format is well over a pipe's 64 KiB buffer.
  rig = await exportRig({ projects: 400 });
  tmp = path.join(rig.dir, 'tmp');
  await mkdir(tmp);
});
afterAll(async () => {
  await rig?.close();
});

const env = () => ({ ...process.env, ...rig.env, REDIS_URL, BUILDSYNC_PREFIX: rig.prefix, LOG_LEVEL: 'warn', TMPDIR: tmp });

/** The whole export of `format` written to a file, for its size. */
async function fullSize(format: 'csv' | 'jsonl'): Promise<number> {
  const out = path.join(rig.dir, `full.${format}`);
  const code = await new Promise<number | null>((resolve) => {
    const c = spawn(process.execPath, [...CLI_NODE_FLAGS, CLI_BUNDLE, 'export', 'projects', '--no-queue', '--format', format, '--out', out], { cwd: rig.dir, env: env(), stdio: 'ignore' });
    c.on('close', resolve);
  });
  expect(code).toBe(0);
  return statSync(out).size;
}

const SAID = /standard output took ([\d,]+) of the ([\d,]+) bytes of the export \((\d+) projects\), then (.*?): what was written is incomplete/;
const num = (s: string) => Number(s.replaceAll(',', ''));

describe('export projects --out - that cannot be written whole', () => {
  it.each(['csv', 'jsonl'] as const)('%s into /dev/full: exit 2, 0 bytes of the whole said, no temporary file', async (format) => {
    const total = await fullSize(format);
    const full = openSync('/dev/full', 'w');
    let stderr = '';
    const code = await new Promise<number | null>((resolve) => {
      const c = spawn(process.execPath, [...CLI_NODE_FLAGS, CLI_BUNDLE, 'export', 'projects', '--format', format, '--out', '-'], { cwd: rig.dir, env: env(), stdio: ['ignore', full, 'pipe'] });
      c.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
      c.on('close', resolve);
    });
    closeSync(full);
    expect(code, stderr).toBe(2);
    const m = SAID.exec(stderr);
    expect(m, stderr).not.toBeNull();
    expect(num(m![1]!)).toBe(0);
    expect(num(m![2]!)).toBe(total);
    expect(m![4]).toBe('the disk is full (ENOSPC)');
    expect(stderr).toContain('[BUILDSYNC_OUTPUT_INCOMPLETE]');
    expect(stderr).not.toMatch(/wrote \d+ projects|\n\s+at /);
    expect(await readdir(tmp)).toEqual([]);
  });

  it.each(['csv', 'jsonl'] as const)('%s into a pipe its reader closed: exit 2, the bytes that went out said, no temporary file', async (format) => {
    const total = await fullSize(format);
    let received = 0;
    let stderr = '';
    const code = await new Promise<number | null>((resolve) => {
      const c = spawn(process.execPath, [...CLI_NODE_FLAGS, CLI_BUNDLE, 'export', 'projects', '--format', format, '--out', '-'], { cwd: rig.dir, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
      c.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
      // The reader takes the first chunk and closes its end, as `| head -c 100` does.
      c.stdout!.once('data', (b: Buffer) => {
        received = b.length;
        c.stdout!.destroy();
      });
      c.on('close', resolve);
    });
    expect(code, stderr).toBe(2);
    const m = SAID.exec(stderr);
    expect(m, stderr).not.toBeNull();
    const written = num(m![1]!);
    expect(num(m![2]!)).toBe(total);
    expect(written).toBeGreaterThanOrEqual(received);
    expect(written).toBeLessThan(total);
    expect(m![4]).toBe('its reader closed the pipe (EPIPE)');
    expect(stderr).not.toMatch(/wrote \d+ projects|\n\s+at /);
    expect(await readdir(tmp)).toEqual([]);
  });
});
