/**
 * Response compression by Accept-Encoding (docs/service.md, Authentication: callers offer gzip, deflate and br).
 * Fast settings: the point is realistic wire sizes and decoding paths, not the best ratio.
 */
import zlib from 'node:zlib';
import type { Transform } from 'node:stream';

export type Encoding = 'br' | 'gzip' | 'deflate' | 'identity';

/** On equal q-values the sandbox prefers br, then gzip, then deflate. */
const PREFERENCE: readonly Encoding[] = ['br', 'gzip', 'deflate'];

export function negotiateEncoding(header: string | string[] | undefined): Encoding {
  const text = Array.isArray(header) ? header.join(',') : header ?? '';
  const q = new Map<string, number>();
  for (const part of text.split(',')) {
    const [token, ...params] = part.trim().toLowerCase().split(';');
    if (!token) continue;
    let weight = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p);
      if (m) weight = Number(m[1]);
    }
    q.set(token, weight);
  }
  let best: Encoding = 'identity';
  let bestQ = 0;
  for (const enc of PREFERENCE) {
    const weight = q.get(enc) ?? q.get('*') ?? 0;
    if (weight > bestQ) {
      best = enc;
      bestQ = weight;
    }
  }
  return best;
}

export function compressSync(encoding: Exclude<Encoding, 'identity'>, body: Buffer): Buffer {
  switch (encoding) {
    case 'br':
      return zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } });
    case 'gzip':
      return zlib.gzipSync(body, { level: 3 });
    case 'deflate':
      // HTTP "deflate" is the zlib format (RFC 9110 §8.4.1.2), which is what createDeflate writes.
      return zlib.deflateSync(body, { level: 3 });
  }
}

export function compressStream(encoding: Exclude<Encoding, 'identity'>): Transform {
  switch (encoding) {
    case 'br':
      return zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } });
    case 'gzip':
      return zlib.createGzip({ level: 1 });
    case 'deflate':
      return zlib.createDeflate({ level: 1 });
  }
}
