import type { Command } from 'commander';
import { UsageError } from '../errors/index.ts';
import { boolOption, choiceOption, intOption } from './options.ts';

/** The listing and file options shared by `export projects` and `schedule export-projects`. */
export interface ExportOptionFlags {
  /** Unset: `xlsx` for an `--out` ending in `.xlsx`, else `csv`. */
  format?: string;
  includeClientSub: string;
  source: string;
  pageSize: string;
  myDocuments: string;
  /** `--to file|postgres` (docs/data-teams.md). */
  to?: string;
  /** `--changes`: also write the changes file. */
  changes?: boolean;
}

export function addExportOptions(cmd: Command): Command {
  return cmd
    .option('--format <format>', 'csv, jsonl or xlsx (default csv, or xlsx for an --out ending in .xlsx)')
    .option('--include-client-sub <yes|no>', 'include projects where the user is client or subcontractor (v2 source): true|false or yes|no', 'true')
    .option('--source <source>', 'v2 (one streamed listing) or paged (skip/take pages)', 'v2')
    .option('--page-size <n>', 'records per page with --source paged (at least 2: pages overlap)', '500')
    .option('--my-documents <mode>', 'exclude, official or all "My Documents" pseudo-projects', 'exclude')
    .option('--to <destination>', 'file, or postgres: upsert into buildsync_projects of BUILDSYNC_EXPORT_DATABASE_URL (read by the worker) instead of writing a file', 'file')
    .option('--changes', 'also write PROJECTS-changes.csv: the projects added, changed or removed since the last successful export of the same options');
}

/**
 * The flags checked, each bad value named with what to write instead. `out`: the `--out` given
 * (an `.xlsx` name chooses the format when `--format` is not given).
 */
export function parseExportOptions(flags: ExportOptionFlags, out?: string) {
  const xlsxName = out !== undefined && /\.xlsx$/i.test(out);
  const format = choiceOption('--format', flags.format ?? (xlsxName ? 'xlsx' : 'csv'), ['csv', 'jsonl', 'xlsx'] as const);
  if (xlsxName && format !== 'xlsx') {
    throw new UsageError(`--out ${out} names an .xlsx workbook but --format is ${format}; leave --format out (or write --format xlsx), or give the file a .${format} name`);
  }
  return {
    source: choiceOption('--source', flags.source, ['v2', 'paged'] as const),
    includeClientSub: boolOption('--include-client-sub', flags.includeClientSub),
    pageSize: intOption('--page-size', flags.pageSize, 2, 10_000),
    format,
    myDocuments: choiceOption('--my-documents', flags.myDocuments, ['exclude', 'official', 'all'] as const),
    to: choiceOption('--to', flags.to ?? 'file', ['file', 'postgres'] as const),
    changes: flags.changes === true,
  };
}
