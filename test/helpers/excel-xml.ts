import { writeFileSync } from 'node:fs';
import { crc32, deflateRawSync } from 'node:zlib';

/**
 * Writes an .xlsx the way Excel does, from raw sheet XML, for the cells exceljs never writes
 * (formulas with boolean or error results, formulas without a saved result, inline and rich
 * inline strings, `t="d"` dates, the 1904 date system, shared formulas, phonetic runs, ...).
 *
 * Parts are written in Excel's order: the sheets come before `xl/styles.xml` and
 * `xl/sharedStrings.xml` (`order: 'strings-first'` puts the workbook, styles and shared strings
 * first, as exceljs does, which lets a streaming reader read the sheet straight from the zip).
 *
 * Cell formats (`s` attribute) of `xl/styles.xml`, see `STYLE`.
 */
export const STYLE = {
  general: 0,
  /** numFmtId 14, Excel's built-in short date (`m/d/yyyy`). */
  date: 1,
  /** numFmtId 164 `yyyy-mm-dd hh:mm`. */
  dateTime: 2,
  /** numFmtId 4 `#,##0.00`. */
  decimal: 3,
  /** numFmtId 165 `"Qty "0` (letters in quotes: not a date). */
  quotedText: 4,
  /** numFmtId 20 `h:mm` (built-in time). */
  time: 5,
  /** numFmtId 9 `0%` (built-in percent). */
  percent: 6,
  /** numFmtId 10 `0.00%` (built-in percent). */
  percent2: 7,
  /** numFmtId 170 `0000` (a code with its leading zeros). */
  zeros4: 8,
  /** numFmtId 171 `00\-000` (a code with a dash of its own). */
  zip5: 9,
  /** numFmtId 172 `dd/mm/yyyy` (a date written day first). */
  dmy: 10,
  /** numFmtId 173 `mm/dd/yyyy` (a date written month first). */
  mdy: 11,
  /** numFmtId 174 `"INV-"0000` (a reference labelled by its format). */
  invoice: 12,
  /** numFmtId 175 `"$"#,##0.00` (Excel's Currency format with the $ symbol). */
  currency: 13,
} as const;

export interface ExcelSheet {
  name: string;
  /** The inside of `<sheetData>`: `<row r="1">…</row>…`. */
  rows?: string;
  /** The whole sheet XML instead of `rows` (to test prefixes, damage, ...). */
  xml?: string;
  state?: 'visible' | 'hidden' | 'veryHidden';
  /** Hidden columns (1 = A), written as `<cols><col min max hidden="1">`. */
  hiddenColumns?: number[];
  /** `<autoFilter ref>`, written after `<sheetData>` as Excel does. */
  autoFilter?: string;
  /** `<mergeCell ref>`s, written after `<sheetData>` (after the autofilter) as Excel does. */
  merged?: string[];
}

export interface ExcelWorkbook {
  sheets: ExcelSheet[];
  /** Plain strings (written as `<si><t>`) or `{ xml }`: the raw inside of one `<si>`. */
  sharedStrings?: (string | { xml: string })[];
  date1904?: boolean;
  /** `<workbookView activeTab>`: the tab shown when the workbook was saved (absent: the first). */
  activeTab?: number;
  order?: 'excel' | 'strings-first';
  /** Deflate the entries (Excel does); stored by default. */
  deflate?: boolean;
  /** Extra or replacing parts: path → content. */
  parts?: Record<string, string | Buffer>;
}

export function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const XML_DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n';
const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';

/** The parts of the workbook, in zip order. */
export function excelParts(book: ExcelWorkbook): [string, string | Buffer][] {
  const { sheets } = book;
  const strings = book.sharedStrings ?? [];
  const contentTypes =
    `${XML_DECL}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
    sheets.map((_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('') +
    '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
    '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>' +
    '</Types>';
  const rootRels =
    `${XML_DECL}<Relationships xmlns="${PKG_REL_NS}">` +
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>' +
    '</Relationships>';
  const workbook =
    `${XML_DECL}<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}">` +
    `<fileVersion appName="xl" lastEdited="7" lowestEdited="7" rupBuild="27328"/>` +
    `<workbookPr${book.date1904 ? ' date1904="1"' : ''} defaultThemeVersion="166925"/>` +
    `<bookViews><workbookView xWindow="0" yWindow="0" windowWidth="28800" windowHeight="12300"${book.activeTab === undefined ? '' : ` activeTab="${book.activeTab}"`}/></bookViews>` +
    '<sheets>' +
    sheets.map((s, i) => `<sheet name="${xmlEscape(s.name)}" sheetId="${i + 1}"${s.state ? ` state="${s.state}"` : ''} r:id="rId${i + 1}"/>`).join('') +
    '</sheets><calcPr calcId="191029"/></workbook>';
  const n = sheets.length;
  const workbookRels =
    `${XML_DECL}<Relationships xmlns="${PKG_REL_NS}">` +
    sheets.map((_, i) => `<Relationship Id="rId${i + 1}" Type="${REL_NS}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`).join('') +
    `<Relationship Id="rId${n + 1}" Type="${REL_NS}/styles" Target="styles.xml"/>` +
    `<Relationship Id="rId${n + 2}" Type="${REL_NS}/sharedStrings" Target="sharedStrings.xml"/>` +
    '</Relationships>';
  const styles =
    `${XML_DECL}<styleSheet xmlns="${MAIN_NS}">` +
    '<numFmts count="8"><numFmt numFmtId="164" formatCode="yyyy\\-mm\\-dd\\ hh:mm"/><numFmt numFmtId="165" formatCode="&quot;Qty &quot;0"/>' +
    '<numFmt numFmtId="170" formatCode="0000"/><numFmt numFmtId="171" formatCode="00\\-000"/><numFmt numFmtId="172" formatCode="dd/mm/yyyy"/>' +
    '<numFmt numFmtId="173" formatCode="mm/dd/yyyy"/><numFmt numFmtId="174" formatCode="&quot;INV-&quot;0000"/><numFmt numFmtId="175" formatCode="&quot;$&quot;#,##0.00"/></numFmts>' +
    '<fonts count="1"><font><sz val="11"/><name val="Calibri"/><family val="2"/><scheme val="minor"/></font></fonts>' +
    '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
    '<cellXfs count="14">' +
    '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' +
    '<xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
    '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
    '<xf numFmtId="4" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
    '<xf numFmtId="165" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
    '<xf numFmtId="20" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
    [9, 10, 170, 171, 172, 173, 174, 175].map((id) => `<xf numFmtId="${id}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`).join('') +
    '</cellXfs>' +
    '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
    // A differential format with a date code: not a cell format, must not shift the cell formats.
    '<dxfs count="1"><dxf><numFmt numFmtId="166" formatCode="yyyy"/></dxf></dxfs>' +
    '</styleSheet>';
  const sharedStrings =
    `${XML_DECL}<sst xmlns="${MAIN_NS}" count="${strings.length}" uniqueCount="${strings.length}">` +
    strings.map((s) => (typeof s === 'string' ? `<si><t xml:space="preserve">${xmlEscape(s)}</t></si>` : `<si>${s.xml}</si>`)).join('') +
    '</sst>';
  const sheetParts: [string, string][] = sheets.map((s, i) => [
    `xl/worksheets/sheet${i + 1}.xml`,
    s.xml ??
      `${XML_DECL}<worksheet xmlns="${MAIN_NS}" xmlns:r="${REL_NS}" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">` +
        `<sheetViews><sheetView workbookViewId="0"/></sheetViews><sheetFormatPr defaultRowHeight="15"/>` +
        (s.hiddenColumns?.length ? `<cols>${s.hiddenColumns.map((c) => `<col min="${c}" max="${c}" width="0" hidden="1" customWidth="1"/>`).join('')}</cols>` : '') +
        `<sheetData>${s.rows ?? ''}</sheetData>` +
        (s.autoFilter ? `<autoFilter ref="${s.autoFilter}"/>` : '') +
        (s.merged?.length ? `<mergeCells count="${s.merged.length}">${s.merged.map((r) => `<mergeCell ref="${r}"/>`).join('')}</mergeCells>` : '') +
        '<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>',
  ]);
  const head: [string, string][] = [
    ['[Content_Types].xml', contentTypes],
    ['_rels/.rels', rootRels],
    ['xl/workbook.xml', workbook],
    ['xl/_rels/workbook.xml.rels', workbookRels],
  ];
  const parts: [string, string | Buffer][] =
    book.order === 'strings-first'
      ? [...head, ['xl/styles.xml', styles], ['xl/sharedStrings.xml', sharedStrings], ...sheetParts]
      : [...head, ...sheetParts, ['xl/styles.xml', styles], ['xl/sharedStrings.xml', sharedStrings]];
  for (const [path, content] of Object.entries(book.parts ?? {})) {
    const at = parts.findIndex(([p]) => p === path);
    if (at >= 0) parts[at] = [path, content];
    else parts.push([path, content]);
  }
  return parts;
}

/** Writes `book` to `path` as an .xlsx (a zip of the parts). */
export function writeExcelXlsx(path: string, book: ExcelWorkbook): void {
  writeFileSync(path, zip(excelParts(book), book.deflate ?? false));
}

/** A zip archive of `entries`, stored (method 0) or deflated (method 8), sizes in the local headers. */
export function zip(entries: [string, string | Buffer][], deflate = false): Buffer {
  const chunks: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  // 2026-01-01 00:00 in MS-DOS time.
  const dosTime = 0;
  const dosDate = ((2026 - 1980) << 9) | (1 << 5) | 1;
  for (const [path, content] of entries) {
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    const body = deflate ? deflateRawSync(data) : data;
    const name = Buffer.from(path, 'utf8');
    const crc = crc32(data) >>> 0;
    const method = deflate ? 8 : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(dosTime, 10);
    local.writeUInt16LE(dosDate, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    chunks.push(local, name, body);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4); // version made by
    dir.writeUInt16LE(20, 6); // version needed
    dir.writeUInt16LE(0x0800, 8);
    dir.writeUInt16LE(method, 10);
    dir.writeUInt16LE(dosTime, 12);
    dir.writeUInt16LE(dosDate, 14);
    dir.writeUInt32LE(crc, 16);
    dir.writeUInt32LE(body.length, 20);
    dir.writeUInt32LE(data.length, 24);
    dir.writeUInt16LE(name.length, 28);
    dir.writeUInt16LE(0, 30); // extra
    dir.writeUInt16LE(0, 32); // comment
    dir.writeUInt16LE(0, 34); // disk
    dir.writeUInt16LE(0, 36); // internal attributes
    dir.writeUInt32LE(0, 38); // external attributes
    dir.writeUInt32LE(offset, 42);
    central.push(dir, name);
    offset += local.length + name.length + body.length;
  }
  const centralSize = central.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(0, 4);
  end.writeUInt16LE(0, 6);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  end.writeUInt16LE(0, 20);
  return Buffer.concat([...chunks, ...central, end]);
}
