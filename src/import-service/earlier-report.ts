import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { parse } from 'csv-parse/sync';
import { LedgerUnsafeError } from '../errors/index.ts';
import type { Ledger } from '../ledger/index.ts';
import type { MappedRecord } from '../mapping/index.ts';

const DAY_MS = 86_400_000;
/** Records a message names; the rest are counted. */
const NAMED = 10;

interface EarlierLine {
  line: number;
  record: string;
  status: 'created' | 'unknown';
  id?: number;
}

/** A record of this run that an earlier report names `created` (with its ID) or `unknown`. */
interface Matched extends EarlierLine {
  key: string;
  contentHash: string;
}

/**
 * The report an earlier run of the same file wrote (beside the file, or at the `--report PATH`
 * given), checked against the ledger before anything is sent (docs/operators.md, "Durability"):
 * the ledger is what keeps a re-run from creating a record twice, and the report is the other
 * place that knows what was created. A record the report says was created (`created`, or
 * `skipped` with an ID) that the ledger does not know means the ledger was lost (Redis restarted
 * empty, was flushed, or is another Redis): the import stops (exit 2) naming them, until the ledger
 * is restored (`ledger import`) or the user says the report is right (`--ledger-lost accept`),
 * which writes them into the ledger as created with the report's IDs, so that they are skipped,
 * never sent. A record the report says is `unknown` that the ledger does not know is written into
 * it as `unknown` (nothing is sent by that; a bill stays unsent until `--resend-unknown`), so that
 * the re-run reports it `unknown` again and exits 1. A report older than the ledger's retention
 * (`BUILDSYNC_LEDGER_RETENTION_DAYS`) is not asked about: the ledger forgot its records by design.
 */
export class EarlierReport {
  readonly #byLine: Map<number, EarlierLine>;
  readonly #matched = new Map<string, Matched>();

  private constructor(
    readonly path: string,
    readonly writtenAt: Date,
    lines: EarlierLine[],
  ) {
    this.#byLine = new Map(lines.map((l) => [l.line, l]));
  }

  /** The earlier report at `path`, when there is one within the ledger's retention that names a created or unknown record. */
  static read(path: string, retentionDays: number, now = Date.now()): EarlierReport | undefined {
    let mtime: Date;
    try {
      mtime = statSync(path).mtime;
    } catch {
      return undefined;
    }
    if (now - mtime.getTime() > retentionDays * DAY_MS) return undefined;
    let rows: Array<Record<string, string>>;
    try {
      rows = parse(readFileSync(path), { columns: true, skip_empty_lines: true, bom: true, relax_column_count: true }) as Array<Record<string, string>>;
    } catch {
      // Not a report this tool can read (the user's own file of that name): nothing to ask about.
      return undefined;
    }
    const lines: EarlierLine[] = [];
    for (const r of rows) {
      const line = Number(r.line);
      const id = r.id === undefined || r.id === '' ? undefined : Number(r.id);
      if (!Number.isInteger(line) || typeof r.record !== 'string') continue;
      if ((r.status === 'created' || r.status === 'skipped') && id !== undefined && Number.isInteger(id)) lines.push({ line, record: r.record, status: 'created', id });
      else if (r.status === 'unknown') lines.push({ line, record: r.record, status: 'unknown' });
    }
    return lines.length === 0 ? undefined : new EarlierReport(path, mtime, lines);
  }

  /** Sees the planned records as they are mapped: those the earlier report names (same line, same record) are kept. */
  watch(records: readonly MappedRecord[]): void {
    for (const r of records) {
      for (const line of r.lines) {
        const e = this.#byLine.get(line);
        if (e === undefined || e.record !== r.label) continue;
        const seen = this.#matched.get(r.key);
        // A created line wins over an unknown one of the same record.
        if (seen === undefined || (seen.status === 'unknown' && e.status === 'created')) this.#matched.set(r.key, { ...e, key: r.key, contentHash: r.contentHash });
      }
    }
  }

  /**
   * Before the import is committed: stops (LedgerUnsafeError, exit 2) when created records of the
   * report are unknown to the ledger and `accept` is not given; otherwise writes them (and the
   * report's unknown ones) into the ledger. Returns what was written.
   */
  async settle(ledger: Ledger, account: string, o: { accept: boolean; importId: string }): Promise<{ created: number; unknown: number }> {
    const matched = [...this.#matched.values()];
    if (matched.length === 0) return { created: 0, unknown: 0 };
    const entries = await ledger.getMany(account, matched.map((m) => m.key));
    const missing = matched.filter((_, i) => entries[i] === undefined);
    const created = missing.filter((m) => m.status === 'created');
    const unknown = missing.filter((m) => m.status === 'unknown');
    if (created.length > 0 && !o.accept) {
      const named = created.slice(0, NAMED).map((m) => `line ${m.line} ${m.record} (ID ${m.id})`);
      const more = created.length > NAMED ? `; and ${created.length - NAMED} more` : '';
      throw new LedgerUnsafeError(
        `${basename(this.path)} (written ${this.writtenAt.toISOString().slice(0, 16).replace('T', ' ')} UTC) lists ${created.length === 1 ? '1 record' : `${created.length} records`} as created that the ledger of account ${account} does not know: ${named.join('; ')}${more}. ` +
          `Redis lost the ledger (it restarted empty or was flushed) or this is another Redis, so sending ${created.length === 1 ? 'it' : 'them'} again would create ${created.length === 1 ? 'it' : 'them'} twice. Nothing was sent. ` +
          `Restore the ledger from its backup (buildsync ledger import FILE), or, if the report is right, run the import again with --ledger-lost accept: ${created.length === 1 ? 'it is' : 'they are'} written into the ledger as created with the report's IDs and never sent again`,
      );
    }
    const from = `${o.importId} (from ${basename(this.path)})`;
    await ledger.adopt(account, [
      ...created.map((m) => ({ recordKey: m.key, entry: { state: 'created' as const, id: m.id, contentHash: m.contentHash, importId: from } })),
      ...unknown.map((m) => ({
        recordKey: m.key,
        entry: { state: 'unknown' as const, contentHash: m.contentHash, importId: from, reason: `an earlier run's report (${basename(this.path)}) says it may have reached the service, and the ledger had lost it` },
      })),
    ]);
    return { created: created.length, unknown: unknown.length };
  }
}
