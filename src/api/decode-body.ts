/**
 * Undoes the response's Content-Encoding (docs/service.md, Authentication: gzip, deflate and br may be used) with node:zlib
 * streams, so a compressed listing is inflated chunk by chunk and never held whole.
 */
import { Readable, pipeline } from 'node:stream';
import zlib from 'node:zlib';
import { ResponseInvalidError } from '../errors/index.ts';

type Source = Readable | AsyncIterable<Buffer>;

async function* pull(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  yield* source;
}

function pipe(source: Source, through: zlib.Zlib & NodeJS.ReadWriteStream): Readable {
  // Feed zlib from the body's async iterator rather than piping undici's body stream into it:
  // piped, the body kept flowing while the reader was slow, and inflated data piled up (a 463 MB
  // gzip listing peaked at 500 MB RSS; pulled through the iterator, 112 MB).
  const from = Readable.from(pull(source as AsyncIterable<Buffer>));
  // pipeline destroys both sides on failure; the error surfaces when `through` is read.
  pipeline(from, through, () => {});
  return through as unknown as Readable;
}

/**
 * "deflate" is meant to be zlib-wrapped (RFC 9110 §8.4.1.2) but some servers send raw deflate;
 * like browsers, look at the first byte: a zlib header has compression method 8 in its low nibble.
 */
async function* inflateEither(source: Source): AsyncGenerator<Buffer> {
  const it = (source as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return;
  const raw = (first.value[0]! & 0x0f) !== 0x08;
  async function* rest(): AsyncGenerator<Buffer> {
    yield first.value;
    for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
  }
  yield* pipe(Readable.from(rest()), raw ? zlib.createInflateRaw() : zlib.createInflate()) as AsyncIterable<Buffer>;
}

/** The decoded body. Encodings listed in a header apply in order, so they are undone in reverse. */
export function decodeBody(source: Readable, contentEncoding: string | string[] | undefined): AsyncIterable<Buffer> {
  const header = Array.isArray(contentEncoding) ? contentEncoding.join(',') : (contentEncoding ?? '');
  const codings = header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  let out: Source = source;
  for (const coding of codings.reverse()) {
    if (coding === 'gzip' || coding === 'x-gzip') out = pipe(out, zlib.createGunzip());
    else if (coding === 'br') out = pipe(out, zlib.createBrotliDecompress());
    else if (coding === 'deflate') out = inflateEither(out);
    else throw new ResponseInvalidError(`the service answered with an unsupported Content-Encoding '${coding}'`);
  }
  return out;
}
