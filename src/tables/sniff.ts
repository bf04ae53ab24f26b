import { open } from 'node:fs/promises';
import { FileError } from '../errors/index.ts';
import { fileSystemError } from './file-errors.ts';

/*
 * What a file is, from its first bytes: whether to read it as a workbook or as CSV, and, for a
 * file that must be a workbook, what it is instead when it is not one.
 */

const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const EMPTY_ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const OLE2_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/**
 * .xlsx by its extension or by its zip signature (a workbook renamed to .csv still reads as one);
 * everything else is CSV. An .xls workbook is refused.
 */
export async function sniffKind(file: string): Promise<'csv' | 'xlsx'> {
  const lower = file.toLowerCase();
  if (lower.endsWith('.xls')) {
    throw new FileError(file, `${file} is an old-style .xls workbook, which is not supported. Save it as .xlsx or as CSV UTF-8.`);
  }
  if (lower.endsWith('.xlsx')) return 'xlsx';
  let handle;
  try {
    handle = await open(file, 'r');
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    return bytesRead === 4 && head.equals(ZIP_SIGNATURE) ? 'xlsx' : 'csv';
  } catch (err) {
    throw fileSystemError(file, err);
  } finally {
    await handle?.close();
  }
}

/** Refuses, saying what it is instead, a file that cannot be an .xlsx workbook. */
export function checkXlsxSignature(file: string, head: Buffer, size: number): void {
  const refuse = (what: string, todo = 'Open it in a spreadsheet and save it again as .xlsx, or export it as CSV.'): FileError =>
    new FileError(file, `cannot read ${file} as an .xlsx workbook: ${what}. ${todo}`);
  if (size === 0) throw refuse('the file is empty (0 bytes)');
  if (head.subarray(0, 4).equals(ZIP_SIGNATURE)) return;
  if (head.subarray(0, 4).equals(EMPTY_ZIP_SIGNATURE)) throw refuse('it is an empty zip archive');
  if (head.subarray(0, 8).equals(OLE2_SIGNATURE)) {
    throw refuse(
      'it is either protected with a password (Excel then encrypts the whole file) or an old-style .xls workbook',
      'Remove the password (File > Info > Protect Workbook > Encrypt with Password, clear it) or save it as .xlsx, then try again.',
    );
  }
  if (looksLikeText(head)) throw refuse('it is a text file, not a workbook', 'If it holds CSV, rename it to .csv; otherwise open it in a spreadsheet and save it as .xlsx.');
  throw refuse('it is not a zip archive, as every .xlsx workbook is');
}

function looksLikeText(head: Buffer): boolean {
  if (head.includes(0)) {
    // UTF-16 text has a zero in every other byte; its BOM says so.
    return (head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff);
  }
  for (const b of head) if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c) return false;
  return true;
}
