import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { writeFileAtomically } from '../atomic-file.ts';
import type { ServiceAccount } from '../config.ts';
import { errorsFileSource, reportCsvChunks, writeDryRun, type DryRunResult, type ImportPlan, type PlanOptions } from '../import/index.ts';
import { UnresolvedProjects, type ProjectResolver, type UnresolvedVendors } from '../mapping/index.ts';
import type { Limits } from '../throttle/index.ts';
import { listProjects, planImport, type ImportKind } from './run-import.ts';
import { dryRunVendors } from './account-vendors.ts';

export interface DryRunImportOptions {
  planOpts: PlanOptions;
  /** The account when its credentials are set; undefined when they are not. */
  account: ServiceAccount | undefined;
  prefix: string;
  /** The account's name (credentials set or not): whose vendor list a bill dry run reads. */
  accountName: string;
  /** The Redis holding the account's vendor list, read when it answers. */
  redisUrl: string;
  limits: Limits;
  reportPath: string;
  errorsPath: string;
  signal?: AbortSignal;
  /** A line for the user (the CLI prints it on stderr). */
  notice: (line: string) => void;
}

/** A dry run's plan, and what it wrote; `result` undefined for a file with a header and no data rows (nothing written). */
export interface DryRunImport {
  planned: ImportPlan;
  result?: DryRunResult;
  /** Project numbers and names left unresolved, when the listing was not read. */
  unresolved?: UnresolvedProjects;
  /** Vendor names left unresolved, when the account's vendor list was not read (Redis did not answer). */
  unresolvedVendors?: UnresolvedVendors;
}

/**
 * A dry run needs no service, but when the account's credentials are set it resolves project
 * numbers and names through one listing; when they are not set, or the service cannot be reached,
 * ids are taken as written and numbers and names are reported as unresolved.
 */
async function dryRunResolver(o: DryRunImportOptions): Promise<ProjectResolver | undefined> {
  if (o.account === undefined) return undefined;
  // Without Redis a dry run's one listing request takes no budget token (README, Commands: "says so").
  o.notice('dry run: reading the project listing to resolve project numbers and names (one request, not counted in the shared budget)');
  try {
    return await listProjects(o.account, { prefix: o.prefix, connections: 1, signal: o.signal });
  } catch (err) {
    o.notice(`dry run: could not list the account's projects (${(err as Error).message}); project numbers and names stay unresolved`);
    return undefined;
  }
}

/** Checks and plans the file as the import would, writes its report and rows to fix, sends nothing. */
export async function dryRunImport(kind: ImportKind, file: string, o: DryRunImportOptions): Promise<DryRunImport> {
  const listed = await dryRunResolver(o);
  const unresolved = listed === undefined ? new UnresolvedProjects() : undefined;
  const vendors = await dryRunVendors(kind, o.planOpts, { redisUrl: o.redisUrl, prefix: o.prefix, account: o.accountName });
  const planned = await planImport(kind, file, { ...vendors.opts, resolver: listed ?? unresolved });
  const unresolvedVendors = vendors.unresolved !== undefined && vendors.unresolved.count > 0 ? vendors.unresolved : undefined;
  if (unresolvedVendors !== undefined) {
    const n = unresolvedVendors.count;
    o.notice(`dry run: ${n} vendor ${n === 1 ? 'name was' : 'names were'} not resolved: the vendor list of account ${o.accountName} was not read (${vendors.reason}); everything else was checked (give them with --vendors VENDORS.csv to check them too)`);
  }
  if (planned.rows === 0) return { planned };
  const result = await writeDryRun(planned, {
    reportPath: o.reportPath,
    errorsPath: o.errorsPath,
    source: errorsFileSource(planned, resolve(file), o.planOpts),
    limits: o.limits,
    unresolved,
    unresolvedVendors,
    signal: o.signal,
  });
  return { planned, result, unresolved, unresolvedVendors };
}

/**
 * A file with a header and no data rows: nothing to do (README, Commands); its report (a header
 * line) is written as every import's is, and a stale errors file removed.
 */
export async function writeEmptyReport(reportPath: string, errorsPath: string): Promise<void> {
  const out = await writeFileAtomically(reportPath);
  try {
    for (const chunk of reportCsvChunks([])) await out.write(chunk);
    await out.commit();
  } catch (err) {
    await out.abort();
    throw err;
  }
  await rm(errorsPath, { force: true });
}
