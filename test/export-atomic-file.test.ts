import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomically } from '../src/atomic-file.ts';
import { exportProjects } from '../src/export/index.ts';
import { FileError, InterruptedError } from '../src/errors/index.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'export-atomic-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function project(i: number): Record<string, unknown> {
  return { ID: 1000 + i, NAME: `Project ${i}`, CITY: 'Springfield', SCOPE_OF_WORK: '%3Cp%3Ework%3C%2Fp%3E' };
}

/** A source that yields `before` records, then waits at a gate the test opens (or never). */
function gatedSource(before: number, after: number) {
  let open!: () => void;
  let reached!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const atGate = new Promise<void>((r) => (reached = r));
  async function* source() {
    for (let i = 0; i < before; i++) yield project(i);
    reached();
    await gate;
    for (let i = before; i < before + after; i++) yield project(i);
  }
  return { source: source(), atGate, open };
}

describe('the export file appears only when complete', () => {
  it('shows only a hidden temp file while the export runs, then the final file', async () => {
    const out = path.join(dir, 'projects-2026-11-21.csv');
    const { source, atGate, open } = gatedSource(3000, 10);
    const running = exportProjects(source, { out, format: 'csv', myDocuments: 'exclude' });
    await atGate;
    const during = await readdir(dir);
    expect(during).not.toContain('projects-2026-11-21.csv');
    expect(during).toHaveLength(1);
    expect(during[0]).toMatch(new RegExp(`^\\.projects-2026-11-21\\.csv\\.${process.pid}\\.[0-9a-f]+\\.tmp$`));
    open();
    const result = await running;
    expect(await readdir(dir)).toEqual(['projects-2026-11-21.csv']);
    expect(result.projects).toBe(3010);
    expect((await readFile(out, 'utf8')).split('\r\n')).toHaveLength(3010 + 2); // header + rows + final ''
  });

  it('leaves nothing when the source throws', async () => {
    const out = path.join(dir, 'p.csv');
    async function* source() {
      for (let i = 0; i < 5000; i++) yield project(i);
      throw new Error('connection reset by peer');
    }
    await expect(exportProjects(source(), { out, format: 'csv', myDocuments: 'exclude' })).rejects.toThrow(
      'connection reset by peer',
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it('leaves nothing when aborted while the source is waiting', async () => {
    const out = path.join(dir, 'p.jsonl');
    const controller = new AbortController();
    const { source, atGate } = gatedSource(2000, 0); // the gate never opens
    const running = exportProjects(source, { out, format: 'jsonl', myDocuments: 'exclude', signal: controller.signal });
    await atGate;
    controller.abort();
    const err = await running.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InterruptedError);
    expect(err).toMatchObject({ code: 'BUILDSYNC_INTERRUPTED', message: `export interrupted; ${out} was not written` });
    expect(await readdir(dir)).toEqual([]);
  });

  it('does not start when the signal is already aborted', async () => {
    const out = path.join(dir, 'p.csv');
    await expect(
      exportProjects(gatedSource(1, 0).source, {
        out,
        format: 'csv',
        myDocuments: 'exclude',
        signal: AbortSignal.abort(),
      }),
    ).rejects.toMatchObject({ code: 'BUILDSYNC_INTERRUPTED' });
    expect(await readdir(dir)).toEqual([]);
  });

  it('replaces an earlier file only on success', async () => {
    const out = path.join(dir, 'p.csv');
    await writeFile(out, 'yesterday\n');
    const controller = new AbortController();
    const { source, atGate } = gatedSource(100, 0);
    const running = exportProjects(source, { out, format: 'csv', myDocuments: 'exclude', signal: controller.signal });
    await atGate;
    expect(await readFile(out, 'utf8')).toBe('yesterday\n');
    controller.abort();
    await expect(running).rejects.toBeInstanceOf(InterruptedError);
    expect(await readdir(dir)).toEqual(['p.csv']);
    expect(await readFile(out, 'utf8')).toBe('yesterday\n');

    async function* today() {
      yield project(1);
    }
    await exportProjects(today(), { out, format: 'csv', myDocuments: 'exclude' });
    expect(await readFile(out, 'utf8')).toMatch(/^ID,NAME,.*\r\n1001,Project 1,/s);
  });

  it('creates a missing output directory', async () => {
    const out = path.join(dir, 'exports', 'nightly', 'p.csv');
    async function* one() {
      yield project(1);
    }
    await exportProjects(one(), { out, format: 'csv', myDocuments: 'exclude' });
    expect(await readdir(path.dirname(out))).toEqual(['p.csv']);
  });

  it('fails with a FileError and cleans up when the final path cannot be replaced', async () => {
    const out = path.join(dir, 'taken');
    await mkdir(out); // a directory: the rename over it fails
    async function* one() {
      yield project(1);
    }
    const err = await exportProjects(one(), { out, format: 'csv', myDocuments: 'exclude' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileError);
    expect(err).toMatchObject({ code: 'BUILDSYNC_FILE_UNREADABLE', file: out });
    expect((err as Error).message).toContain(`cannot finish ${out}`);
    expect(await readdir(dir)).toEqual(['taken']);
  });

  it('fails with a FileError when the directory cannot be created', async () => {
    await writeFile(path.join(dir, 'plain-file'), '');
    const out = path.join(dir, 'plain-file', 'p.csv');
    const err = await writeFileAtomically(out).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileError);
    expect((err as Error).message).toContain(`cannot create ${out}`);
  });
});

describe('writeFileAtomically', () => {
  it('takes piped data through writable() and publishes it on commit', async () => {
    const out = path.join(dir, 'report.csv');
    const file = await writeFileAtomically(out);
    await pipeline(Readable.from(['line,record\n', Buffer.from('1,a\n')]), file.writable());
    expect(await readdir(dir)).toEqual([path.basename(file.tempPath)]);
    await file.commit();
    expect(await readFile(out, 'utf8')).toBe('line,record\n1,a\n');
    expect(file.bytesWritten).toBe(16);
    await file.abort(); // after commit: does nothing
    expect(await readdir(dir)).toEqual(['report.csv']);
  });

  it('abort removes the temp file and refuses further writes', async () => {
    const file = await writeFileAtomically(path.join(dir, 'x.csv'));
    await file.write('partial');
    await file.abort();
    await file.abort();
    expect(await readdir(dir)).toEqual([]);
    await expect(file.write('more')).rejects.toThrow('write after aborted');
  });
});
