/**
 * The import page's last mapping (README, The import page): when an import is sent from the page,
 * the mapping of its check (the CLI's mapping file: headers, columns and reading options; never a
 * secret) is kept in Redis for its account, its kind and its header row, and preselected the next
 * time a file with the same header row is read there. The header row is named by the SHA-1 of its
 * headers as the CLI compares them (case, spaces, `_`, `-` and `.` ignored; blank headers and the
 * errors file's own columns left out).
 */
import { createHash } from 'node:crypto';
import { errorsFileColumnOf, normalizeHeader, parseMappingFile } from '../mapping/index.ts';
import { lastMappingKeyOf, type RedisConnection as Redis } from '../redis/layout.ts';
import type { SavedPageMapping } from './page-reading.ts';
import type { ImportKind } from './run-import.ts';

/** How long a last mapping is kept after it was last used: a year and a month, for a yearly export. */
const KEEP_SECONDS = 400 * 24 * 3600;

const LAYOUTS = new Set(['detect', 'plain', 'quickbooks', 'xero', 'sections']);

/** The header row's name: SHA-1 of its headers as compared, one a line. */
export function headerHash(headers: readonly string[]): string {
  // An edited upload's copy carries the errors file's own columns: they name no column of the export.
  const named = headers.filter((h) => errorsFileColumnOf(h) === undefined).map(normalizeHeader).filter((h) => h !== '');
  return createHash('sha1').update(named.join('\n')).digest('hex');
}

export class LastMappings {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  key(account: string, kind: ImportKind, headers: readonly string[]): string {
    return lastMappingKeyOf(this.redis, this.prefix, account, kind, headerHash(headers));
  }

  /** Keeps `saved` as the last mapping of (`account`, `kind`, `headers`). */
  async save(account: string, kind: ImportKind, headers: readonly string[], saved: SavedPageMapping): Promise<void> {
    await this.redis.set(this.key(account, kind, headers), JSON.stringify(saved), 'EX', KEEP_SECONDS);
  }

  /** The last mapping of (`account`, `kind`, `headers`), or undefined (none, or one this version cannot read). */
  async load(account: string, kind: ImportKind, headers: readonly string[]): Promise<SavedPageMapping | undefined> {
    const text = await this.redis.get(this.key(account, kind, headers));
    if (text === null) return undefined;
    try {
      const raw = JSON.parse(text) as { mapping?: unknown; layout?: unknown; sentAt?: unknown };
      if (typeof raw.layout !== 'string' || !LAYOUTS.has(raw.layout) || typeof raw.sentAt !== 'string') return undefined;
      return { mapping: parseMappingFile(raw.mapping, 'the last mapping'), layout: raw.layout as SavedPageMapping['layout'], sentAt: raw.sentAt };
    } catch {
      return undefined;
    }
  }
}
