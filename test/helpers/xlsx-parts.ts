/**
 * An independent reader of the .xlsx the export writes: the zip's central directory read by hand,
 * each part inflated with node:zlib, the sheet's cells picked out of its XML with regular
 * expressions. It shares no code with src/export/xlsx/, so a mistake there cannot hide here.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

export interface ZipPart {
  /** 8: deflated, 0: stored. */
  method: number;
  data: Buffer;
}

/** Every entry of a zip archive by name, inflated. */
export function zipParts(zip: Buffer): Map<string, ZipPart> {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('no end of central directory record: not a zip');
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const parts = new Map<string, ZipPart>();
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`bad central directory entry at ${at}`);
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(dataAt, dataAt + compressed);
    const data = method === 8 ? inflateRawSync(raw) : Buffer.from(raw);
    if (data.length !== size) throw new Error(`${name}: ${data.length} bytes inflated, the directory says ${size}`);
    parts.set(name, { method, data });
    at += 46 + nameLength + extra + comment;
  }
  return parts;
}

export interface SheetCell {
  /** The `t` attribute (absent: a number). */
  t?: string;
  /** The `s` attribute (style index). */
  s?: number;
  /** `<v>` of a number, boolean or date cell. */
  v?: string;
  /** The text of an inline string (`<is><t>`), XML entities and `_xHHHH_` escapes decoded. */
  text?: string;
  /** The cell's own XML. */
  xml: string;
}

const decodeXml = (s: string) =>
  s
    .replace(/_x([0-9A-Fa-f]{4})_/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

/** The rows of a sheet's XML, each its cells in order (cells without `r` are counted along the row). */
export function sheetRows(xml: string): SheetCell[][] {
  const rows: SheetCell[][] = [];
  for (const row of xml.matchAll(/<row\b[^>]*>([\s\S]*?)<\/row>/g)) {
    const cells: SheetCell[] = [];
    for (const c of row[1]!.matchAll(/<c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)) {
      const attrs = c[1]!;
      const inner = c[2] ?? '';
      const t = /\bt="([^"]+)"/.exec(attrs)?.[1];
      const s = /\bs="(\d+)"/.exec(attrs)?.[1];
      const v = /<v>([^<]*)<\/v>/.exec(inner)?.[1];
      const text = /<is>\s*<t(?:\s[^>]*)?>([\s\S]*?)<\/t>\s*<\/is>/.exec(inner)?.[1];
      cells.push({ t, s: s === undefined ? undefined : Number(s), v, text: text === undefined ? undefined : decodeXml(text.replace(/_x005F_/g, '\u0000')).replace(/\u0000/g, '_'), xml: c[0] });
    }
    rows.push(cells);
  }
  return rows;
}

/** Where LibreOffice is; on a machine without it the LibreOffice tests skip, except under CI=true. */
export const SOFFICE = ['/usr/bin/soffice', '/usr/bin/libreoffice'].find((p) => existsSync(p));
export const hasSoffice = SOFFICE !== undefined || process.env.CI === 'true';

/**
 * LibreOffice's CSV of `xlsx` (UTF-8, comma, `"` quotes, the values themselves rather than as
 * shown: a date-time as `YYYY-MM-DD HH:MM:SS`, a number with all its digits), written in `outDir`.
 */
export function libreOfficeCsv(xlsx: string, outDir: string, profileDir: string): string {
  if (!SOFFICE) throw new Error('LibreOffice (soffice) is not installed; apt-get install libreoffice-calc-nogui');
  const r = spawnSync(
    SOFFICE,
    [`-env:UserInstallation=file://${profileDir}`, '--headless', '--convert-to', 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false', '--outdir', outDir, xlsx],
    { encoding: 'utf8', timeout: 120_000 },
  );
  if (r.status !== 0) throw new Error(`soffice failed (${r.status}): ${r.stderr}`);
  return `${outDir}/${xlsx.replace(/^.*\//, '').replace(/\.xlsx$/, '.csv')}`;
}
