/** Reading requests and writing JSON answers, compressed as the caller allows. */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { compressStream, compressSync, negotiateEncoding } from './compression.ts';

/** Bodies above this are refused with 413 (DECISIONS.md). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export class BodyTooLargeError extends Error {
  constructor() {
    super(`request body larger than ${MAX_BODY_BYTES} bytes`);
  }
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) tooLarge = true; // keep draining so the answer can still be read
    else chunks.push(chunk);
  }
  if (tooLarge) throw new BodyTooLargeError();
  return Buffer.concat(chunks);
}

const JSON_TYPE = 'application/json; charset=utf-8';

export function sendJson(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: OutgoingHttpHeaders = {},
): void {
  let payload: Buffer = Buffer.from(JSON.stringify(body), 'utf8');
  const encoding = negotiateEncoding(req.headers['accept-encoding']);
  const out: OutgoingHttpHeaders = { ...headers, 'Content-Type': JSON_TYPE, Vary: 'Accept-Encoding' };
  if (encoding !== 'identity') {
    payload = compressSync(encoding, payload);
    out['Content-Encoding'] = encoding;
  }
  out['Content-Length'] = payload.length;
  res.writeHead(status, out);
  res.end(payload);
}

/** `{ "Message": text }`, the ASP.NET Web API error body shape (docs/service.md, Errors). */
export function sendMessage(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  message: string,
  headers?: OutgoingHttpHeaders,
): void {
  sendJson(req, res, status, { Message: message }, headers);
}

/**
 * Streams a JSON array of pre-serialized elements with backpressure: chunks of about 64 KB are
 * produced only as fast as the socket (or the compressor) takes them, so memory stays flat
 * whatever the size of the listing.
 */
export function streamJsonArray(
  req: IncomingMessage,
  res: ServerResponse,
  count: number,
  elementJson: (i: number) => string,
  /** A fault for tests: destroy the connection once this many elements were sent. */
  cutAfter?: number,
): Promise<void> {
  return streamJson(req, res, jsonArrayChunks(count, elementJson, cutAfter));
}

/**
 * Streams a 200 JSON answer made of `chunks` (a generator: produced only as fast as the socket,
 * or the compressor, takes them). A generator that throws cuts the body short.
 */
export async function streamJson(req: IncomingMessage, res: ServerResponse, chunks: Iterable<string | Buffer>): Promise<void> {
  const encoding = negotiateEncoding(req.headers['accept-encoding']);
  const headers: OutgoingHttpHeaders = { 'Content-Type': JSON_TYPE, Vary: 'Accept-Encoding' };
  if (encoding !== 'identity') headers['Content-Encoding'] = encoding;
  res.writeHead(200, headers);
  const source = Readable.from(chunks, { objectMode: false, highWaterMark: 64 * 1024 });
  try {
    if (encoding === 'identity') await pipeline(source, res);
    else await pipeline(source, compressStream(encoding), res);
  } catch {
    // The caller went away mid-listing; pipeline has already destroyed every stream.
  }
}

function* jsonArrayChunks(count: number, elementJson: (i: number) => string, cutAfter?: number): Generator<string> {
  let chunk = '[';
  for (let i = 0; i < count; i++) {
    if (i === cutAfter) {
      yield chunk;
      // The pipeline fails and destroys the response: the caller sees the body end mid-array.
      throw new Error('listing cut (sandbox fault cutListingsAfter)');
    }
    chunk += i === 0 ? elementJson(i) : ',' + elementJson(i);
    if (chunk.length >= 64 * 1024) {
      yield chunk;
      chunk = '';
    }
  }
  yield chunk + ']';
}
