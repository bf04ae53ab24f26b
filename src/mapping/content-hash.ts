import crypto from 'node:crypto';

/** `crypto.hash` exists from node 20.12; package.json allows 20.11, which takes createHash. */
const sha256: (data: string | Uint8Array) => Buffer = typeof crypto.hash === 'function'
  ? (data) => crypto.hash('sha256', data, 'buffer')
  : (data) => crypto.createHash('sha256').update(data).digest();

/**
 * A short, stable hash of a payload (MappedRecord.contentHash): sha256 of its JSON, 16 hex
 * digits. The importers build every payload with its keys in one fixed order (the seed's field
 * order), so the JSON is canonical: the same content gives the same hash whatever the order of
 * the file's columns or rows. Plain JSON.stringify keeps V8's fast path (a replacer would not).
 */
export function contentHash(payload: unknown): string {
  return contentHashOfJson(JSON.stringify(payload));
}

/** `contentHash` of a payload whose JSON text is already at hand. */
export function contentHashOfJson(json: string): string {
  // One-shot `crypto.hash` (node >= 20.12): no Hash object per record, about half the cost of
  // createHash().update().digest() on a few-KB text. Hex of the first 8 bytes: a flat
  // 16-character string (slicing a longer hex string would keep it alive).
  return sha256(json).toString('hex', 0, 8);
}

/** `contentHashOfJson` of a JSON text already encoded as UTF-8 (the same hash for the same text). */
export function contentHashOfBytes(utf8: Uint8Array): string {
  return sha256(utf8).toString('hex', 0, 8);
}
