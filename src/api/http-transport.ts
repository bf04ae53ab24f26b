/**
 * Keep-alive connections to the service, the headers of docs/service.md, Authentication on every request, decoding of
 * compressed bodies, and non-2xx answers turned into the error classes of `src/errors/`.
 * No retries here: those live in `request-retry.ts`, one policy for every call.
 *
 * Two HTTP stacks, by method:
 * - GETs (the listings) go through node:http's keep-alive Agent. undici parses HTTP/1.1 with
 *   llhttp compiled to WebAssembly, and as soon as a large body streams through it V8 optimizes
 *   that WebAssembly with TurboFan, which took ~30-35 MB of native memory for a moment at the start
 *   of every listing (measured with process.memoryUsage() sampling and /proc/self/status: heap and
 *   `external` flat, RSS up and back; gone with --liftoff-only). That moment set the export's peak
 *   RSS (issue 17: the `--to postgres` re-run, whose compact state is in memory by then).
 *   node:http uses the llhttp built into Node, so the listing reaches 90 MB where undici reached
 *   125 MB (200,000 projects, bench/export.ts).
 * - POSTs (creates) keep the undici Pool, loaded on the first create: an export never loads it
 *   (~8 MB of RSS less at start), and the create path's failure classification
 *   (network-failure.ts, its UND_ERR_* codes) stays as it was.
 *
 * node:http and node:https themselves are loaded by the first GET (`httpStack`), not with this
 * module: a dry run, `check` and the other commands that make a transport but send nothing
 * never load them (15-20 ms of CPU at every start of the CLI).
 */
import type http from 'node:http';
import type { Readable } from 'node:stream';
import type { Pool } from 'undici';
import { InterruptedError, ResponseInvalidError } from '../errors/index.ts';
import { decodeBody } from './decode-body.ts';
import { errorForStatus } from './http-status.ts';
import { toNetworkError } from './network-failure.ts';

/** Loads undici (undici-pool.ts), as the first create does; a worker calls it at start (jobs/context.ts). */
export function loadPool(): Promise<typeof import('./undici-pool.ts')> {
  return import('./undici-pool.ts');
}

export type Route = 'projects-v2' | 'projects-paged' | 'estimates' | 'bills';

export interface ResponseInfo {
  method: string;
  route: Route;
  status: number;
  ms: number;
}

export interface TransportOptions {
  baseUrl: string;
  email: string;
  password: string;
  apiKey: string;
  connections: number;
  timeoutMs: number;
  acceptEncoding: string;
  onResponse?: (info: ResponseInfo) => void;
}

export interface RequestSpec {
  method: 'GET' | 'POST';
  route: Route;
  /** Path and query relative to the base URL, e.g. `/api/Projects?skip=0&take=100`. */
  path: string;
  json?: string;
  signal?: AbortSignal;
}

/** A 2xx answer whose decoded body is still to be read (read it or `discard()` it). */
export interface OkResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  chunks: AsyncIterable<Buffer>;
  discard(): void;
}

/** Error bodies are for messages and diagnostics; a larger one is cut here. */
const ERROR_BODY_LIMIT = 64 * 1024;

export class HttpTransport {
  /** The creates' pool, made on the first POST (see the top of this file). */
  private pool: Promise<Pool> | undefined;
  /** The listings' connections, with the module that makes them: both made by the first GET. */
  private stack: Promise<{ agent: http.Agent; request: typeof http.request }> | undefined;
  private readonly origin: URL;
  private readonly connections: number;
  /** GETs whose answer has not been read to its end or discarded yet; `close()` waits for them. */
  private inFlight = 0;
  private idle: (() => void) | undefined;
  private readonly basePath: string;
  /** A #private field: never enumerated, so logging the transport cannot print the credentials. */
  readonly #headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly onResponse: ((info: ResponseInfo) => void) | undefined;
  private closing: Promise<void> | undefined;

  constructor(opts: TransportOptions) {
    const url = new URL(opts.baseUrl);
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs;
    this.onResponse = opts.onResponse;
    this.origin = url;
    this.connections = opts.connections;
    this.#headers = {
      authorization: `Basic ${Buffer.from(`${opts.email}:${opts.password}`, 'utf8').toString('base64')}`,
      apikey: opts.apiKey,
      accept: 'application/json',
      'accept-encoding': opts.acceptEncoding,
    };
  }

  /**
   * Headers of a create. Its answer is one small record: compressing it costs both ends CPU on
   * every record of an import and saves nothing, so creates ask for identity (docs/service.md, Authentication: stating
   * Accept-Encoding is optional). Listings keep asking for compression.
   */
  #createHeaders(json: boolean): Record<string, string> {
    const h = { ...this.#headers, 'accept-encoding': 'identity' };
    return json ? { ...h, 'content-type': 'application/json; charset=utf-8' } : h;
  }

  /** Sends once. Resolves with a 2xx answer; rejects with an HttpError, NetworkError or InterruptedError. */
  async send(spec: RequestSpec): Promise<OkResponse> {
    const what = `${spec.method} ${this.basePath}${spec.path.split('?')[0]}`;
    const started = performance.now();
    let res: { statusCode: number; headers: Record<string, string | string[] | undefined>; body: Readable };
    let done: () => void = () => {};
    try {
      if (spec.method === 'GET') {
        ({ res, done } = await this.get(spec));
      } else {
        const answer = await (await this.createPool()).request({
          method: spec.method,
          path: this.basePath + spec.path,
          headers: this.#createHeaders(spec.json !== undefined),
          body: spec.json,
          signal: spec.signal,
        });
        res = { statusCode: answer.statusCode, headers: answer.headers, body: answer.body as unknown as Readable };
      }
    } catch (err) {
      if (spec.signal?.aborted && spec.method === 'GET') throw new InterruptedError(`${what} was interrupted`);
      // An aborted POST may already have been written: it stays a maybe-delivered network failure.
      throw toNetworkError(err, what);
    }
    this.onResponse?.({ method: spec.method, route: spec.route, status: res.statusCode, ms: performance.now() - started });

    const { body, headers } = res;
    if (res.statusCode >= 200 && res.statusCode < 300) {
      return {
        status: res.statusCode,
        headers,
        chunks: readChunks(body, headers['content-encoding'], what, spec, done),
        discard: () => {
          discardBody(body);
          done();
        },
      };
    }
    try {
      const errorBody = await readErrorBody(body, headers['content-encoding']);
      throw errorForStatus({ status: res.statusCode, method: spec.method, path: this.basePath + spec.path, body: errorBody, headers });
    } finally {
      done();
    }
  }

  /**
   * A GET over node:http. `timeoutMs` is the socket's idle timeout: it covers the wait for the
   * headers and every wait between two chunks of the body, as undici's headersTimeout and
   * bodyTimeout did. `done` is called once the body was read or discarded.
   */
  private async get(spec: RequestSpec): Promise<{ res: { statusCode: number; headers: Record<string, string | string[] | undefined>; body: Readable }; done: () => void }> {
    const url = new URL(this.basePath + spec.path, this.origin);
    // Counted before the wait for node:http, so that a `close()` meanwhile waits for this GET.
    this.inFlight++;
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      if (--this.inFlight === 0) this.idle?.();
    };
    const { agent, request } = await this.httpStack();
    return new Promise((resolve, reject) => {
      const req = request(url, { method: 'GET', headers: this.#headers, agent, signal: spec.signal, timeout: this.timeoutMs });
      req.on('timeout', () => {
        req.destroy(Object.assign(new Error(`no data from the service for ${this.timeoutMs} ms`), { code: 'ETIMEDOUT' }));
      });
      req.on('error', (err) => {
        done();
        reject(err);
      });
      req.on('response', (res) => {
        // The response stream reports a connection lost mid-body ('aborted', ECONNRESET) itself.
        res.on('end', done).on('close', done);
        resolve({ res: { statusCode: res.statusCode ?? 0, headers: res.headers, body: res }, done });
      });
      req.end();
    });
  }

  /** node:http or node:https (by the base URL's protocol) and the keep-alive Agent of the listings, loaded and made once. */
  private httpStack(): Promise<{ agent: http.Agent; request: typeof http.request }> {
    this.stack ??= (async () => {
      const agentOptions: http.AgentOptions = { keepAlive: true, maxSockets: this.connections };
      if (this.origin.protocol === 'https:') {
        const https = await import('node:https');
        return { agent: new https.Agent(agentOptions), request: https.request };
      }
      const http = await import('node:http');
      return { agent: new http.Agent(agentOptions), request: http.request };
    })();
    return this.stack;
  }

  private createPool(): Promise<Pool> {
    this.pool ??= loadPool().then(({ newPool }) =>
      newPool(this.origin.origin, { connections: this.connections, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs }),
    );
    return this.pool;
  }

  /** Reads a whole 2xx body as JSON (created records, pages of the paged listing). */
  async readJson(res: OkResponse, what: string): Promise<unknown> {
    const parts: Buffer[] = [];
    for await (const chunk of res.chunks) parts.push(chunk);
    const text = Buffer.concat(parts).toString('utf8');
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new ResponseInvalidError(`${what}: the service answered ${res.status} with a body that is not JSON: ${JSON.stringify(text.slice(0, 200))}`, { cause: err });
    }
  }

  /** Waits for requests in flight, then closes the sockets. Safe to call more than once. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const gets = this.inFlight === 0 ? undefined : new Promise<void>((resolve) => (this.idle = resolve));
      await Promise.all([gets, this.pool?.then((pool) => pool.close())]);
      (await this.stack)?.agent.destroy();
    })();
    return this.closing;
  }
}

/** The decoded body, with failures while reading it turned into the tool's errors. */
async function* readChunks(body: Readable, encoding: string | string[] | undefined, what: string, spec: RequestSpec, done: () => void): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of decodeBody(body, encoding)) yield chunk as Buffer;
  } catch (err) {
    if (spec.signal?.aborted && spec.method === 'GET') throw new InterruptedError(`${what} was interrupted`);
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR_BROTLI') || code.startsWith('ERR__'))) {
      throw new ResponseInvalidError(`${what}: the response body could not be decompressed (${code})`, { cause: err });
    }
    throw toNetworkError(err, what);
  } finally {
    discardBody(body);
    done();
  }
}

/**
 * Releases an unread or half-read body. undici's BodyReadable emits 'error' (AbortError) when
 * destroyed before its end; nobody is waiting for that error, so it is swallowed here.
 */
function discardBody(body: Readable): void {
  if (body.destroyed) return;
  body.on('error', () => {});
  body.destroy();
}

async function readErrorBody(body: Readable, encoding: string | string[] | undefined): Promise<unknown> {
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of decodeBody(body, encoding)) {
      parts.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= ERROR_BODY_LIMIT) break;
    }
  } catch {
    // The status already says what happened; an unreadable error body only loses detail.
  } finally {
    discardBody(body);
  }
  const text = Buffer.concat(parts).toString('utf8').slice(0, ERROR_BODY_LIMIT);
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
