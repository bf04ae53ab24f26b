/**
 * What the import page's reader thread does (upload-reader.ts starts it): the import service's
 * readings of an upload, each called with plain data and answering plain data, so that the thread
 * holds nothing of the dashboard. This module is the thread's entry: imported there, it answers
 * each call the dashboard posts with the result (or the error, by its stable code).
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { importHeaderRule } from '../import/index.ts';
import { crossingBatch, pageCheck, pagePlan, readPage, rowsOf, savedMappingChoices, type ImportKind, type MappingFile, type PageCheckInput, type PagePlanInput, type PageState, type ReadPageOptions } from '../import-service/index.ts';
import { PageError, scrub } from './http-errors.ts';

/** This module, for the thread to import (in the bundle: the chunk that holds it). */
export const READING_MODULE = import.meta.url;

/** Where the header row is looked for: the rule of the kind and mapping, or the row the check found. */
interface At {
  kind: ImportKind;
  mapping?: MappingFile;
  headerRow?: number;
}

/** A call back to the dashboard (the account's last mapping and vendor list are in its Redis). */
type CallBack = (name: 'lastMapping' | 'vendorList' | 'createdAmong' | 'planned', ...args: unknown[]) => Promise<unknown>;

const at = (file: string, a: At) => ({ header: importHeaderRule(file, a.kind, a.mapping), headerRow: a.headerRow });

/** The calls, by name; each takes one plain object. */
export const READINGS = {
  /** The first reading of an upload, or a reading again (`/import/upload`, `/import/read`). */
  read: (a: { file: string; name: string; state: PageState; account: boolean }, call: CallBack) => {
    const remote: ReadPageOptions = a.account
      ? { lastMapping: (headers) => call('lastMapping', headers) as ReturnType<NonNullable<ReadPageOptions['lastMapping']>>, vendorList: () => call('vendorList') as ReturnType<NonNullable<ReadPageOptions['vendorList']>> }
      : {};
    return readPage(a.file, a.name, a.state, remote);
  },
  /** A saved mapping applied to the upload's columns (`/import/mapping`). */
  mapping: (a: { file: string; name: string; kind: ImportKind; json: unknown; jsonName: string; sheet?: string; state: Partial<PageState> }) =>
    savedMappingChoices(a.file, a.name, a.kind, a.json, a.jsonName, { sheet: a.sheet, state: a.state }),
  /**
   * The check (`/import/check`): the import's streamed plan of the whole upload, keeping what the
   * page shows (pageCheck), then the rows it shows, the cells edited on the page as typed. The
   * ledger is asked through the dashboard which records are already created.
   */
  check: async (a: PageCheckInput & { mapping?: MappingFile }, call: CallBack) => {
    const check = await pageCheck(a, { createdAmong: (keys) => call('createdAmong', keys) as Promise<boolean[]>, scrub });
    const o = a.planOpts;
    const rows = await rowsOf(a.file, new Set(check.invalidLines), {
      sheet: o.sheet, encoding: o.encoding, delimiter: o.delimiter, cellEdits: o.cellEdits, ...at(a.file, { kind: a.kind, mapping: a.mapping, headerRow: check.headerLine }),
    });
    return { ...check, rows };
  },
  /**
   * Send's plan (`/import/send`, `submitFile`): the import's streamed plan of the upload, each batch
   * handed to the dashboard as it is planned, which writes it to the import store before the next
   * is planned (the thread holds the open bills and one batch, the dashboard one batch in flight).
   */
  send: (a: PagePlanInput, call: CallBack) => pagePlan(a, { add: async (records, statics) => void (await call('planned', crossingBatch(records, statics))) }),
} as const;

export type ReadingName = keyof typeof READINGS;
export type ReadingArgs<N extends ReadingName> = Parameters<(typeof READINGS)[N]>[0];
export type ReadingResult<N extends ReadingName> = Awaited<ReturnType<(typeof READINGS)[N]>>;

/** An error as it crosses to the dashboard: a PageError's status, or an error's stable code and its page wording. */
export interface CrossedError {
  status?: number;
  code?: string;
  message: string;
  wording?: unknown;
}

/** A call as the dashboard sends it to the thread. */
export interface ReadingCall {
  id: number;
  call: ReadingName;
  args: unknown;
}

/**
 * The thread's side: answers each call the dashboard posts (several may run at once), calling back
 * through the port when a reading needs the dashboard.
 */
function serve(): void {
  const port = parentPort!;
  let next = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  port.on('message', (m: ReadingCall | { reply: number; value?: unknown; error?: string }) => {
    if ('reply' in m) {
      const p = pending.get(m.reply);
      pending.delete(m.reply);
      if (m.error !== undefined) p?.reject(new Error(m.error));
      else p?.resolve(m.value);
      return;
    }
    const call: CallBack = (name, ...args) =>
      new Promise((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve, reject });
        port.postMessage({ callBack: name, id, args, of: m.id });
      });
    const reading = READINGS[m.call] as (a: unknown, call: CallBack) => Promise<unknown>;
    reading(m.args, call).then(
      // As the page's JSON answer would carry it (a date as its ISO text, no undefined).
      (value) => port.postMessage({ done: m.id, value: value === undefined ? undefined : JSON.parse(JSON.stringify(value)) }),
      (err: unknown) => {
        const e = err as { code?: string; message?: string; wording?: unknown };
        const crossed: CrossedError = { message: String(e?.message ?? err), ...(err instanceof PageError ? { status: err.status } : {}), ...(typeof e?.code === 'string' && e.code.startsWith('BUILDSYNC_') ? { code: e.code, wording: e.wording } : {}) };
        port.postMessage({ done: m.id, error: crossed });
      },
    );
  });
  port.postMessage({ ready: true });
}

if (!isMainThread && (workerData as { buildsyncUploadReading?: unknown } | null)?.buildsyncUploadReading) serve();
