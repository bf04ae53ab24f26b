import { createHash } from 'node:crypto';

/**
 * A short, stable hash of a payload (PlannedRecord.contentHash): sha256 of its JSON, 16 hex
 * digits. The importers build every payload with its keys in one fixed order (the seed's field
 * order), so the JSON is canonical: the same content gives the same hash whatever the order of
 * the file's columns or rows. Plain JSON.stringify keeps V8's fast path (a replacer would not).
 */
export function contentHash(payload: unknown): string {
  return contentHashOfJson(JSON.stringify(payload));
}

/** `contentHash` of a payload whose JSON text is already at hand. */
export function contentHashOfJson(json: string): string {
  // Hex of the first 8 bytes: a flat 16-character string (slicing a longer hex string would keep it alive).
  return createHash('sha256').update(json).digest().toString('hex', 0, 8);
}
