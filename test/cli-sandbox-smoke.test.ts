/**
 * The binary as a user runs it: `buildsync sandbox` in a child process answering over HTTP, help,
 * a bad flag and missing credentials with the exit codes of README, Commands.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli, type CliProcess } from './helpers/cli.ts';

const BIN = resolve(import.meta.dirname, '../bin/buildsync.mjs');
const README_CREDENTIALS = { email: 'demo@buildsync.test', password: 'sandbox-password', apiKey: 'sandbox-api-key' };

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'buildsync-cli-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** The environment without any BUILDSYNC_* variable, so that only what a test sets applies. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('BUILDSYNC_') && k !== 'LOG_LEVEL') env[k] = v;
  return { ...env, ...extra };
}

/** `bin/buildsync.mjs ARGS` in the temp folder (it may build dist/ first: the test's time, not 20 s). */
const run = (args: string[]) => runCli(args, cleanEnv(), { cwd: tmp, bin: BIN, timeoutMs: 30_000 });

function basic(c: { email: string; password: string; apiKey: string }): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${c.email}:${c.password}`).toString('base64')}`, apikey: c.apiKey, accept: 'application/json' };
}

describe('buildsync sandbox --port 0', () => {
  let sandbox: CliProcess;
  let url: string;

  beforeAll(async () => {
    sandbox = spawnCli(['sandbox', '--port', '0'], cleanEnv(), { cwd: tmp, bin: BIN });
    // The banner ends with the Ctrl-C hint: wait for all of it.
    url = (await sandbox.waitFor(/sandbox listening on (http:\/\/\S+)[\s\S]*press Ctrl-C to stop/))[1]!;
  });
  afterAll(() => {
    if (sandbox.child.exitCode === null) sandbox.child.kill('SIGKILL');
  });

  it('prints the real port and the README credentials', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toMatch(/:0$/);
    expect(sandbox.stdout()).toContain(`BUILDSYNC_EMAIL=${README_CREDENTIALS.email}`);
  });

  it('answers 200 with the README credentials', async () => {
    const res = await request(`${url}/api/Projects?skip=0&take=5`, { headers: basic(README_CREDENTIALS) });
    const body = (await res.body.json()) as { ID: number; NAME: string }[];
    expect(res.statusCode).toBe(200);
    expect(body).toHaveLength(5);
    expect(body[0]!.NAME).toBe('My Documents');
  });

  it('answers 401 with no credentials', async () => {
    const res = await request(`${url}/api/Projects?skip=0&take=5`, { headers: { accept: 'application/json' } });
    const body = (await res.body.json()) as { Message: string };
    expect(res.statusCode).toBe(401);
    expect(body.Message).toMatch(/^Authorization has been denied for this request/);
  });

  it('answers 400 to skip without take', async () => {
    const res = await request(`${url}/api/Projects?skip=0`, { headers: basic(README_CREDENTIALS) });
    const body = (await res.body.json()) as { Message: string };
    expect(res.statusCode).toBe(400);
    expect(body.Message).toMatch(/take/);
  });

  it('answers an unknown controller with the 404 body', async () => {
    const res = await request(`${url}/api/Nope`, { headers: basic(README_CREDENTIALS) });
    const body = (await res.body.json()) as { Message: string; MessageDetail: string };
    expect(res.statusCode).toBe(404);
    expect(body.Message).toMatch(/No HTTP resource was found that matches the request URI/);
    expect(body.MessageDetail).toBe("No type was found that matches the controller named 'Nope'.");
  });

  it('stops on SIGTERM with exit code 0', async () => {
    sandbox.child.kill('SIGTERM');
    expect((await sandbox.result).code).toBe(0);
  });
});

describe('buildsync usage', () => {
  it('--help exits 0 and lists the commands', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: buildsync/);
    for (const cmd of ['export', 'worker', 'sandbox']) expect(r.stdout).toContain(cmd);
  });

  it('export projects --format xml exits 2 naming --format', async () => {
    const r = await run(['export', 'projects', '--format', 'xml', '--no-queue']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--format/);
    expect(r.stderr).toMatch(/xml/);
  });

  it('an export with no credentials exits 2 naming every missing variable', async () => {
    const r = await run(['export', 'projects', '--no-queue']);
    expect(r.code).toBe(2);
    for (const v of ['BUILDSYNC_BASE_URL', 'BUILDSYNC_EMAIL', 'BUILDSYNC_PASSWORD', 'BUILDSYNC_API_KEY']) expect(r.stderr).toContain(v);
  });
});
