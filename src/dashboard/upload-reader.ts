/**
 * The import page reads every upload in a thread of its own (README, The import page): each reading,
 * check and cell edit of an upload (upload-reading.ts) runs in a worker thread whose heap is
 * limited (`resourceLimits`), and each call is given a time limit. A file that would take more
 * memory or time than that, or that ends the thread some other way, is an error for that upload
 * (in the page's words, naming the limit), and the dashboard goes on serving every other request:
 * no upload can end it.
 *
 * One thread, kept between calls and started again after it ends: starting one costs loading the
 * reading code (seconds from the TypeScript sources), far more than most readings. A call that
 * passes its time limit ends the thread; calls running beside it in that thread fail with it, saying
 * to read the file again.
 */
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { BuildsyncError, type ErrorCode, type Wording } from '../errors/index.ts';
import { packageRoot } from '../package-root.ts';
import { PageError } from './http-errors.ts';
import { READING_MODULE, type CrossedError, type ReadingArgs, type ReadingName, type ReadingResult } from './upload-reading.ts';

export interface UploadReaderLimits {
  /** The thread's heap (V8's old generation), in MB. */
  heapMb: number;
  /** How long one reading may take, in ms. */
  timeoutMs: number;
}

/** What the dashboard answers a reading's calls back with (the account's last mapping and vendor list, the ledger's created records, Send's planned batches). */
export type CallBacks = Partial<Record<'lastMapping' | 'vendorList' | 'createdAmong' | 'planned', (...args: never[]) => Promise<unknown>>>;

/**
 * The code the thread runs: it imports the reading module, whose top level answers the calls the
 * dashboard posts. In the bundle (`npm run build`) that is the chunk holding it. Run from the
 * TypeScript sources (the tests, a checkout), the module and what it imports are bundled once per
 * process with esbuild (a dev dependency) beside the package's node_modules, so that the thread
 * loads one file rather than transpiling some hundred modules through tsx (seconds, each time the
 * thread starts); without esbuild, through tsx (bin/source-loader.mjs).
 */
function bootstrap(): string {
  if (!READING_MODULE.endsWith('.ts')) return `import(${JSON.stringify(READING_MODULE)});`;
  const require = createRequire(import.meta.url);
  try {
    const esbuild = require('esbuild') as typeof import('esbuild');
    const outfile = join(packageRoot(), 'node_modules', '.cache', 'buildsync-reader', `upload-reading-${process.pid}.mjs`);
    esbuild.buildSync({ entryPoints: [fileURLToPath(READING_MODULE)], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', loader: { '.lua': 'text' }, logLevel: 'silent' });
    process.once('exit', () => rmSync(outfile, { force: true }));
    return `import(${JSON.stringify(pathToFileURL(outfile).href)});`;
  } catch {
    // tsx, and the Redis scripts' .lua files as text (bin/source-loader.mjs).
    const loader = JSON.stringify(pathToFileURL(join(packageRoot(), 'bin', 'source-loader.mjs')).href);
    return `import(${loader}).then(() => import(${JSON.stringify(READING_MODULE)}));`;
  }
}

interface Running {
  name: string;
  resolve(value: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
  callBacks: CallBacks;
}

/**
 * The thread's young generation at most, in MB. A plan of a big file fills it between scavenges,
 * so all of it stays resident: at 64 MB the dashboard with its reader peaked near 300 MB on a
 * 300,000-row report (docs/benchmarks.md, page-import); at 16 the reading and Send's plan took
 * some 25-55 MB less and no longer (8 saved nothing more and was slower).
 */
const YOUNG_MB = 16;

/** Made once per process (in the sources, it bundles the reading code). */
let code: string | undefined;

export class UploadReader {
  readonly #code = (code ??= bootstrap());
  #thread: { worker: Worker; running: Map<number, Running> } | undefined;
  #next = 0;

  constructor(private readonly limits: UploadReaderLimits) {}

  /** Starts the thread now, so that the first reading does not wait for it to load. */
  warm(): void {
    this.#start();
  }

  /** Runs reading `call` on an upload (uploaded as `name`) in the reader thread; its answer, or its error. */
  run<N extends ReadingName>(name: string, call: N, args: ReadingArgs<N>, callBacks: CallBacks = {}): Promise<ReadingResult<N>> {
    const thread = this.#start();
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        thread.running.delete(id);
        reject(new PageError(400, `${name} could not be read: reading it took longer than ${seconds(this.limits.timeoutMs)}, the most one reading may take here. Export the sheet you import as CSV, or split the file.`));
        this.#end(thread, (other) => new PageError(503, `${other} could not be read: the reader was started again while it read it. Read the file again.`));
      }, this.limits.timeoutMs);
      thread.running.set(id, { name, resolve: resolve as (v: unknown) => void, reject, timer, callBacks });
      thread.worker.postMessage({ id, call, args });
    });
  }

  /** Ends the thread (the dashboard stops). */
  async close(): Promise<void> {
    const thread = this.#thread;
    if (thread !== undefined) this.#end(thread, (name) => new PageError(503, `${name} could not be read: the dashboard is stopping.`));
  }

  #start(): { worker: Worker; running: Map<number, Running> } {
    if (this.#thread !== undefined) return this.#thread;
    const { heapMb } = this.limits;
    const worker = new Worker(this.#code, {
      eval: true,
      workerData: { buildsyncUploadReading: true },
      resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: Math.min(YOUNG_MB, Math.max(4, Math.round(heapMb / 8))) },
    });
    // An idle reader never keeps the dashboard's process alive.
    worker.unref();
    const thread = { worker, running: new Map<number, Running>() };
    this.#thread = thread;
    worker.on('message', (m: { done?: number; value?: unknown; error?: CrossedError; callBack?: keyof CallBacks; id?: number; args?: unknown[]; of?: number }) => {
      if (m.callBack !== undefined) {
        const fn = thread.running.get(m.of!)?.callBacks[m.callBack] as ((...a: unknown[]) => Promise<unknown>) | undefined;
        (fn ? fn(...(m.args ?? [])) : Promise.resolve(undefined)).then(
          (value) => worker.postMessage({ reply: m.id, value }),
          (err: unknown) => worker.postMessage({ reply: m.id, error: (err as Error)?.message ?? String(err) }),
        );
        return;
      }
      if (m.done === undefined) return;
      const r = thread.running.get(m.done);
      if (r === undefined) return;
      thread.running.delete(m.done);
      clearTimeout(r.timer);
      if (m.error === undefined) r.resolve(m.value);
      else r.reject(rebuilt(m.error));
    });
    worker.on('error', (err: Error & { code?: string }) =>
      this.#end(thread, (name) =>
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new PageError(400, `${name} could not be read: reading it took more than the ${heapMb} MB of memory one reading may take here. Export the sheet you import as CSV, or split the file.`)
          : new PageError(500, `${name} could not be read: its reader stopped (${err.message}). Read the file again; if it happens again, export the sheet you import as CSV.`),
      ),
    );
    worker.on('exit', (code) => this.#end(thread, (name) => new PageError(500, `${name} could not be read: its reader stopped (exit ${code}). Read the file again; if it happens again, export the sheet you import as CSV.`)));
    return thread;
  }

  /** The thread is gone: each call it was running fails with `why`; the next call starts a new one. */
  #end(thread: { worker: Worker; running: Map<number, Running> }, why: (name: string) => Error): void {
    if (this.#thread === thread) this.#thread = undefined;
    for (const r of thread.running.values()) {
      clearTimeout(r.timer);
      r.reject(why(r.name));
    }
    thread.running.clear();
    void thread.worker.terminate();
  }
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

/** The thread's error as the dashboard's: a PageError keeps its status, an error its stable code and page wording. */
function rebuilt(e: CrossedError): Error {
  if (e.status !== undefined) return new PageError(e.status, e.message);
  if (e.code !== undefined) {
    const err = new BuildsyncError(e.code as ErrorCode, (Array.isArray(e.wording) ? e.wording : e.message) as Wording | string);
    return err;
  }
  return new Error(e.message);
}
