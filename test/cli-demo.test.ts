import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REDIS_URL } from './helpers/redis.ts';
import { runCli } from './helpers/cli.ts';

describe('buildsync demo', () => {
  it('exports the sandbox projects, imports both samples through the queue and prints where the outputs are', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'buildsync-demo-'));
    try {
      const env = { PATH: process.env.PATH, HOME: process.env.HOME, REDIS_URL };
      const r = await runCli(['demo'], env, { cwd: dir, timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/demo done in [\d.]+ s: the sandbox stored 4 estimates and 4 bills/);
      const out = join(dir, 'buildsync-demo');
      const csv = readFileSync(join(out, 'projects.csv'), 'utf8');
      expect(csv.startsWith('ID,NAME,CREATED_BY')).toBe(true);
      for (const report of ['estimates.report.csv', 'bills.report.csv']) {
        const lines = readFileSync(join(out, report), 'utf8').trim().split(/\r?\n/);
        expect(lines[0]).toBe('line,record,status,id,message');
        expect(lines.slice(1).every((l) => l.split(',').includes('created'))).toBe(true);
      }
      // The export file was renamed into place: no temporary file is left beside it.
      expect(readdirSync(out).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
